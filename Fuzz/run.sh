#!/usr/bin/env bash
# Builds the fuzz targets and runs each for a bounded time.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]     (default: 60 seconds, every target)
#   FUZZ_SEED=N Fuzz/run.sh ...            (the same random sequence every run)
#
# Each target starts from its seed corpus, Fuzz/Corpus/<Name>/ (read, never written: new
# inputs go to a temporary directory), with Fuzz/Dictionaries/<Name>.dict when there is one.
# It prints each target's executions (libFuzzer's stat::number_of_executed_units) and exits
# non-zero when a target crashed, failed a check or leaked, printing the reproducer's path.
# Reproduce one with: .build/fuzz/bin/<Name> <reproducer>
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    for file in "$root"/Fuzz/Targets/*.swift; do targets+=("$(basename "$file" .swift)"); done
fi

"$root/Fuzz/build.sh" "${targets[@]}"

work="$(mktemp -d "${TMPDIR:-/tmp}/courier-fuzz.XXXXXX")"
echo "new corpus entries, logs and reproducers go to $work" >&2
export LSAN_OPTIONS="suppressions=$root/Fuzz/lsan.supp:print_suppressions=0"
# Swift's backtracer reads the crashed process's memory, which ASan reports as a second error.
export SWIFT_BACKTRACE=enable=no
failed=0
printf '%-20s %8s %12s %s\n' target seconds executions result
for name in "${targets[@]}"; do
    mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
    options=(-max_total_time="$seconds" -print_final_stats=1 -max_len=4096 -timeout=10 -rss_limit_mb=2048
             -artifact_prefix="$work/$name/artifacts/")
    # FUZZ_SEED fixes libFuzzer's random sequence, so a run of the same commit takes the same
    # path each time (CI: a red run means the commit, not the draw). Unset: a new seed each run.
    [[ -n "${FUZZ_SEED:-}" ]] && options+=(-seed="$FUZZ_SEED")
    dictionary="$root/Fuzz/Dictionaries/$name.dict"
    [[ -f "$dictionary" ]] && options+=(-dict="$dictionary")
    seeds=()
    [[ -d "$root/Fuzz/Corpus/$name" ]] && seeds=("$root/Fuzz/Corpus/$name")
    status=0
    # The first corpus directory is where libFuzzer writes new inputs: the temporary one.
    (cd "$work/$name" && "$root/.build/fuzz/bin/$name" "${options[@]}" corpus "${seeds[@]}") \
        > "$work/$name/log" 2>&1 || status=$?
    executions=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$name/log" | tail -1 | grep -o '[0-9]*$' || echo "?")
    if [[ $status -eq 0 ]]; then
        printf '%-20s %8s %12s %s\n' "$name" "$seconds" "$executions" ok
    else
        failed=1
        reproducer=$(ls "$work/$name/artifacts/"* 2>/dev/null | head -1 || true)
        printf '%-20s %8s %12s %s\n' "$name" "$seconds" "$executions" "FAILED (exit $status)"
        { grep -E 'fuzz check failed|ERROR: |Fatal error|SUMMARY' "$work/$name/log" || true; } | head -5 | sed 's/^/    /'
        echo "    reproducer: ${reproducer:-none}; log: $work/$name/log"
    fi
done
exit $failed
