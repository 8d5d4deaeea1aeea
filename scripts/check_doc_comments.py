"""Reads symbol graphs and prints the public symbols without a doc comment of their own.

Usage: python3 scripts/check_doc_comments.py PACKAGE_DIR GRAPH_DIR MODULE...
GRAPH_DIR/MODULE/ holds MODULE.symbols.json and MODULE@OTHER.symbols.json (members of extensions
of OTHER's types), as swift-symbolgraph-extract writes them. The rules are explained in
scripts/check-doc-comments.sh. Prints `FILE:LINE: kind name` per symbol; exits 1 if any.
"""

import glob
import json
import os
import sys
from urllib.parse import unquote, urlparse


def path_of(uri):
    return unquote(urlparse(uri).path)


def has_text(doc):
    return any(line.get("text", "").strip() for line in doc.get("lines", []))


def located_symbols(graph_dir, module, sources):
    """The symbols declared in the module's own sources, with (path, 0-based line)."""
    found = []
    for file in sorted(glob.glob(os.path.join(graph_dir, module, f"{module}*.symbols.json"))):
        with open(file) as f:
            graph = json.load(f)
        for symbol in graph["symbols"]:
            # A member copied onto a conforming type from a protocol extension: the original is
            # checked where it is declared.
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            location = symbol.get("location")
            if not location:
                continue  # synthesized by the compiler
            path = path_of(location["uri"])
            if not path.startswith(sources):
                continue
            found.append((symbol, path, location["position"]["line"]))
    return found


def undocumented(symbols, module):
    """(path, line, kind, name, why) for each symbol lacking a doc of its own."""
    lines_by_path = {}
    for _, path, line in symbols:
        lines_by_path.setdefault(path, set()).add(line)
    missing = []
    for symbol, path, line in symbols:
        doc = symbol.get("docComment")
        why = None
        if not doc or not has_text(doc):
            why = ""
        else:
            own = False
            if doc.get("uri") and path_of(doc["uri"]) == path and doc.get("lines"):
                end = doc["lines"][-1]["range"]["end"]["line"]
                # Right above the declaration: no other declaration of this file in between
                # (attributes may be); a doc further up belongs to that other declaration.
                between = [other for other in lines_by_path[path] if end < other < line]
                own = end < line and not between
            if not own and doc.get("module", module) == module:
                why = " (inherits the doc of a Courier symbol; needs its own)"
        if why is not None:
            name = ".".join(symbol["pathComponents"])
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            missing.append((path, line + 1, kind, name, why))
    return sorted(set(missing))


def main():
    package, graph_dir, *modules = sys.argv[1:]
    total = 0
    for module in modules:
        sources = os.path.join(os.path.realpath(package), "Sources", module) + os.sep
        symbols = located_symbols(graph_dir, module, sources)
        missing = undocumented(symbols, module)
        for path, line, kind, name, why in missing:
            print(f"{os.path.relpath(path, package)}:{line}: {kind} {name}{why}")
        print(f"{module}: {len(missing)} of {len(symbols)} public symbols without a doc comment", file=sys.stderr)
        total += len(missing)
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
