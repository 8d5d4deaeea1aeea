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
       -I Sources/CCurl -I Sources/CZlib -I Sources/CDuktape -I Sources/CCrypto -I Sources/CLibXML2)
# libxml2's headers are in a folder of their own (SwiftPM asks pkg-config; so does this).
for flag in $(pkg-config --cflags libxml-2.0); do flags+=(-Xcc "$flag"); done

# Courier imports CourierThreadSanitizer (its TSan-visible locks, empty helpers without
# -DCOURIER_TSAN): that small module is built first, into the same library folder.
tsan_sources=(Sources/CourierThreadSanitizer/*.swift)
tsan_library="$out/lib/libCourierThreadSanitizer.a"
sources=(Sources/Courier/**/*.swift)
library="$out/lib/libCourier.a"
# Whether any of the files after the first is newer than it (or it is missing). A loop, not
# `ls -t | head -1`: under pipefail that pipe fails when head closes it early (SIGPIPE).
stale() {
    local built="$1"
    shift
    [[ -f "$built" ]] || return 0
    local file
    for file in "$@"; do [[ "$file" -nt "$built" ]] && return 0; done
    return 1
}
if stale "$tsan_library" "${tsan_sources[@]}"; then
    echo "building CourierThreadSanitizer for fuzzing..." >&2
    swiftc "${flags[@]}" -module-name CourierThreadSanitizer -package-name courier -wmo \
        -emit-module -emit-module-path "$out/lib/CourierThreadSanitizer.swiftmodule" \
        -emit-library -static -o "$tsan_library" "${tsan_sources[@]}"
fi
if stale "$library" "${sources[@]}" "$tsan_library"; then
    echo "building Courier for fuzzing (${#sources[@]} files)..." >&2
    swiftc "${flags[@]}" -module-name Courier -package-name courier -enable-testing -wmo -I "$out/lib" \
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
        "$library" "$tsan_library" -lcurl -lz -lduktape -lcrypto -lxml2 -o "$out/bin/$name" 2>&1 |
        # gold's notes about ASan's local helper symbols say nothing about the target.
        { grep -v "Cannot export local symbol '__asan_" || true; } >&2
done
