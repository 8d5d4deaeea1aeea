#!/usr/bin/env bash
# Lists every public or open symbol of the library products Courier and CourierTestServer that has
# no `///` doc comment of its own, as `FILE:LINE: kind name`; exits 1 if there is any (2 if the
# build fails). A count per module goes to standard error.
#
# Usage: scripts/check-doc-comments.sh
# It builds the two targets (debug, warnings as errors, as CI does: after CI's build this is a
# no-op), then reads their public interface with swift-symbolgraph-extract from the built
# modules. The compiler's own `-emit-symbol-graph` would need a second build with other flags,
# writes all of the re-exported Foundation too (40 MB), and (Swift 6.3.1) leaves out inherited
# docs, so it cannot tell `description` from an undocumented method; the extractor takes a few
# seconds and marks inherited docs with the module they come from.
#
# What counts (applied in scripts/check_doc_comments.py):
# - public and open symbols with a source location in Sources/MODULE/. The compiler synthesizes
#   members without one (an enum's rawValue and init(rawValue:), Equatable's ==, Hashable's
#   hash(into:), the SetAlgebra methods an OptionSet gets): they are not the author's to document.
#   Copies of protocol-extension members shown on each conforming type are checked once, where
#   they are declared.
# - Members of extensions of other modules' types count too (the extractor may put them in
#   MODULE@OTHER.symbols.json; every file is read): they are Courier's API. Enum cases are
#   symbols and need docs like any other.
# - A doc comment is the symbol's own when it sits right above the declaration. A symbol that
#   only inherits one passes only when the graph marks the doc as coming from another module (an
#   implementation of Swift's `description` or `==`, Foundation's `errorUserInfo`): that doc
#   says what the member means. Foundation on Linux documents few Operation members, so
#   overrides such as `isFinished` get no inherited doc and need their own. Inheriting from a
#   Courier symbol (a subclass's `init(url:)`, a default implementation of a Courier protocol's
#   requirement, ProgressBar's ProgressDelegate methods) does not pass: there the author knows
#   what differs, and one line says it.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(Courier CourierTestServer)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for module in "${modules[@]}"; do
    if ! swift build --target "$module" -Xswiftc -warnings-as-errors >"$out/build.log" 2>&1; then
        cat "$out/build.log" >&2
        exit 2
    fi
done

bin=$(swift build --show-bin-path)
triple=$(basename "$(dirname "$bin")")
module_maps=()
for map in Sources/*/module.modulemap; do
    module_maps+=(-Xcc "-fmodule-map-file=$map")
done
# libxml2's headers are in a folder of their own, which SwiftPM gets from pkg-config.
for flag in $(pkg-config --cflags libxml-2.0); do module_maps+=(-Xcc "$flag"); done

# Next to the real `swift` (often a symlink into the toolchain), else on PATH.
extract=$(dirname "$(readlink -f "$(command -v swift)")")/swift-symbolgraph-extract
[ -x "$extract" ] || extract=swift-symbolgraph-extract
for module in "${modules[@]}"; do
    mkdir -p "$out/$module"
    "$extract" -module-name "$module" -target "$triple" -I "$bin/Modules" \
        "${module_maps[@]}" -minimum-access-level public -output-dir "$out/$module"
done

python3 scripts/check_doc_comments.py "$PWD" "$out" "${modules[@]}"
