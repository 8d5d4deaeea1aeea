import Courier
import CourierTestSupport
import Foundation
import XCTest

/// An encrypted key without a password, in a process with a terminal: OpenSSL, left to itself,
/// asks for the pass phrase on /dev/tty and blocks the engine thread until someone types it.
final class ClientCertificatePromptTests: XCTestCase {
    private static let role = "encrypted-key-without-password"

    func testThatAnEncryptedKeyWithoutAPasswordFailsAtOnceWithoutAskingOnTheTerminal() throws {
        if ChildProcess.role == Self.role {
            try requestWithEncryptedKeyAndNoPassword()
            return
        }
        // `script` gives the child a pseudo-terminal as its controlling terminal, where OpenSSL's
        // prompt would go (the test runner has none).
        let script = try ExternalTool.locate("script")
        let test =
            "InteropTests.ClientCertificatePromptTests/"
            + "testThatAnEncryptedKeyWithoutAPasswordFailsAtOnceWithoutAskingOnTheTerminal"
        let command = "env \(ChildProcess.roleVariable)=\(Self.role) '\(CommandLine.arguments[0])' '\(test)'"
        let run = try Tool.run(script, ["-qec", command, "/dev/null"], errorsToOutput: true, timeout: 30)
        XCTAssertFalse(run.text.contains("pass phrase"), run.text)
        XCTAssertEqual(run.status, 0, run.text)
        XCTAssertTrue(run.text.contains("child: failed with curl code 58"), run.text)
    }

    /// The child's part, with its own servers.
    private func requestWithEncryptedKeyAndNoPassword() throws {
        let servers = try InteropServers.shared
        let certificates = servers.clientCertificates
        let request = HTTPRequest(url: URL(string: servers.clientCertificateHTTPS.absoluteString + "/whoami")!)
        request.caBundlePath = servers.caBundlePath
        request.clientCertificate = .pem(
            certificatePath: certificates.certificateA.path, keyPath: certificates.keyA.path)
        request.startSynchronous()
        print("child: failed with curl code \(request.error?.curlCode ?? 0)")
        XCTAssertTrue(request.error?.message.contains("needs a password, and none was given") ?? false)
    }
}
