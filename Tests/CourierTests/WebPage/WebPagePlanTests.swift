import Foundation
import XCTest

@testable import Courier

/// Which resources a page's tree fetches, and when the page is ready (WebPagePlan): each URL
/// once, bounded by depth and count, cycles ended, failures by the flag. No sockets.
final class WebPagePlanTests: XCTestCase {
    private let page = URL(string: "http://site.example/index.html")!

    private func plan(maxDepth: Int = 4, maxResources: Int = 500, ignoring: Bool = true) -> WebPagePlan {
        WebPagePlan(pageURL: page, maxDepth: maxDepth, maxResources: maxResources, ignoresResourceErrors: ignoring)
    }

    private func refs(_ paths: String..., kind: WebPageReference.Kind = .image) -> [(url: URL, kind: WebPageReference.Kind)] {
        paths.map { (url: URL(string: $0, relativeTo: page)!.absoluteURL, kind: kind) }
    }

    private func isAssemble(_ step: WebPagePlan.Step) -> Bool { if case .assemble = step { true } else { false } }
    private func isWait(_ step: WebPagePlan.Step) -> Bool { if case .wait = step { true } else { false } }

    func testThatEachURLIsFetchedOnceWhateverItsFragmentAndThePageItselfNever() {
        var plan = plan()
        let added = plan.found(refs("a.png", "a.png#x", "b.png", "index.html", "index.html#top", "a.png"), atDepth: 0)
        XCTAssertEqual(added.map { plan.resources[$0].url.absoluteString }, [
            "http://site.example/a.png", "http://site.example/b.png",
        ])
        XCTAssertEqual(plan.index(of: URL(string: "http://site.example/a.png#other")!), 0)
        XCTAssertNil(plan.index(of: page))
    }

    func testThatOnlyHTTPAndHTTPSURLsAreFetched() {
        var plan = plan()
        let added = plan.found(
            refs("file:///etc/passwd", "javascript:alert(1)", "ftp://site.example/x", "https://cdn.example/y.png", "mailto:a@b"),
            atDepth: 0)
        XCTAssertEqual(added.map { plan.resources[$0].url.absoluteString }, ["https://cdn.example/y.png"])
    }

    func testThatAStylesheetImportingItselfOrItsImporterAddsNothing() {
        var plan = plan()
        let sheets = plan.found(refs("a.css", "b.css", kind: .stylesheet), atDepth: 0)
        XCTAssertEqual(sheets, [0, 1])
        XCTAssertEqual(plan.found(refs("a.css", "b.css", kind: .stylesheet), atDepth: 1), [])
        XCTAssertTrue(isWait(plan.ended(0, .fetched)))
        XCTAssertTrue(isAssemble(plan.ended(1, .fetched)))
    }

    func testThatNothingDeeperThanMaxDepthIsFetched() {
        var plan = plan(maxDepth: 2)
        XCTAssertEqual(plan.found(refs("a.css", kind: .stylesheet), atDepth: 0), [0])
        XCTAssertEqual(plan.resources[0].depth, 1)
        XCTAssertEqual(plan.found(refs("b.css", kind: .stylesheet), atDepth: 1), [1])
        XCTAssertEqual(plan.resources[1].depth, 2)
        XCTAssertEqual(plan.found(refs("deep.png"), atDepth: 2), [], "depth 3 is past maxDepth 2")
        var shallow = self.plan(maxDepth: 0)
        XCTAssertEqual(shallow.found(refs("a.png"), atDepth: 0).count, 0)
    }

    func testThatTenThousandReferencesFetchOnlyMaxResourcesAndThePageEnds() {
        var plan = plan(maxResources: 500)
        let many = (0..<10_000).map { (url: URL(string: "http://site.example/\($0).png")!, kind: WebPageReference.Kind.image) }
        let added = plan.found(many, atDepth: 0)
        XCTAssertEqual(added.count, 500)
        XCTAssertEqual(plan.found(refs("more.png"), atDepth: 0), [], "the bound holds for the whole tree")
        for index in added.dropLast() { XCTAssertTrue(isWait(plan.ended(index, .fetched))) }
        XCTAssertTrue(isAssemble(plan.ended(added.last!, .fetched)))
        XCTAssertEqual(plan.endedCount, 500)
    }

