import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// The engine thread only moves bytes: a credential file another process keeps locked delays
/// the one request that writes it, never the transfers of other requests.
final class EngineThreadTests: AuthenticationTestCase {
    private let basic = Route.basicAuth(user: "secret_username", password: "secret_password")

    /// How long the other process keeps the credential file's directory locked.
    private let lockHeld: TimeInterval = 8

    func testThatACredentialFileLockedByAnotherProcessStallsNoOtherTransfer() throws {
        let flock = "/usr/bin/flock"
        guard FileManager.default.isExecutableFile(atPath: flock) else { throw XCTSkip("needs \(flock)") }
        // The store saves under an exclusive flock on the file's directory (CredentialFileIO).
        let directory = (credentialFile as NSString).deletingLastPathComponent
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: flock)
        // --no-fork: the process that holds the lock is this one, so terminating it frees the lock.
        holder.arguments = ["--exclusive", "--no-fork", directory, "-c", "echo locked; exec sleep \(Int(lockHeld))"]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        defer {
            if holder.isRunning { holder.terminate() }
            holder.waitUntilExit()
        }
        let said = output.fileHandleForReading.availableData
        XCTAssertEqual(String(decoding: said, as: UTF8.self), "locked\n", "the other process holds the lock")
        let lockedAt = Date()

        // Its credentials work, so it saves them to the file: it waits for the lock.
        let callbacks = DispatchQueue(label: "EngineThreadTests.callbacks")
        let saving = request(basic, user: "secret_username", password: "secret_password")
        saving.useKeychainPersistence = true
        saving.callbackQueue = callbacks
        let saved = expectation(description: "the saving request finished")
        saving.setCompletionBlock { _ in saved.fulfill() }
        saving.setFailedBlock { _ in saved.fulfill() }
        saving.startAsynchronous()
        waitUntil(timeout: 5) { self.server.authorizations(for: self.basic).count == 2 }
        // The answer to the retry has arrived and the save is under way.
        Thread.sleep(forTimeInterval: 0.3)

        let other = try TestServer()
        let loaded = expectation(description: "100 requests to another server finished")
        loaded.expectedFulfillmentCount = 100
        let started = Date()
        let requests = (0..<100).map { _ in HTTPRequest(url: other.url(.bytes(1024))) }
        for request in requests {
            request.callbackQueue = callbacks
            request.setCompletionBlock { _ in loaded.fulfill() }
            request.setFailedBlock { _ in loaded.fulfill() }
            request.startAsynchronous()
        }
        wait(for: [loaded], timeout: lockHeld + 10)
        let took = Date().timeIntervalSince(started)
        XCTAssertLessThan(took, 5, "the 100 requests waited for the credential file's lock (\(took) s)")
        XCTAssertEqual(requests.filter { $0.error != nil || $0.responseData()?.count != 1024 }.count, 0)
        XCTAssertLessThan(
            Date().timeIntervalSince(lockedAt), lockHeld, "the lock was still held while they all finished")
        XCTAssertFalse(saving.isFinished, "the saving request waits for the lock")

        holder.terminate()
        let freed = Date()
        wait(for: [saved], timeout: 10)
        XCTAssertLessThan(Date().timeIntervalSince(freed), 2, "the save went on once the lock was freed")
        XCTAssertNil(saving.error)
        XCTAssertEqual(
            HTTPRequest.savedCredentials(forHost: "127.0.0.1", port: server.port, protocol: "http", realm: "Courier")?
                .user,
            "secret_username", "saved once the lock was free")
    }
}
