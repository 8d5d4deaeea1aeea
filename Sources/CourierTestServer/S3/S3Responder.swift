import Foundation

/// Serves the S3 service: every request no route takes, once a test has set the service up
/// (``TestServer/addS3Credentials(accessKey:secretAccessKey:sessionToken:)`` or
/// ``TestServer/createS3Bucket(_:region:wrongRegionStyle:)``); before that, `404 no such route`.
///
/// Each request is checked as S3 checks it (``S3SignatureCheck``), then a scripted fault answers
/// it if one matches, else the store does what it asks. Every answer carries `x-amz-request-id`
/// and a `Date` from the service's clock.
struct S3Responder: Responder {
    func respond(to exchange: Exchange) throws {
        let request = exchange.request
        let call = S3Call(method: request.method, target: request.target, headers: request.headers)
        let endpoint = "127.0.0.1:\(exchange.server.port)"
        let setup = exchange.server.withS3 { store in
            store.isEnabled
                ? (
                    requestID: S3Responder.requestID(store.nextID()), now: store.now,
                    context: S3SignatureCheck.Context(
                        credentials: store.credentials,
                        bucket: call.bucket.flatMap { name in
                            store.buckets[name].map { (name, $0.region, $0.wrongRegionStyle) }
                        }, now: store.now, endpoint: endpoint)
                ) : nil
        }
        guard let setup else { return try NotFoundResponder().respond(to: exchange) }
        exchange.date = setup.now
        let answer: S3Answer
        do {
            try S3SignatureCheck.verify(call, headers: request.headers, body: exchange.body, context: setup.context)
            answer = try exchange.server.withS3 { store throws(S3ErrorDocument) in
                if let fault = store.takeFault(for: call) {
                    throw S3ErrorDocument(status: fault.status, code: fault.code, message: fault.message)
                }
                return try store.perform(call, headers: request.headers, body: exchange.body)
            }
        } catch {
            answer = S3Answer(
                status: error.status,
                headers: error.headers + [HeaderField(name: "Content-Type", value: "application/xml")],
                body: error.body(requestID: setup.requestID, resource: call.rawPath))
        }
        try exchange.respond(
            status: answer.status,
            headers: answer.headers + [HeaderField(name: "x-amz-request-id", value: setup.requestID)], body: answer.body
        )
    }

    /// A request ID in S3's style, 16 upper-case hex digits.
    static func requestID(_ serial: Int) -> String {
        let digits = String(serial, radix: 16, uppercase: true)
        return "C0" + String(repeating: "0", count: max(0, 14 - digits.count)) + digits
    }
}
