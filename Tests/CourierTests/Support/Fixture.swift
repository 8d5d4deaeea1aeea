import Courier
import CourierTestServer
import Foundation
import XCTest

/// One fixture server for the whole test process: tests share it, as they would share a real one.
enum Fixture {
    static let server: TestServer = {
        do { return try TestServer() } catch { fatalError("the fixture server could not start: \(error)") }
    }()

    static func url(_ route: Route) -> URL { server.url(route) }

    /// A URL on a port nothing listens on: a port the kernel just gave us, then closed.
    static let refusedURL: URL = {
        let probe = try! TestServer()
        let port = probe.port
        probe.stop()
        return URL(string: "http://127.0.0.1:\(port)/")!
    }()
}

/// What the echo route answers: the request as the server saw it.
struct Echo: Decodable {
    let method: String
    let target: String
    let httpVersion: String
    let headers: [[String]]
    let body: String
    let bodyLength: Int

    var bodyData: Data { Data(base64Encoded: body) ?? Data() }

    /// The first value of a header, by case-insensitive name.
    func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    /// Every header with that name, in order.
    func headers(named name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap(\.last)
    }

    init(from request: HTTPRequest, file: StaticString = #filePath, line: UInt = #line) throws {
        let data = try XCTUnwrap(request.responseData(), "no response body", file: file, line: line)
        do {
            self = try JSONDecoder().decode(Echo.self, from: data)
        } catch {
            // Say what came instead (a rare CI run got something else here, once): the status
            // and the start of the body.
            let start = String(decoding: data.prefix(300), as: UTF8.self)
            XCTFail(
                "not an echo: \(request.responseStatusCode) \(request.responseHeaders), \(data.count) bytes: "
                    + start.debugDescription, file: file, line: line)
            throw error
        }
    }
}

/// Records events from any thread, in order.
final class EventLog: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched under `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    func add(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}
