extension Exchange {
    /// Runs `body`, which holds or writes a fault route's response, and counts the
    /// connection in ``ServerCore/connectionsClosedByClient`` if the client closes or
    /// resets it meanwhile.
    ///
    /// The failure is rethrown, which ends the connection; that is what makes each
    /// connection count at most once.
    func watchingForClientClose<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let failure as Connection.Failure where failure.isPeerGone && !server.isStopping {
            server.noteClientClosed()
            throw failure
        }
    }

    /// Sends nothing and holds the connection until the client closes or resets it
    /// (counted) or the server stops; then throws, ending the connection.
    func stall() throws -> Never {
        try watchingForClientClose { () throws -> Never in
            // sleep wakes at once on a hang-up or stop(), so its length is arbitrary.
            while true { try connection.sleep(seconds: 3600) }
        }
    }

    /// Ends the connection cleanly (FIN) after everything written so far, and serves no
    /// further request on it: the drop routes' way of hanging up mid-response.
    func hangUp() {
        keepAlive = false
        connection.close()
    }
}
