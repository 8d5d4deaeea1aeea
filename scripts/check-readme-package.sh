#!/usr/bin/env bash
# Builds and runs the package the README's "Using Courier in your package" section describes,
# from its words alone: its Package.swift block and its main.swift block, in a temporary folder
# beside a `courier` link to this checkout (the README's `.package(path: "../courier")`). Fails
# when the package does not build, or its program does not print what the README shows.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$root/README.md" "$work" <<'PY'
import os, re, sys
readme, work = sys.argv[1], sys.argv[2]
text = open(readme, encoding="utf-8").read()
section = text.split("## Using Courier in your package", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"```(\w*)\n(.*?)```", section, re.S)
swift = [code for kind, code in blocks if kind == "swift"]
expected = [code for kind, code in blocks if kind == "text"]
manifest = next(code for code in swift if code.startswith("// swift-tools-version"))
program = next(code for code in swift if not code.startswith("// swift-tools-version"))
package = os.path.join(work, "hello")
os.makedirs(os.path.join(package, "Sources", "Hello"))
open(os.path.join(package, "Package.swift"), "w").write(manifest)
open(os.path.join(package, "Sources", "Hello", "main.swift"), "w").write(program)
open(os.path.join(work, "expected"), "w").write(expected[0])
PY

ln -s "$root" "$work/courier"
cd "$work/hello"
swift build -Xswiftc -warnings-as-errors 2>&1 | tail -n 3
output="$(timeout 60 swift run --skip-build Hello)"
if [ "$output" != "$(cat "$work/expected")" ]; then
    echo "check-readme-package: the README's program printed:" >&2
    echo "$output" >&2
    echo "instead of:" >&2
    cat "$work/expected" >&2
    exit 1
fi
echo "check-readme-package: the README's package builds against this checkout and prints what it shows"
