/// Serves ``Route/stallMidBodyTimes(key:count:bytes:sent:)``: for the first `count`
/// requests for `key`, the head and the first `sent` bytes, then a stall; afterwards the
/// whole ``Route/bytes(_:)`` body.
struct StallMidBodyTimesResponder: Responder {
    let key: String
    let count: Int
    let bytes: Int
    let sent: Int

    func respond(to exchange: Exchange) throws {
        let stalls = exchange.server.nextHit(forKey: key) <= count
        guard stalls else { return try BytesResponder(count: bytes).respond(to: exchange) }
        var head = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .length(bytes))
        DeterministicPattern.withBytes(offset: 0, count: sent) { head.append(contentsOf: $0) }
        try exchange.watchingForClientClose { try exchange.connection.write(head) }
        try exchange.stall()
    }
}
