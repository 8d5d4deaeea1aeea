#!/usr/bin/env bash
# Thread hand-offs per request, for issue 33: how often one thread gives work to another
# (dispatches, thread wake-ups, engine wake-ups) and what the hand-offs bring with them (lock
# pairs, allocations, reference counts), per 1 KiB GET at 16 in flight, counted with callgrind's
# call counts as (X(2N) − X(N)) / N so start-up cancels out. Beside Courier: the raw libcurl
# client doing the same work, and courier-bench's `operations` floor (a trivial Operation in a
# plain OperationQueue, and the same hops with no OperationQueue).
#
#   Benchmarks/handoffs.sh URL COURIER_BENCH CURL_MULTI [N]
#
# URL serves 1 KiB (Benchmarks/run.sh's nginx, or any loopback server); COURIER_BENCH is a
# release courier-bench; CURL_MULTI is Benchmarks/baselines/curl-multi.c built with gcc -O2.
# Needs valgrind and swift-demangle (the toolchain's `swift demangle`). Prints a Markdown table.
set -euo pipefail
url="$1" courier="$2" curl_multi="$3" n="${4:-2000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

measure() { # label count command...
    local label="$1" count="$2"
    shift 2
    valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$work/$label.$count.cg" "$@" >/dev/null 2>&1
}
for count in "$n" $((2 * n)); do
    measure courier "$count" "$courier" get "$url" "$count" 16
    BENCH_SAME_WORK=1 measure same-work "$count" "$curl_multi" get "$url" "$count" 16
    measure floor "$count" "$courier" operations $((10 * count)) 16
    measure floor-direct "$count" "$courier" operations $((10 * count)) 16 --direct
done

python3 - "$work" "$n" <<'PY'
import re, subprocess, sys
work, n = sys.argv[1], int(sys.argv[2])

def calls(path):
    """Calls per function name (every caller summed), from a callgrind output file."""
    names, counts, pending = {}, {}, None
    def name(text):
        m = re.match(r'\((\d+)\)(?: (.*))?', text)
        if not m: return text
        if m.group(2): names[m.group(1)] = m.group(2)
        return names.get(m.group(1), text)
    for line in open(path, errors="replace"):
        if line.startswith("fn="): name(line[3:].strip())
        elif line.startswith("cfn="): pending = name(line[4:].strip())
        elif line.startswith("calls="):
            counts[pending] = counts.get(pending, 0) + int(line[6:].split()[0])
    return counts

def demangled(keys):
    keys = list(keys)
    out = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(keys), capture_output=True, text=True).stdout
    return dict(zip(keys, out.splitlines()))

rows = [
    ("dispatches to a queue (`dispatch_async`)", r"^dispatch_async(_f)?$"),
    ("· of them, a thread woken for it (`_dispatch_root_queue_poke_slow`)", r"^_dispatch_root_queue_poke_slow$"),
    ("engine woken (`curl_multi_wakeup`)", r"^curl_multi_wakeup$"),
    ("semaphore and condition signals", r"^(sem_post|pthread_cond_signal|pthread_cond_broadcast)(@.*)?$"),
    # NSLock.lock and NSCondition.lock share one body in corelibs' binary: each NSLock.lock
    # calls into it, so the NSCondition.lock count is every lock taken, once.
    ("corelibs lock pairs (`NSLock`, `NSCondition`)", r"^Foundation\.NSCondition\.lock\(\)"),
    ("Swift `Mutex` locks that had to wait (`_lockSlow`)", r"_MutexHandle\._lockSlow"),
    ("`malloc` calls", r"^malloc$"),
    ("Swift objects allocated", r"^swift_allocObject$"),
    ("`swift_retain`", r"^swift_retain$"),
    ("`swift_release`", r"^swift_release$"),
]
clients = [("courier", "Courier"), ("same-work", "raw libcurl, same work"),
           ("floor", "trivial Operation, OperationQueue"), ("floor-direct", "same hops, no OperationQueue")]
per = {}
for label, _ in clients:
    # The floor runs 10 operations per GET counted, so its figures are per operation.
    scale = n * (10 if label.startswith("floor") else 1)
    a, b = calls(f"{work}/{label}.{n}.cg"), calls(f"{work}/{label}.{2 * n}.cg")
    keys = set(a) | set(b)
    names = demangled(keys)
    per[label] = {}
    for title, pattern in rows:
        regex = re.compile(pattern)
        total = sum(b.get(k, 0) - a.get(k, 0) for k in keys if regex.search(names.get(k, k)) or regex.search(k))
        per[label][title] = total / scale
print("| per request (the floor: per operation) | " + " | ".join(t for _, t in clients) + " |")
print("| --- |" + " --- |" * len(clients))
for title, _ in rows:
    print(f"| {title} | " + " | ".join(f"{per[label][title]:.2f}" for label, _ in clients) + " |")
PY
