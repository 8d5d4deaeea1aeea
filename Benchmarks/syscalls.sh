#!/usr/bin/env bash
# Kernel-side cost per request, for issue 33: system calls (by name) and context switches per
# 1 KiB GET at 16 in flight, for courier-bench and for the raw libcurl client doing the same
# work, against a local nginx, each measured as (X(2N) − X(N)) / N so start-up cancels out.
# Beside them, per operation, courier-bench's `operations` floor: a trivial Operation in a plain
# OperationQueue with the same hops as a request, and the same hops with no OperationQueue.
#
#   Benchmarks/syscalls.sh URL COURIER_BENCH CURL_MULTI [N]
#
# URL serves 1 KiB (Benchmarks/run.sh's nginx, or any loopback server); COURIER_BENCH is a
# release courier-bench; CURL_MULTI is Benchmarks/baselines/curl-multi.c built with gcc -O2.
# Needs strace and perf (software events only: the VM has no hardware counters). Prints a
# Markdown table. Context switches and CPU are medians of three runs.
set -euo pipefail
url="$1" courier="$2" curl_multi="$3" n="${4:-2000}"
export url courier curl_multi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run() { # client count -> runs the client once
    case "$1" in
    courier) "$courier" get "$url" "$2" 16 ;;
    same-work) BENCH_SAME_WORK=1 "$curl_multi" get "$url" "$2" 16 ;;
    # Ten operations for each GET: an operation takes a few microseconds.
    floor) "$courier" operations $((10 * $2)) 16 ;;
    floor-direct) "$courier" operations $((10 * $2)) 16 --direct ;;
    esac
}

for client in courier same-work floor floor-direct; do
    for count in "$n" $((2 * n)); do
        strace -f -c -o "$work/strace.$client.$count" bash -c "$(declare -f run); run $client $count" >/dev/null 2>&1
        for r in 1 2 3; do
            perf stat -x, -e context-switches,task-clock -o "$work/perf.$client.$count.$r" \
                bash -c "$(declare -f run); run $client $count" >/dev/null 2>&1
        done
    done
done

python3 - "$work" "$n" <<'PY'
import statistics, sys
work, n = sys.argv[1], int(sys.argv[2])
def syscalls(client, count):
    calls = {}
    for line in open(f"{work}/strace.{client}.{count}"):
        parts = line.split()
        if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
            calls[parts[-1]] = int(parts[3])
    return calls
def perf(client, count, event):
    values = []
    for r in (1, 2, 3):
        for line in open(f"{work}/perf.{client}.{count}.{r}"):
            fields = line.strip().split(",")
            if len(fields) > 2 and fields[2] == event:
                values.append(float(fields[0]))
    return statistics.median(values)
rows = {}
clients = ("courier", "same-work", "floor", "floor-direct")
for client in clients:
    a, b = syscalls(client, n), syscalls(client, 2 * n)
    scale = 10 * n if client.startswith("floor") else n
    per = {k: (b.get(k, 0) - a.get(k, 0)) / scale for k in set(a) | set(b)}
    rows[client] = {
        "calls": {k: v for k, v in per.items() if v >= 0.05},
        "total": sum(per.values()),
        "switches": (perf(client, 2 * n, "context-switches") - perf(client, n, "context-switches")) / scale,
        "cpu": (perf(client, 2 * n, "task-clock") - perf(client, n, "task-clock")) / scale * 1000,
    }
names = sorted(set().union(*(rows[c]["calls"] for c in clients)), key=lambda k: -rows["courier"]["calls"].get(k, 0))
print("| per 1 KiB GET, 16 in flight (the floor: per operation) | Courier | raw libcurl, same work "
      "| Courier/same work | trivial Operation, OperationQueue | same hops, no OperationQueue |")
print("| --- | --- | --- | --- | --- | --- |")
def ratio(x, y): return f"{x / y:.2f}×" if y else "–"
def row(title, values, digits=2):
    c, s, f, d = values
    print(f"| {title} | {c:.{digits}f} | {s:.{digits}f} | {ratio(c, s)} | {f:.{digits}f} | {d:.{digits}f} |")
row("system calls", [rows[c]["total"] for c in clients])
for name in names:
    row(f"· {name}", [rows[c]["calls"].get(name, 0) for c in clients])
row("context switches", [rows[c]["switches"] for c in clients])
row("CPU (µs, all threads)", [rows[c]["cpu"] for c in clients], 1)
PY
