#!/usr/bin/env bash
# What AWS Signature Version 4 costs per request (issue 34): `courier-bench sign`, a typical
# S3 GET signed (`sign`) and presigned (`presign`), no network. Prints nanoseconds per call
# (the median of 3 runs of 10×N calls each) and instructions per call, counted with callgrind as
# (I(2N) − I(N)) / N so start-up cancels out, as Benchmarks/run.sh counts a GET's.
#
#   Benchmarks/signing.sh COURIER_BENCH [N]
#
# COURIER_BENCH is a release courier-bench (`swift build -c release --product courier-bench`,
# then `.build/release/courier-bench`); N defaults to 2000. Needs valgrind. Prints a Markdown table.
set -euo pipefail
bench="$1" n="${2:-2000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for run in 1 2 3; do "$bench" sign $((10 * n)) >"$work/time.$run"; done

instructions() { # part count
    valgrind --tool=callgrind --callgrind-out-file="$work/$1.$2.cg" "$bench" sign "$2" "--$1-only" >/dev/null 2>&1
    awk '/^(summary|totals):/ { print $2; exit }' "$work/$1.$2.cg"
}
declare -A per_call
for part in sign presign; do
    one="$(instructions "$part" "$n")"
    two="$(instructions "$part" $((2 * n)))"
    per_call[$part]=$(((two - one) / n))
done

median() { sort -n | sed -n 2p; }
sign_ns="$(sed 's/.* sign_ns=\([0-9]*\).*/\1/' "$work"/time.* | median)"
presign_ns="$(sed 's/.* presign_ns=\([0-9]*\).*/\1/' "$work"/time.* | median)"
echo "| per call | sign | presign |"
echo "| --- | --- | --- |"
echo "| ns (median of 3 runs of $((10 * n))) | $sign_ns | $presign_ns |"
echo "| instructions (callgrind, ×$n and ×$((2 * n))) | ${per_call[sign]} | ${per_call[presign]} |"
