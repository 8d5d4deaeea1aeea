import Foundation

extension HTTPRequest {
    /// Turns the response body into a value of yours, on a background queue, after the body has
    /// arrived and before the finish callbacks run; the value is then in `parsedResult`. A thrown
    /// error fails the request (`unhandledException`, the error as `underlyingError`).
    /// ABRequestManager's parsing block. Runs for every finished response, whatever its status.
    public var parsingBlock: (@Sendable (Data) throws -> any Sendable)? {
        get { read(\.config.parsingBlock) }
        set { write(\.config.parsingBlock, newValue) }
    }

    /// What `parsingBlock` returned, once the request has finished.
    public var parsedResult: (any Sendable)? { read(\.parsedResult) }

    /// Runs the parsing block, if any, off the engine thread, then completes the request.
    func completeAfterParsing(_ outcome: RequestCore.Outcome) {
        guard case .finished = outcome, let parse = read(\.config.parsingBlock) else {
            complete(outcome)
            return
        }
        let body = responseData() ?? Data()
        DispatchQueue.global().async {
            do {
                let result = try parse(body)
                self.state.withLock { $0.parsedResult = result }
                self.complete(.finished)
            } catch {
                self.complete(
                    .failed(
                        HTTPRequestError(
                            type: .unhandledException, message: "The parsing block threw \(error)", url: self.url,
                            underlyingError: error)))
            }
        }
    }
}
