import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

#if canImport(Glibc)
import Glibc
#endif

/// The credential file behind `useKeychainPersistence`: real files, real modes, a real second process.
final class PersistentCredentialStoreTests: XCTestCase {
    private var directory: URL!
    private var path: String { directory.appendingPathComponent("courier/credentials").path }

    override func setUpWithError() throws {
        try super.setUpWithError()
        if let childPath = ProcessInfo.processInfo.environment[PersistentCredentialStore.pathVariable],
            ChildProcess.role != nil
        {
            // The child uses the file the parent named, through the environment as a user would.
            directory = URL(fileURLWithPath: childPath).deletingLastPathComponent().deletingLastPathComponent()
            return
        }
        directory = try makeTemporaryDirectory("credentials")
        PersistentCredentialStore.pathOverride.withLock { $0 = path }
    }

    override func tearDown() {
        PersistentCredentialStore.pathOverride.withLock { $0 = nil }
        HTTPRequest.logHandler = nil
        super.tearDown()
    }

    private func credential(_ user: String, _ password: String) -> URLCredential {
        URLCredential(user: user, password: password, persistence: .permanent)
    }

    private func mode(of path: String) throws -> UInt32 {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CredentialStoreError.fileSystem(path: path, operation: "stat", errno: errno)
        }
        return status.st_mode & 0o777
    }

    func testThatSavedCredentialsAreReadBackAndRemoved() throws {
        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("alice", "s3cret"), forHost: "Example.TEST", port: 0,
                protocol: "http", realm: "Staff"))
        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("proxyuser", "proxypass"), forProxy: "proxy.test",
                port: 3128, realm: nil))
        let server = try XCTUnwrap(
            HTTPRequest.savedCredentials(
                forHost: "example.test", port: 80, protocol: "HTTP",
                realm: "Staff"))
        XCTAssertEqual(server.user, "alice")
        XCTAssertEqual(server.password, "s3cret")
        XCTAssertNil(HTTPRequest.savedCredentials(forHost: "example.test", port: 80, protocol: "http", realm: "Board"))
        XCTAssertNil(
            HTTPRequest.savedCredentials(forHost: "example.test", port: 8080, protocol: "http", realm: "Staff"))
        XCTAssertNil(
            HTTPRequest.savedCredentials(forHost: "example.test", port: 443, protocol: "https", realm: "Staff"))
        let proxy = try XCTUnwrap(HTTPRequest.savedCredentials(forProxy: "PROXY.test", port: 3128, realm: "Any"))
        XCTAssertEqual(proxy.user, "proxyuser", "a proxy entry saved without a realm serves every realm")
        XCTAssertNil(HTTPRequest.savedCredentials(forProxy: "proxy.test", port: 3129, realm: nil))

        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("alice", "n3w"), forHost: "example.test", port: 80,
                protocol: "http", realm: "Staff"))
        XCTAssertEqual(
            HTTPRequest.savedCredentials(
                forHost: "example.test", port: 0, protocol: "http",
                realm: "Staff")?.password, "n3w", "a save replaces the old entry")
        XCTAssertNil(HTTPRequest.removeCredentials(forHost: "example.test", port: 80, protocol: "http", realm: "Staff"))
        XCTAssertNil(HTTPRequest.savedCredentials(forHost: "example.test", port: 80, protocol: "http", realm: "Staff"))
        XCTAssertNil(HTTPRequest.removeCredentials(forProxy: "proxy.test", port: 3128, realm: nil))
        XCTAssertNil(HTTPRequest.savedCredentials(forProxy: "proxy.test", port: 3128, realm: nil))
    }

    func testThatTheFileIsOnlyItsOwnersAndItsDirectoryToo() throws {
        let previous = umask(0)  // the widest umask: the store must not depend on the user's
        defer { umask(previous) }
        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("alice", "s3cret"), forHost: "example.test", port: 80,
                protocol: "http", realm: nil))
        XCTAssertEqual(try mode(of: path), 0o600)
        XCTAssertEqual(try mode(of: (path as NSString).deletingLastPathComponent), 0o700)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: (path as NSString).deletingLastPathComponent)
        XCTAssertEqual(leftovers, ["credentials"], "no temporary file stays behind")
        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("bob", "b"), forHost: "example.test", port: 80,
                protocol: "http", realm: "Other"))
        XCTAssertEqual(try mode(of: path), 0o600, "a rewrite keeps the mode")
    }

    func testThatAFileOthersMayReadIsNeitherReadNorWritten() throws {
        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("alice", "s3cret"), forHost: "example.test", port: 80,
                protocol: "http", realm: nil))
        for wider: mode_t in [0o644, 0o640, 0o606, 0o660] {
            chmod(path, wider)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let log = EventLog()
            HTTPRequest.logHandler = { log.add($0) }
            XCTAssertNil(
                HTTPRequest.savedCredentials(forHost: "example.test", port: 80, protocol: "http", realm: nil),
                "mode \(String(wider, radix: 8)) is not read")
            let error = try XCTUnwrap(
                HTTPRequest.saveCredentials(
                    credential("mallory", "x"), forHost: "example.test",
                    port: 80, protocol: "http", realm: nil))
            XCTAssertEqual(error.type, .fileManagement)
            XCTAssertTrue(error.message.contains("refused"), error.message)
            XCTAssertTrue(error.message.contains(String(wider, radix: 8)), error.message)
            XCTAssertTrue(error.message.contains(path), error.message)
            XCTAssertNotNil(
                HTTPRequest.removeCredentials(
                    forHost: "example.test", port: 80, protocol: "http",
                    realm: nil))
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the file is not written")
            XCTAssertEqual(try mode(of: path), UInt32(wider), "nor is its mode changed behind the user's back")
            XCTAssertTrue(log.all.contains { $0.contains("refused") }, log.all.joined(separator: "\n"))
        }
        chmod(path, 0o600)
        XCTAssertEqual(
            HTTPRequest.savedCredentials(
                forHost: "example.test", port: 80, protocol: "http",
                realm: nil)?.user, "alice")
    }

    func testThatASymbolicLinkIsRefused() throws {
        let real = try directory.writeFile("elsewhere", Data("{}".utf8))
        chmod(real, 0o600)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: real)
        let error = try XCTUnwrap(
            HTTPRequest.saveCredentials(
                credential("a", "b"), forHost: "example.test", port: 80,
                protocol: "http", realm: nil))
        XCTAssertTrue(error.message.contains("not a regular file"), error.message)
        XCTAssertEqual(try String(contentsOfFile: real, encoding: .utf8), "{}")
    }

    func testThatADamagedFileIsReportedAndASaveStartsANewOneKeepingTheOld() throws {
        let damaged = Data("{\"version\": 1, \"servers\": [{\"host\": ".utf8)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: damaged, attributes: [.posixPermissions: 0o600])
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        XCTAssertNil(HTTPRequest.savedCredentials(forHost: "example.test", port: 80, protocol: "http", realm: nil))
        XCTAssertTrue(log.all.contains { $0.contains("is damaged") }, log.all.joined(separator: "\n"))
        let removal = try XCTUnwrap(
            HTTPRequest.removeCredentials(
                forHost: "example.test", port: 80, protocol: "http",
                realm: nil))
        XCTAssertTrue(removal.message.contains("damaged"), removal.message)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), damaged, "a removal leaves it as it is")

        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("alice", "s3cret"), forHost: "example.test", port: 80,
                protocol: "http", realm: nil))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path + ".damaged")), damaged, "the old bytes are kept")
        XCTAssertEqual(try mode(of: path + ".damaged"), 0o600)
        XCTAssertEqual(
            HTTPRequest.savedCredentials(
                forHost: "example.test", port: 80, protocol: "http",
                realm: nil)?.user, "alice")

        for garbage in ["", "[]", "{\"version\": 7, \"servers\": [], \"proxies\": []}", "\u{FF}\u{FE}"] {
            _ = FileManager.default.createFile(
                atPath: path, contents: Data(garbage.utf8),
                attributes: [.posixPermissions: 0o600])
            XCTAssertNil(HTTPRequest.savedCredentials(forHost: "example.test", port: 80, protocol: "http", realm: nil))
            XCTAssertNotNil(
                HTTPRequest.removeCredentials(
                    forHost: "example.test", port: 80, protocol: "http",
                    realm: nil), "\(garbage.debugDescription) is reported")
        }
    }

    func testThatRemovingCredentialsThatDoNotExistDoesNothing() throws {
        // ASI's testRemoveCredentialsFromKeychain.
        XCTAssertNil(HTTPRequest.removeCredentials(forHost: "127.0.0.1", port: 0, protocol: "http", realm: "Test"))
        XCTAssertNil(HTTPRequest.removeCredentials(forProxy: "127.0.0.1", port: 0, realm: "Test"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "no file made for nothing")
        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("a", "b"), forHost: "h.test", port: 80, protocol: "http",
                realm: nil))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertNil(HTTPRequest.removeCredentials(forHost: "127.0.0.1", port: 0, protocol: "http", realm: "Test"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    func testThatTheDefaultFileFollowsXDGDataHome() {
        PersistentCredentialStore.pathOverride.withLock { $0 = nil }
        let environment = ProcessInfo.processInfo.environment
        let expected: String
        if let named = environment[PersistentCredentialStore.pathVariable], !named.isEmpty {
            expected = named
        } else if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            expected = data + "/courier/credentials"
        } else {
            expected = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/courier/credentials"
        }
        XCTAssertEqual(PersistentCredentialStore.path, expected)
    }

    func testThatSavedCredentialsSurviveANewProcess() throws {
        switch ChildProcess.role {
        case "credentials-writer":
            XCTAssertNil(
                HTTPRequest.saveCredentials(
                    credential("alice", "from-the-child"), forHost: "example.test",
                    port: 8080, protocol: "http", realm: "Staff"))
            ChildProcess.report(["saved": "yes"])
            return
        case "credentials-reader":
            let proxy = HTTPRequest.savedCredentials(forProxy: "proxy.test", port: 3128, realm: "Squid")
            ChildProcess.report(["user": proxy?.user ?? "none", "password": proxy?.password ?? "none"])
            return
        default:
            break
        }
        let test = "CourierTests.PersistentCredentialStoreTests/testThatSavedCredentialsSurviveANewProcess"
        let environment = [PersistentCredentialStore.pathVariable: path]
        let writer = try ChildProcess.run(test: test, role: "credentials-writer", timeout: 60, environment: environment)
        XCTAssertEqual(writer.status, 0, writer.output)
        XCTAssertEqual(try writer.report("credentials-writer").fields["saved"], "yes")
        let saved = try XCTUnwrap(
            HTTPRequest.savedCredentials(
                forHost: "example.test", port: 8080, protocol: "http",
                realm: "Staff"), "what the child saved is here")
        XCTAssertEqual(saved.password, "from-the-child")

        XCTAssertNil(
            HTTPRequest.saveCredentials(
                credential("proxyuser", "from-the-parent"), forProxy: "proxy.test",
                port: 3128, realm: "Squid"))
        let reader = try ChildProcess.run(test: test, role: "credentials-reader", timeout: 60, environment: environment)
        XCTAssertEqual(reader.status, 0, reader.output)
        let report = try reader.report("credentials-reader")
        XCTAssertEqual(report.fields["user"], "proxyuser")
        XCTAssertEqual(report.fields["password"], "from-the-parent")
    }

    func testThatConcurrentSavesInOneProcessAllLand() throws {
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            _ = HTTPRequest.saveCredentials(
                URLCredential(user: "user\(index)", password: "p", persistence: .none), forHost: "host\(index).test",
                port: 80,
                protocol: "http", realm: nil)
        }
        for index in 0..<16 {
            XCTAssertEqual(
                HTTPRequest.savedCredentials(
                    forHost: "host\(index).test", port: 80, protocol: "http",
                    realm: nil)?.user, "user\(index)")
        }
    }
}
