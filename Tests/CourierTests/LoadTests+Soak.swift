import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// Mixed requests in a child process (`courier-bench soak`), whose resident memory and open
/// descriptors must stay flat. The child is its own process so that its memory is Courier's
/// alone, not the test runner's or the fixture server's.
///
/// `swift test` soaks for 30 s (~20,000 requests on two cores): enough to catch a leaked
/// descriptor, or a leak of a few hundred bytes a request (a request, a handle, a buffer).
/// `COURIER_SOAK=1` soaks for ten minutes, as CI does in a step of its own: a leak of tens of
/// bytes a request shows only over that many requests (~70 B did once, issue 21).
final class LoadSoakTests: XCTestCase {
    /// A soak line: `soak t=… requests=… errors=… rss_kib=… fds=…`.
    private struct Sample {
        let seconds: Double
        let requests: Int
        let residentKiB: Int
        let descriptors: Int

        init?(_ line: String) {
            guard line.hasPrefix("soak t=") else { return nil }
            var fields: [String: String] = [:]
            for pair in line.split(separator: " ").dropFirst() {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            guard let seconds = fields["t"].flatMap(Double.init), let requests = fields["requests"].flatMap(Int.init),
                let resident = fields["rss_kib"].flatMap(Int.init), let descriptors = fields["fds"].flatMap(Int.init)
            else { return nil }
            self.seconds = seconds
            self.requests = requests
            residentKiB = resident
            self.descriptors = descriptors
        }
    }

    /// 30 s, or 600 with `COURIER_SOAK=1`; `COURIER_SOAK_SECONDS` sets any other length by hand.
    private static var seconds: Int {
        let environment = ProcessInfo.processInfo.environment
        if let seconds = environment["COURIER_SOAK_SECONDS"].flatMap(Int.init) { return seconds }
        return environment["COURIER_SOAK"] == "1" ? 600 : 30
    }

    /// The mix: Basic and Digest authentication (credentials in the URL), a redirect that sets a
    /// cookie and lands on a page that gets it back, gzip, a cacheable page (hits after the
    /// first), a plain body.
    private func mix() -> [String] {
        func withCredentials(_ route: Route) -> String {
            var components = URLComponents(url: Fixture.url(route), resolvingAgainstBaseURL: false)!
            components.user = "soak"
            components.password = "secret"
            return components.url!.absoluteString
        }
        return [
            withCredentials(.basicAuth(user: "soak", password: "secret")),
            withCredentials(.digestAuth(user: "soak", password: "secret")),
            Fixture.url(.redirect(302, to: Route.echo.path, setCookie: "soak=1")).absoluteString,
            Fixture.url(.gzipped(32 * 1024)).absoluteString,
            Fixture.url(.cacheable(version: "soak", maxAge: 3600)).absoluteString,
            Fixture.url(.bytes(16 * 1024)).absoluteString,
        ]
    }

    func testThatASoakOfMixedRequestsKeepsMemoryAndDescriptorsFlat() throws {
        try skipIfQuickRun()
        let seconds = Self.seconds
        let cache = try makeTemporaryDirectory("courier-soak-cache")
        let started = Date()
        let run = try CourierBinary.run(
            ["soak", "\(seconds)", cache.path] + mix(),
            CourierBinary.Launch(timeout: TimeInterval(seconds) + 120), executable: "courier-bench")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.outputLines.contains { $0.hasPrefix("ok soak ") }, run.transcript)
        let samples = run.outputLines.compactMap(Sample.init)
        // The end of the first minute (or of the first third of a shorter run): connections,
        // caches and allocator arenas have settled by then. On two cores RSS rose ~6 MiB in the
        // first 10 s, 1.5 MiB more by 30 s, and stayed within 100 KiB from 55 s to 90 s.
        let settle = min(60, Double(seconds) / 3)
        guard let first = samples.first(where: { $0.seconds >= settle }), let last = samples.last,
            last.seconds > first.seconds
        else { return XCTFail("too few samples: \(run.transcript)") }
        let peak = samples.map(\.residentKiB).max() ?? 0
        let growth = last.residentKiB - first.residentKiB
        // One sample a minute of a long run, every one (5 s apart) of a short one, for the log
        // and the failure message.
        let curve = stride(from: 0, to: samples.count, by: seconds >= 120 ? 12 : 1).map {
            "\(Int(samples[$0].seconds))s=\(samples[$0].residentKiB)"
        }
        print(
            "load: soak \(seconds) s requests=\(last.requests) concurrency=\(Soak.inFlight) "
                + "rss(t=\(Int(first.seconds)))=\(first.residentKiB)KiB rss(end)=\(last.residentKiB)KiB "
                + "peakRSS=\(peak)KiB fds=\(first.descriptors)->\(last.descriptors) "
                + String(format: "time=%.1fs ", Date().timeIntervalSince(started))
                + "KiB over time: \(curve.joined(separator: " "))")
        XCTAssertLessThan(
            growth, max(first.residentKiB / 10, 4096),
            "RSS from \(first.residentKiB) KiB at \(first.seconds) s to \(last.residentKiB) KiB at the end; "
                + "KiB over time: \(curve.joined(separator: " "))")
        XCTAssertEqual(last.descriptors, first.descriptors, "open descriptors at the end as after the first minute")
        XCTAssertGreaterThan(last.requests, seconds * 10, "the soak kept requests going")
    }
}

/// The child's numbers the test needs (its own copy: the soak is an executable, not a module).
private enum Soak {
    static let inFlight = 8
}
