import Foundation

/// A delegate that takes the body as it arrives: the body is then neither stored nor written.
/// When the callback queue falls behind, the transfer pauses rather than buffering without
/// bound. Called on the request's callback queue.
public protocol HTTPRequestDataDelegate: HTTPRequestDelegate {
    /// The next part of the body.
    func request(_ request: HTTPRequest, didReceive data: Data)
}

extension HTTPRequest {
    /// Performed on the delegate with each part of the body (instead of
    /// `request(_:didReceive:)`); the body is then neither stored nor written.
    public func setDidReceiveDataSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (Self, Data) -> Void) {
        state.withLock {
            $0.selectors.didReceiveData = { target, request, data in
                guard let target = target as? D, let request = request as? Self else { return }
                selector(target)(request, data)
            }
        }
    }

    /// Runs with each part of the body, after the delegate; the body is then neither stored nor
    /// written.
    public func setDataReceivedBlock(_ block: @escaping @Sendable (Self, Data) -> Void) {
        state.withLock {
            $0.blocks.dataReceived = { request, data in
                if let request = request as? Self { block(request, data) }
            }
        }
    }

    /// Whether someone takes the body as it arrives.
    static func streamsBody(_ state: RequestState) -> Bool {
        state.delegate is HTTPRequestDataDelegate || (state.delegate != nil && state.selectors.didReceiveData != nil)
            || state.blocks.dataReceived != nil
    }

    // MARK: - TransferSink (engine thread)

    /// Whether the consumer has room for more. The backlog (`pendingBytes`) counts every byte
    /// taken from the engine until the consumer's call for it returned, so it never exceeds
    /// `StreamState.pauseThreshold` plus the chunk that crossed it (at most the 64 KiB receive
    /// buffer, `CURLOPT_BUFFERSIZE`). Before, the count was zeroed when a batch was taken for
    /// delivery: a second batch filled while the first was being handed over, ~9 MiB in all.
    func transferHasRoom(_ transfer: Transfer) -> Bool {
        state.withLock { state in
            guard state.core.isCurrent(transfer), state.stream.pendingBytes >= StreamState.pauseThreshold else {
                return true
            }
            state.stream.transferPaused = true
            return false
        }
    }

    func transfer(_ transfer: Transfer, didReceiveChunk chunk: UnsafeRawBufferPointer) {
        let schedules = state.withLock { state -> Bool in
            guard state.core.isCurrent(transfer) else { return false }
            state.stream.chunks.append(Data(chunk))
            state.stream.pendingBytes += chunk.count
            defer { state.stream.deliveryScheduled = true }
            return !state.stream.deliveryScheduled
        }
        if schedules { postEvent { self.deliverPendingData() } }
    }

    // MARK: - Delivery (callback thread)

    /// Hands over everything that arrived, in order. Each chunk leaves the backlog once its call
    /// returned; a paused transfer runs again as soon as the backlog is down to
    /// `StreamState.resumeThreshold`, so a slow consumer still has the next chunks coming
    /// while it works through these.
    private func deliverPendingData() {
        let (chunks, delegate, selector, block) = state.withLock { state in
            defer {
                state.stream.chunks.removeAll()
                state.stream.deliveryScheduled = false
            }
            return (state.stream.chunks, state.delegate, state.selectors.didReceiveData, state.blocks.dataReceived)
        }
        for chunk in chunks {
            fanOut(
                to: delegate, selector: selector, block: block, performing: { $0($1, self, chunk) },
                orCalling: { ($0 as? HTTPRequestDataDelegate)?.request(self, didReceive: chunk) },
                then: { $0(self, chunk) })
            let paused = state.withLock { state -> Transfer? in
                state.stream.pendingBytes = max(0, state.stream.pendingBytes - chunk.count)
                guard state.stream.transferPaused, state.stream.pendingBytes <= StreamState.resumeThreshold else {
                    return nil
                }
                state.stream.transferPaused = false
                return state.core.transfer
            }
            if let paused { Engine.shared.resume(paused, from: .consumer) }
        }
    }
}
