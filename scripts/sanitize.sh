#!/usr/bin/env bash
# Builds the package's tests under a sanitizer and runs the chosen test classes; exits non-zero
# when a test fails, the run does not end in time, or the sanitizer reports anything (in the test
# process or in any child it starts: every report goes to a file in one directory).
#
# Usage: scripts/sanitize.sh [thread|address] [--all | TestClass...]
#   thread   ThreadSanitizer, with Courier's locks annotated (-DCOURIER_TSAN, linux.md §8)
#            and scripts/tsan.supp; build path .build-tsan
#   address  AddressSanitizer; build path .build-asan
# With no classes, the concurrency-heavy ones below run. A class is a name in Tests/CourierTests
# ("NetworkQueueTests") or a full filter ("CourierTests.NetworkQueueTests/testThatX").
# --all runs every test target (CourierTests, CourierTestServerTests, CourierCLITests,
# InteropTests), one `swift test` each, and prints each one's time and status.
# COURIER_SANITIZE_TIMEOUT (seconds, default 1500) bounds each test run.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer=${1:-thread}
[ $# -gt 0 ] && shift
case "$sanitizer" in
thread)
    build_path=.build-tsan
    defines=(-Xswiftc -DCOURIER_TSAN)
    ;;
address)
    build_path=.build-asan
    defines=()
    ;;
*)
    echo "usage: $0 [thread|address] [--all | TestClass...]" >&2
    exit 2
    ;;
esac

all=false
if [ "${1:-}" = --all ]; then
    all=true
    shift
fi
classes=("$@")
if [ "$all" = false ] && [ ${#classes[@]} -eq 0 ]; then
    # The tests that drive the engine thread, callback queues and locks from several threads.
    classes=(
        NetworkQueueTests CancelInEveryStateTests CancelTests CallbackTests ConcurrencyTests
        DataDelegateTests DataDelegateBackpressureTests ReachabilityTests RequestStateMachineTests
        AuthenticationDelegateTests CookieTests DelegateSwapTests HandleReuseTests QueueSubclassTests
        MainActorSynchronousTests AccurateProgressTests ProgressTests PACTests TimeoutTests NetworkQueueAsyncTests
        CourierCLITests.WaitingStylesTests CancelStormTests InteropTests.CancelledTransferInteropTests
        InteropTests.WebPageFetchingInteropTests
    )
fi
filters=()
for class in "${classes[@]}"; do
    case "$class" in
    *.*) filters+=(--filter "$class") ;;
    *) filters+=(--filter "CourierTests\\.$class/") ;;
    esac
done

# Tests that hold a peak-RSS budget measured without a sanitizer: TSan's shadow memory and both
# sanitizers' allocators add tens of MiB to every process, so the budget says nothing here
# (DataDelegateTests' slow consumer peaks at ~86 MiB under TSan against its 64 MiB limit; the
# decompression bomb grows by ~80 MiB under ASan, whose quarantine keeps freed blocks; the
# courier CLI streaming 2 GiB and 1 GiB to nginx peaked at 82 and 84 MiB under TSan, 76 and 76
# under ASan, limit 64).
# And one that assumes a speed: ReachabilityTests' held-requests test expects request 2 to start
# before request 1's refused connection comes back, but once request 1 is held the queue starts
# nothing more (NetworkQueue+Scheduling: `!state.isHeldForReachability`), and a sanitized process
# on a loaded machine is often slower than that (seen under TSan and ASan, with no report).
# courier-bench's queued mode holding 300 requests: 7,604 KiB under TSan against the test's bound
# of 4,800 (16 KiB a request), its memory being TSan's shadow more than the requests'.
# And the soak, whose flat-memory bound is for an uninstrumented child: TSan's shadow and history
# and ASan's quarantine grow with the work done (and with COURIER_SOAK=1 it is ten minutes). The
# load tests that prove no lost callback or leaked handle still run.
skips=(
    --skip 'CourierTests\.DataDelegateTests/testThatASlowConsumerPausesTheTransferInsteadOfBuffering'
    --skip 'CourierTests\.LoadSoakTests/'
    --skip 'CourierCLITests\.CourierBenchTests/testThatQueuedRunsEveryRequestAfterReportingWhatTheQueueHeld'
    --skip 'CourierTests\.HostileInputTests/testThatADecompressionBombStopsAtTheBoundInEveryModeWithFlatMemory'
    --skip 'CourierTests\.ReachabilityTests/testThatHeldRequestsRunAgainWhenTheHostComesBack'
    --skip 'InteropTests\.BodiesAndCompressionInteropTests/testThatATwoGiBSparseFileStreamsToNginxWithFlatMemory'
    --skip 'InteropTests\.FormInteropTests/testThatAOneGiBFileFormStreamsToNginxWithFlatMemoryAndExactProgress'
)

started=$(date +%s)
swift build --build-tests --sanitize="$sanitizer" --build-path "$build_path" "${defines[@]}"
built=$(date +%s)

reports=$(mktemp -d "${TMPDIR:-/tmp}/courier-$sanitizer-XXXXXX")
# Children (the test bundle re-run as a child, the courier CLI) inherit all of this: the
# backtracer off (a crashed child's swift-backtrace once held its pipe and hung the run), and
# their reports in the same directory as the runner's.
export COURIER_SANITIZER="$sanitizer"
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp log_path=$reports/report second_deadlock_stack=1"
# No LeakSanitizer: at exit it reports XCTest's own test cases, suite runs and expectation
# side tables as leaked (~10 kB over NetworkQueueTests, every stack in XCTest), none of Courier.
export ASAN_OPTIONS="log_path=$reports/report detect_leaks=0"

# Runs `swift test` with the given filters; its status in run_status.
run_tests() {
    run_status=0
    timeout --kill-after=30 "${COURIER_SANITIZE_TIMEOUT:-1500}" \
        swift test --skip-build --sanitize="$sanitizer" --build-path "$build_path" "${defines[@]}" \
            "$@" "${skips[@]}" ||
        run_status=$?
}

status=0
if [ "$all" = true ]; then
    # One run per target: a hang or crash in one still lets the others run, and each gets a time.
    summary=()
    for target in CourierTests CourierTestServerTests CourierCLITests InteropTests; do
        target_started=$(date +%s)
        run_tests --filter "^$target\\."
        summary+=("$target: $(($(date +%s) - target_started)) s, status $run_status")
        [ "$run_status" -eq 0 ] || status=$run_status
    done
    printf "sanitize.sh $sanitizer --all: %s\n" "${summary[@]}" >&2
else
    run_tests "${filters[@]}"
    status=$run_status
fi
finished=$(date +%s)

found=0
for report in "$reports"/report*; do
    [ -e "$report" ] || continue
    found=$((found + 1))
    echo "==== $report" >&2
    cat "$report" >&2
done
echo "sanitize.sh $sanitizer: build $((built - started)) s, tests $((finished - built)) s," \
    "test status $status, $found report file(s) in $reports" >&2
if [ "$found" -gt 0 ]; then
    exit 1
fi
rm -rf "$reports"
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "sanitize.sh: the tests did not finish within ${COURIER_SANITIZE_TIMEOUT:-1500} s" >&2
fi
exit "$status"
