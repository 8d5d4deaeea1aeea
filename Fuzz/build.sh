#!/usr/bin/env bash
# Builds the libFuzzer targets: Courier once as a static library instrumented for libFuzzer and
# AddressSanitizer (-enable-testing, so the targets reach its internal parsers), then one
# executable per Fuzz/Targets/<Name>.swift. Nothing here is part of Package.swift: SwiftPM
# builds only the targets it declares, so `swift build` never sees these files.
#
#   Fuzz/build.sh [TARGET...]     (default: every target)
#   FUZZ_BUILD=/some/dir          where the build goes (default: .build/fuzz)
set -euo pipefail
shopt -s globstar nullglob

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${FUZZ_BUILD:-$root/.build/fuzz}"
mkdir -p "$out/lib" "$out/bin"
cd "$root"

# -Onone -g: the reports then point at source lines; libFuzzer's coverage and ASan work the
# same. -package-name: CredentialMask is `package` (the CLI shares it).
flags=(-sanitize=fuzzer,address -Onone -g -parse-as-library -swift-version 6
       -I Sources/CCurl -I Sources/CZlib -I Sources/CDuktape)

sources=(Sources/Courier/**/*.swift)
library="$out/lib/libCourier.a"
newest_source=$(ls -t "${sources[@]}" | head -1)
if [[ ! -f "$library" || "$newest_source" -nt "$library" ]]; then
    echo "building Courier for fuzzing (${#sources[@]} files)..." >&2
    swiftc "${flags[@]}" -module-name Courier -package-name courier -enable-testing -wmo \
        -emit-module -emit-module-path "$out/lib/Courier.swiftmodule" \
        -emit-library -static -o "$library" "${sources[@]}"
fi

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    for file in Fuzz/Targets/*.swift; do targets+=("$(basename "$file" .swift)"); done
fi

for name in "${targets[@]}"; do
    target="Fuzz/Targets/$name.swift"
    [[ -f "$target" ]] || { echo "no such target: $name" >&2; exit 2; }
    extra=()
    # The CLI's Content-Disposition reading is compiled in whole (the CLI is no library).
    if [[ "$name" == ContentDisposition ]]; then
        extra=(Sources/courier/Get/ContentDispositionName.swift Sources/courier/Get/OutputFileNamer.swift)
    fi
    echo "building fuzz target $name..." >&2
    swiftc "${flags[@]}" -module-name "Fuzz$name" -I "$out/lib" \
        "$target" Fuzz/Support/*.swift "${extra[@]}" \
        "$library" -lcurl -lz -lduktape -o "$out/bin/$name" 2>&1 |
        # gold's notes about ASan's local helper symbols say nothing about the target.
        { grep -v "Cannot export local symbol '__asan_" || true; } >&2
done
