import Foundation
import XCTest

@testable import Courier

#if canImport(Glibc)
import Glibc
#endif

/// The terminal dialog driven under a real pseudo-terminal: the test types on the master side
/// what a user would type, and reads back what the user would see.
final class TerminalAuthenticationDialogTests: XCTestCase {
    private let plainPrompt = AuthenticationPrompt(
        host: "example.test", port: 8080, realm: "Staff only", sendsPasswordInClear: true)

    func testThatTheDialogAsksForUserAndPasswordAndNeverEchoesThePassword() throws {
        let terminal = try Terminal()
        let answer = try terminal.run(plainPrompt, typing: [("User name: ", "alice\n"), ("Password: ", "s3cret\n")])
        XCTAssertEqual(answer, StoredCredential(user: "alice", password: "s3cret"))
        let screen = terminal.screen
        XCTAssertTrue(screen.contains("Login to this server: example.test:8080"), screen)
        XCTAssertTrue(screen.contains("Realm: \"Staff only\""), screen)
        XCTAssertTrue(screen.contains("the password will be sent in the clear"), screen)
        XCTAssertTrue(screen.contains("alice"), "the user name is echoed as usual:\n\(screen)")
        XCTAssertFalse(screen.contains("s3cret"), "the password is not echoed:\n\(screen)")
        XCTAssertTrue(terminal.echoIsOn, "echo is back on afterwards")
    }

    func testThatNTLMAsksForTheDomainAndAProxySaysSoAndTLSIsSaidToBeSecure() throws {
        let terminal = try Terminal()
        let prompt = AuthenticationPrompt(
            host: "proxy.test", port: 3128, realm: nil, isProxy: true, asksForDomain: true, sendsPasswordInClear: false)
        let answer = try terminal.run(
            prompt, typing: [("User name: ", "bob\n"), ("Domain: ", "CORP\n"), ("Password: ", "pa ss\n")])
        XCTAssertEqual(answer, StoredCredential(user: "bob", password: "pa ss", domain: "CORP"))
        let screen = terminal.screen
        XCTAssertTrue(screen.contains("Login to this proxy server: proxy.test:3128"), screen)
        XCTAssertTrue(screen.contains("The password will be sent securely."), screen)
        XCTAssertFalse(screen.contains("Realm"), screen)
        XCTAssertFalse(screen.contains("pa ss"), screen)
        XCTAssertTrue(terminal.echoIsOn)
    }

    func testThatOnlyBasicWithoutTLSIsSaidToTravelInClearAndARealmCannotDriveTheTerminal() throws {
        let http = try XCTUnwrap(ProtectionSpace(url: URL(string: "http://a.test/")!, realm: "R\u{1B}[2J"))
        let https = try XCTUnwrap(ProtectionSpace(url: URL(string: "https://a.test/")!, realm: "R"))
        XCTAssertTrue(AuthenticationPrompt(server: http, method: .basic).sendsPasswordInClear)
        XCTAssertFalse(AuthenticationPrompt(server: https, method: .basic).sendsPasswordInClear)
        XCTAssertFalse(AuthenticationPrompt(server: http, method: .digest).sendsPasswordInClear)
        XCTAssertTrue(AuthenticationPrompt(server: http, method: .ntlm).asksForDomain)
        let introduction = AuthenticationPrompt(server: http, method: .basic).introduction
        XCTAssertTrue(introduction.contains("Login to this server: a.test:80"), introduction)
        XCTAssertFalse(introduction.contains("\u{1B}"), "no escape sequence from the server reaches the terminal")
    }

    func testThatAnEmptyUserNameCancels() throws {
        let terminal = try Terminal()
        XCTAssertNil(try terminal.run(plainPrompt, typing: [("User name: ", "\n")]))
        XCTAssertFalse(terminal.screen.contains("Password: "), "no password is asked for")
    }

    func testThatEndOfInputAtThePasswordCancelsAndEchoComesBack() throws {
        let terminal = try Terminal()
        // Ctrl-D (VEOF) on an empty line: read(2) returns 0 with echo off.
        let answer = try terminal.run(plainPrompt, typing: [("User name: ", "alice\n"), ("Password: ", "\u{04}")])
        XCTAssertNil(answer)
        XCTAssertTrue(terminal.echoIsOn, "echo is restored when the password read ends without one")
    }

    func testThatNoTerminalMeansNilAtOnce() throws {
        let started = Date()
        var pipeEnds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        defer { pipeEnds.forEach { close($0) } }
        // A pipe that would block a read forever: the dialog must not even try.
        XCTAssertNil(TerminalAuthenticationDialog(input: pipeEnds[0], output: pipeEnds[1]).ask(plainPrompt))
        XCTAssertNil(TerminalAuthenticationDialog.ask(plainPrompt, terminalPath: "/nonexistent/tty"))
        XCTAssertNil(TerminalAuthenticationDialog.ask(plainPrompt, terminalPath: "/dev/null"), "not a terminal")
        let delivered = expectation(description: "answer delivered")
        TerminalAuthenticationDialog.present(plainPrompt, terminalPath: "/nonexistent/tty", on: .global()) {
            XCTAssertNil($0)
            delivered.fulfill()
        }
        wait(for: [delivered], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "no terminal, no waiting")
    }

    func testThatPresentAsksOffTheCallingThreadAndAnswersOnTheQueue() throws {
        let terminal = try Terminal()
        let queue = DispatchQueue(label: "dialog answers")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let delivered = expectation(description: "answer delivered")
        let result = Locked<StoredCredential?>(nil)
        let dialog = TerminalAuthenticationDialog(input: terminal.slave, output: terminal.slave)
        let started = Date()
        dialog.present(plainPrompt, on: queue) { answer in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), true, "the answer arrives on the queue given")
            result.withLock { $0 = answer }
            delivered.fulfill()
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5, "present returns before the user answers")
        try terminal.type([("User name: ", "carol\n"), ("Password: ", "x\n")])
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(result.current?.user, "carol")
    }
}
