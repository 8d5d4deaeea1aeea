#!/usr/bin/env python3
"""Checks that every relative link and #anchor in the docs resolves.

Files checked: README.md, Docs/*.md, Examples/README.md, Benchmarks/README.md, Fuzz/README.md.
For each Markdown link `[text](target)` or reference definition `[name]: target` outside code
(fenced blocks and `inline code` are skipped):
  - http(s):, mailto: and other scheme links are not checked (CI has no network);
  - a relative path must name a file or folder that exists, relative to the linking file;
  - a `#anchor` (alone, or after a .md path) must be a heading of the target file, computed with
    GitHub's rules: inline markup dropped, lowercased, punctuation dropped (letters, digits,
    spaces, '-' and '_' kept), each space turned into '-', and a repeated heading given -1, -2, ...
    An `<a name="...">` or `id="..."` in the file is an anchor too.

Usage: scripts/check-links.py [FILE...]   (default: the files above). Exit status 1 on a broken link.
"""

import glob
import os
import re
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILES = ["README.md", "Docs/*.md", "Examples/README.md", "Benchmarks/README.md", "Fuzz/README.md"]

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:name|id)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text):
    """Yields (line number, line) for the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = INLINE_LINK.sub(lambda m: m.group(1), heading)  # [text](url) -> text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(^|\s)_+|_+($|\s)", r"\1\2", text)  # _emphasis_, but not snake_case
    text = text.strip().lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in " -_" or category[0] in "LNM":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    """The set of anchors a Markdown file defines."""
    if path not in _anchor_cache:
        found, counts = set(), {}
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for _, line in prose_lines(text):
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                count = counts.get(base, 0)
                counts[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            for name in HTML_ANCHOR.findall(line):
                found.add(name)
        _anchor_cache[path] = found
    return _anchor_cache[path]


def links(path):
    """Yields (line number, target) for each link in a Markdown file's prose."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    for number, line in prose_lines(text):
        definition = REFERENCE_DEF.match(line)
        if definition:
            yield number, definition.group(1)
            continue
        line = INLINE_CODE.sub("", line)
        for match in INLINE_LINK.finditer(line):
            yield number, match.group(2)


def check(path):
    """Returns the list of problems in one file, as 'file:line: message'."""
    problems = []
    where = os.path.relpath(path, ROOT)
    for number, target in links(path):
        if not target or SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        if file_part:
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(resolved):
                problems.append(f"{where}:{number}: {target}: no such file {os.path.relpath(resolved, ROOT)}")
                continue
        else:
            resolved = path
        if anchor:
            if not resolved.endswith(".md") or os.path.isdir(resolved):
                continue  # anchors into source files (#L10) are GitHub's line links
            if anchor not in anchors(resolved):
                shown = os.path.relpath(resolved, ROOT)
                problems.append(f"{where}:{number}: {target}: no heading #{anchor} in {shown}")
    return problems


def main(argv):
    patterns = argv or DEFAULT_FILES
    files = []
    for pattern in patterns:
        matched = sorted(glob.glob(os.path.join(ROOT, pattern))) or sorted(glob.glob(pattern))
        if not matched:
            print(f"check-links: {pattern}: no such file", file=sys.stderr)
            return 1
        files.extend(os.path.abspath(name) for name in matched)
    problems = [problem for path in files for problem in check(path)]
    for problem in problems:
        print(problem)
    print(f"check-links: {len(files)} files, {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
