import Foundation

/// Debug builds trap where work that may block, or that runs user code, reaches the engine
/// thread: the credential file (another process may hold its flock for as long as it likes),
/// the download cache's disk, and callback delivery. One such call stalls every transfer in the
/// process, so a regression should stop the test suite rather than slow it down.
extension Engine {
    /// Any thread but the engine's; `work` names what was about to run there. Nothing in
    /// release builds.
    @inline(__always)
    static func assertNotEngineThread(
        _ work: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        #if DEBUG
        assert(!isEngineThread, "\(work()) on the engine thread", file: file, line: line)
        #endif
    }
}
