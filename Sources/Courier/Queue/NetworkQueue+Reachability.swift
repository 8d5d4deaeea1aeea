import Foundation

/// ABRequestManager's reachability: a request whose connection fails while the queue's
/// reachability host cannot be reached is held (or handed to the delegate) instead of failing,
/// and the queue starts nothing new until the host is back.
extension NetworkQueue {
    /// The host whose reachability decides what a connection failure means; nil (the default)
    /// means connection failures fail as usual. The host is probed on the failing request's port.
    public var reachabilityHost: String? {
        get { state.withLock { $0.reachabilityHost } }
        set { state.withLock { $0.reachabilityHost = newValue } }
    }

    /// How often a queue holding requests checks whether the host is back.
    static let reachabilityInterval: TimeInterval = 1

    /// A request of this queue failed to connect. If the host can be reached after all, the
    /// failure stands; otherwise the delegate's `requestDidBecomeUnreachableSelector` gets the
    /// request, or, without one, the request is held and run again first when the host is back.
    func requestFailedToConnect(_ request: HTTPRequest, error: HTTPRequestError) {
        guard let host = reachabilityHost else {
            request.send(.reachabilityCheckFound(.reachable(error)))
            return
        }
        let url = request.url
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        DispatchQueue.global().async {
            let probe = Reachability(host: host, port: port)
            guard !probe.isReachable else {
                request.send(.reachabilityCheckFound(.reachable(error)))
                return
            }
            let handsOver = self.state.withLock {
                $0.delegate != nil && $0.selectors.requestDidBecomeUnreachable != nil
            }
            if handsOver {
                request.send(.reachabilityCheckFound(.unreachableHandedOver(error)))
                return
            }
            Log.message("\(host):\(port) is unreachable: holding \(Log.masked(url)) until it is back")
            self.hold(request, probe: probe)
        }
    }

    private func hold(_ request: HTTPRequest, probe: Reachability) {
        // A request cancelled meanwhile is not held: its cancellation has ended it.
        guard request.send(.reachabilityCheckFound(.unreachableHeld)) else { return }
        let startsMonitor = state.withLock { state -> Bool in
            state.held.append(request)
            defer { state.isHeldForReachability = true }
            guard state.reachabilityMonitor == nil else { return false }
            state.reachabilityMonitor = probe
            return true
        }
        guard startsMonitor else { return }
        probe.startMonitoring(interval: Self.reachabilityInterval) { [weak self] reachable in
            if reachable { self?.releaseHeldRequests() }
        }
    }

    /// The host is back: held requests run again, first, then the rest of the queue.
    private func releaseHeldRequests() {
        let (held, monitor) = state.withLock { state in
            defer {
                state.held.removeAll()
                state.isHeldForReachability = false
                state.reachabilityMonitor = nil
            }
            return (state.held, state.reachabilityMonitor)
        }
        monitor?.stopMonitoring()
        for request in held { request.runAgainAfterHostReturned() }
        startWaitingRequests()
    }
}

extension HTTPRequest {
    /// A held request's new attempt, unless it was cancelled meanwhile.
    func runAgainAfterHostReturned() {
        Log.message("the host is back: running \(Log.masked(url)) again")
        send(.hostReachableAgain)
    }
}