    func testThatAPageWithoutResourcesIsReadyAtOnceAndOnlyOnce() {
        var plan = plan()
        XCTAssertEqual(plan.found([], atDepth: 0), [])
        XCTAssertTrue(isAssemble(plan.pageRead()))
        XCTAssertTrue(isWait(plan.pageRead()))
    }

    func testThatTheLastResourceEndingBeforeThePageIsReadStillAssemblesOnce() {
        var plan = plan()
        _ = plan.found(refs("a.png"), atDepth: 0)
        XCTAssertTrue(isAssemble(plan.ended(0, .fetched)))
        XCTAssertTrue(isWait(plan.pageRead()))
    }

    func testThatAnIgnoredFailureLetsThePageFinishAndIsRemembered() {
        var plan = plan(ignoring: true)
        _ = plan.found(refs("a.png", "b.png"), atDepth: 0)
        let error = HTTPRequestError(type: .connectionFailure, message: "gone", url: nil)
        XCTAssertTrue(isWait(plan.ended(0, .failed(error))))
        XCTAssertTrue(isAssemble(plan.ended(1, .fetched)))
        guard case .failed = plan.resources[0].outcome else { return XCTFail("the failure is kept") }
    }

    func testThatAFailureNotIgnoredCancelsTheRestThenFailsThePageOnceTheyEnded() {
        var plan = plan(ignoring: false)
        _ = plan.found(refs("a.png", "b.png", "c.png"), atDepth: 0)
        let error = HTTPRequestError(type: .connectionFailure, message: "gone", url: nil)
        let cancelled = HTTPRequestError(type: .requestCancelled, message: "cancelled", url: nil)
        guard case .cancelRest = plan.ended(0, .failed(error)) else { return XCTFail("the rest are cancelled") }
        XCTAssertEqual(plan.found(refs("d.png"), atDepth: 1), [], "nothing more is fetched")
        XCTAssertTrue(isWait(plan.ended(1, .failed(cancelled))), "the page's failure waits for every resource")
        guard case .fail(let failure) = plan.ended(2, .fetched) else { return XCTFail("the page fails") }
        XCTAssertEqual(failure.message, "gone", "with the first failure, not the cancellations")
        XCTAssertTrue(isWait(plan.pageRead()))
    }

    func testThatAFailureNotIgnoredOfTheOnlyResourceFailsThePageAtOnce() {
        var plan = plan(ignoring: false)
        _ = plan.found(refs("a.png"), atDepth: 0)
        guard case .fail = plan.ended(0, .failed(HTTPRequestError(type: .connectionFailure, message: "gone", url: nil)))
        else { return XCTFail("the page fails") }
    }

    func testThatACancelledPlanNeitherAssemblesNorFetches() {
        var plan = plan()
        _ = plan.found(refs("a.png"), atDepth: 0)
        plan.conclude()
        XCTAssertTrue(isWait(plan.ended(0, .fetched)))
        XCTAssertEqual(plan.found(refs("b.png"), atDepth: 0), [])
    }

    func testThatAResourceEndsOnlyOnce() {
        var plan = plan()
        _ = plan.found(refs("a.png", "b.png"), atDepth: 0)
        XCTAssertTrue(isWait(plan.ended(0, .fetched)))
        XCTAssertTrue(isWait(plan.ended(0, .fetched)), "a second end of the same resource does not count")
        XCTAssertTrue(isWait(plan.ended(7, .fetched)), "nor an index the plan never gave")
        XCTAssertTrue(isAssemble(plan.ended(1, .fetched)))
    }
}
