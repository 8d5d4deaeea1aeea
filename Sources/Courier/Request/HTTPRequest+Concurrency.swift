import Foundation

extension HTTPRequest {
    /// Runs the request if it has not started (through the shared queue, as
    /// `startAsynchronous()`) and returns it once it has finished, after its callbacks ran.
    /// Throws the request's error if it failed. Cancelling the calling task cancels the request,
    /// which then throws `requestCancelled`.
    ///
    /// ```swift
    /// let request = try await HTTPRequest(url: url).response()
    /// print(request.responseStatusCode)
    /// ```
    public func response() async throws(HTTPRequestError) -> Self {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                whenTerminalDelivered { continuation.resume() }
                if read(\.core.phase) == .idle { startAsynchronous() }
            }
        } onCancel: {
            cancel()
        }
        if let error { throw error }
        return self
    }

    /// Runs `observer` once the terminal callback has been delivered: at once if it already was.
    func whenTerminalDelivered(_ observer: @escaping @Sendable () -> Void) {
        let alreadyDelivered = state.withLock { state -> Bool in
            guard !state.core.hasDeliveredTerminal else { return true }
            state.terminalObservers.append(observer)
            return false
        }
        if alreadyDelivered { observer() }
    }
}
