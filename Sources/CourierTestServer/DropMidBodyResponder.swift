/// Serves ``Route/dropMidBody(_:)``: announces `count` bytes, sends half, hangs up.
struct DropMidBodyResponder: Responder {
    let count: Int

    func respond(to exchange: Exchange) throws {
        let head = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .length(count))
        try exchange.connection.write(head)
        if !exchange.isHead {
            let half = count / 2
            var offset = 0
            while offset < half {
                let length = min(half - offset, DeterministicPattern.blockSize)
                try DeterministicPattern.withBytes(offset: offset, count: length) { try exchange.connection.write($0) }
                offset += length
            }
        }
        exchange.hangUp()
    }
}
