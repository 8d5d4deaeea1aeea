#!/usr/bin/env python3
"""Compiles every ```swift block in README.md and Docs/*.md, and runs the ones marked `run`.

The convention (see Docs/ and issue 22):
  - Each block is the main.swift of its own module, built in Swift 6 mode with warnings as
    errors against Courier and CourierTestServer. Without an `import` line, `import Foundation`
    and `import Courier` are added in front.
  - `<!-- snippet` + newline + code + `-->` right before the fence (blank lines allowed between)
    is hidden code prepended to the block.
  - `<!-- snippet: continues -->` appends the block to the previous swift block of the same file.
  - `<!-- snippet: run -->` also runs the program; the next ```text or ```console block is its
    expected stdout. A line that is exactly `...` matches any number of lines; `…` within a line
    matches any text in that line.
  - A block starting with `// swift-tools-version` is a Package.swift manifest, checked with
    `swift package dump-package` in a temporary package with stub target folders.

Usage: scripts/check-snippets.py [--docs PATH...] [--jobs N] [--skip-build] [--times] [--self-test]
Exit status 1 on any failure. Compiler messages point at the doc's own lines (#sourceLocation).
"""

import argparse
import concurrent.futures
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, ".build", "debug")
MODULE_MAPS = [
    "Sources/CCurl/module.modulemap", "Sources/CZlib/module.modulemap", "Sources/CDuktape/module.modulemap",
    "Sources/CCrypto/module.modulemap", "Sources/CLibXML2/module.modulemap",
]
# Header folders the system modules need beyond /usr/include (libxml2's are in their own), as
# SwiftPM gets them from pkg-config.
PKG_CONFIG_PACKAGES = ["libxml-2.0"]
# Courier and the test server, and the internal target both depend on (its lock helpers are
# called, not only inlined, in a debug build).
LINKED_TARGETS = ["CourierThreadSanitizer", "Courier", "CourierTestServer"]
RUN_TIMEOUT = 30
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")


class Block:
    """One fenced ```swift block and the snippet comments in front of it."""

    def __init__(self, path, fence_line, code, prelude, prelude_line, options):
        self.path = path
        self.fence_line = fence_line  # 1-based line of the opening fence
        self.code = code
        self.prelude = prelude
        self.prelude_line = prelude_line  # 1-based line of the prelude's first code line
        self.options = options
        self.expected = None  # (line, text) of the expected output for run blocks
        self.previous = None  # the block this one continues

    @property
    def where(self):
        return f"{os.path.relpath(self.path)}:{self.fence_line}"

    @property
    def is_manifest(self):
        return self.code.lstrip().startswith("// swift-tools-version")

    def chain(self):
        blocks, block = [], self
        while block:
            blocks.append(block)
            block = block.previous
        return list(reversed(blocks))


def parse_comments(lines, fence_index):
    """The snippet comments right before the fence: (options, prelude lines, prelude's first line)."""
    options, prelude, prelude_line = set(), [], None
    i = fence_index - 1
    while True:
        while i >= 0 and not lines[i].strip():
            i -= 1
        if i < 0 or not lines[i].rstrip().endswith("-->"):
            break
        end = i
        while i >= 0 and "<!--" not in lines[i]:
            i -= 1
        if i < 0:
            break
        head = lines[i].strip()
        match = re.match(r"<!--\s*snippet\b(:?)(.*)$", head)
        if not match:
            break
        rest = match.group(2)
        single_line = i == end
        if single_line:
            rest = rest[: rest.rindex("-->")]
        options.update(word for word in re.split(r"[\s,]+", rest) if word)
        if not single_line:
            body = lines[i + 1 : end]
            last = lines[end].rstrip()[:-3]
            if last.strip():
                body.append(last)
            prelude = body + prelude
            prelude_line = i + 2
        i -= 1
    return options, prelude, prelude_line


def parse_doc(path):
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    blocks, errors, previous_swift, waiting_for_output = [], [], None, None
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match.groups()
        start = i
        i += 1
        body = []
        closing = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        while i < len(lines) and not closing.match(lines[i]):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        info = info.lower()
        if info in ("text", "console") and waiting_for_output:
            waiting_for_output.expected = (start + 1, "\n".join(body))
            waiting_for_output = None
        if info != "swift":
            continue
        options, prelude, prelude_line = parse_comments(lines, start)
        unknown = options - {"continues", "run"}
        block = Block(path, start + 1, "\n".join(body), prelude, prelude_line, options)
        if unknown:
            errors.append(f"{block.where}: unknown snippet option(s): {', '.join(sorted(unknown))}")
        if "continues" in options:
            if previous_swift is None:
                errors.append(f"{block.where}: `continues` but no swift block before it in this file")
            else:
                block.previous = previous_swift
        if waiting_for_output:
            errors.append(f"{waiting_for_output.where}: `run` block has no ```text or ```console block after it")
            waiting_for_output = None
        if "run" in options:
            waiting_for_output = block
        blocks.append(block)
        previous_swift = block
    if waiting_for_output:
        errors.append(f"{waiting_for_output.where}: `run` block has no ```text or ```console block after it")
    return blocks, errors


def program_source(block):
    """main.swift for the chain ending at `block`, with #sourceLocation lines pointing into the doc."""
    chain = block.chain()
    parts = []
    has_import = any(re.match(r"\s*(@\w+\s+)*import\s", line) for b in chain for line in b.prelude + b.code.split("\n"))
    if not has_import:
        parts.append("import Foundation\nimport Courier")
    for b in chain:
        if b.prelude:
            parts.append(f'#sourceLocation(file: "{b.path}", line: {b.prelude_line})')
            parts.append("\n".join(b.prelude))
        parts.append(f'#sourceLocation(file: "{b.path}", line: {b.fence_line + 1})')
        parts.append(b.code)
    parts.append("#sourceLocation()")
    return "\n".join(parts) + "\n"


def swiftc_flags():
    flags = ["-swift-version", "6", "-warnings-as-errors", "-module-name", "Snippet"]
    flags += ["-I", os.path.join(BUILD, "Modules")]
    for module_map in MODULE_MAPS:
        flags += ["-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, module_map)]
    cflags = subprocess.run(
        ["pkg-config", "--cflags"] + PKG_CONFIG_PACKAGES, capture_output=True, text=True, check=True).stdout.split()
    for flag in cflags:
        flags += ["-Xcc", flag]
    return flags


def object_files():
    files = []
    for target in LINKED_TARGETS:
        folder = os.path.join(BUILD, target + ".build")
        files += sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".o"))
    return files


def match_output(expected, actual):
    pattern = []
    for line in expected.rstrip("\n").split("\n"):
        if line == "...":
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            parts = re.split("(…)", line)
            pattern.append("".join("[^\\n]*" if part == "…" else re.escape(part) for part in parts) + "\n")
    return re.fullmatch("".join(pattern), actual.rstrip("\n") + "\n") is not None


def check_manifest(block, workdir):
    folder = os.path.join(workdir, "package")
    os.makedirs(folder)
    with open(os.path.join(folder, "Package.swift"), "w", encoding="utf-8") as handle:
        handle.write(block.code + "\n")
    # Stub folders so target validation finds sources: Sources/NAME and Tests/NAME, or `path:`.
    for kind, name in re.findall(r"\.(\w*[tT]arget)\(\s*name:\s*\"([^\"]+)\"", block.code):
        base = "Tests" if kind == "testTarget" else "Sources"
        stub = os.path.join(folder, base, name)
        os.makedirs(stub, exist_ok=True)
        with open(os.path.join(stub, "main.swift" if "executable" in kind else "Stub.swift"), "w") as handle:
            handle.write("\n")
    result = subprocess.run(
        ["swift", "package", "--disable-dependency-cache", "dump-package"],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        return False, f"{block.where}: manifest does not load:\n{result.stderr.strip()}"
    return True, None


def check_block(block, workdir, objects):
    """Builds (and maybe runs) one block. Returns (ok, built, ran, message)."""
    if block.is_manifest:
        ok, message = check_manifest(block, workdir)
        return ok, ok, False, message
    source = os.path.join(workdir, "main.swift")
    with open(source, "w", encoding="utf-8") as handle:
        handle.write(program_source(block))
    run = "run" in block.options
    command = ["swiftc"] + swiftc_flags() + ["-diagnostic-style=llvm", source]
    if run:
        command += objects + ["-o", os.path.join(workdir, "snippet")]
    else:
        command.insert(1, "-typecheck")
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        return False, False, False, f"{block.where}: does not compile:\n{(result.stderr + result.stdout).strip()}"
    if not run:
        return True, True, False, None
    if block.expected is None:
        return False, True, False, f"{block.where}: `run` block has no expected output block"
    try:
        result = subprocess.run(
            [os.path.join(workdir, "snippet")], cwd=workdir, capture_output=True, text=True, timeout=RUN_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return False, True, True, f"{block.where}: did not end within {RUN_TIMEOUT} s"
    problems = []
    if result.returncode != 0:
        problems.append(f"exit status {result.returncode}; stderr:\n{result.stderr.strip()}")
    if not match_output(block.expected[1], result.stdout):
        diff = difflib.unified_diff(
            block.expected[1].rstrip("\n").split("\n"),
            result.stdout.rstrip("\n").split("\n"),
            f"expected ({os.path.relpath(block.path)}:{block.expected[0]})",
            "actual stdout",
            lineterm="",
        )
        problems.append("output differs:\n" + "\n".join(diff))
    if problems:
        return False, True, True, f"{block.where}: " + "\n".join(problems)
    return True, True, True, None


def targets_of_interest(blocks):
    """Which blocks to build: the last of each continues chain, and every run block."""
    continued = {id(b.previous) for b in blocks if b.previous is not None}
    return [b for b in blocks if id(b) not in continued or "run" in b.options]


def build_package():
    for target in LINKED_TARGETS:
        result = subprocess.run(
            ["swift", "build", "--target", target, "-Xswiftc", "-warnings-as-errors"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            sys.stderr.write(result.stdout + result.stderr)
            sys.exit(f"check-snippets: `swift build --target {target}` failed")


def default_docs():
    docs = [os.path.join(ROOT, "README.md")]
    folder = os.path.join(ROOT, "Docs")
    docs += sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".md"))
    return docs


def check(docs, jobs, show_times=False):
    """Returns the number of failures; prints each and the summary line."""
    started = time.monotonic()
    blocks, failures = [], []
    for doc in docs:
        found, errors = parse_doc(os.path.abspath(doc))
        blocks += found
        failures += errors
    objects = object_files()
    todo = targets_of_interest(blocks)
    ran, built_programs = 0, set()
    with tempfile.TemporaryDirectory(prefix="snippets-") as scratch:

        def one(index_block):
            index, block = index_block
            workdir = os.path.join(scratch, str(index))
            os.makedirs(workdir)
            begun = time.monotonic()
            result = check_block(block, workdir, objects)
            if show_times:
                print(f"{time.monotonic() - begun:5.1f} s  {block.where}", file=sys.stderr)
            return block, result

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for block, (ok, was_built, was_run, message) in pool.map(one, enumerate(todo)):
                if was_built:
                    built_programs.update(id(b) for b in block.chain())
                ran += was_run
                if not ok:
                    failures.append(message)
    for message in failures:
        print("FAIL " + message + "\n", file=sys.stderr)
    files = len({b.path for b in blocks})
    built = sum(1 for b in blocks if id(b) in built_programs)
    print(
        f"{len(blocks)} snippets in {files} files: {built} built, {ran} run, {len(failures)} failed"
        f" ({time.monotonic() - started:.0f} s)"
    )
    return len(failures)


SELF_TEST_DOC = textwrap.dedent(
    """\
    # Fixture

    A good one, with a hidden prelude and a run:

    <!-- snippet
    let greeting = "hello"
    -->
    <!-- snippet: run -->

    ```swift
    print(greeting, 1 + 1)
    print("port \\(8080)")
    print("a")
    print("b")
    print("end")
    ```

    ```text
    hello 2
    port …
    ...
    end
    ```

    <!-- snippet: continues -->
    ```swift
    let two: Int = greeting
    ```

    <!-- snippet: run -->
    ```swift
    print("actual")
    ```

    ```console
    expected
    ```

    ```swift
    // swift-tools-version:6.0
    import PackageDescription
    let package = Package(name: "Fixture", targets: [.executableTarget(name: "Fixture")])
    ```
    """
)


def self_test(jobs):
    """The checker must pass a good snippet and catch a compile error and a wrong output."""
    with tempfile.TemporaryDirectory(prefix="snippets-self-test-") as folder:
        doc = os.path.join(folder, "Fixture.md")
        with open(doc, "w", encoding="utf-8") as handle:
            handle.write(SELF_TEST_DOC)
        result = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--skip-build", "--jobs", str(jobs), "--docs", doc],
            capture_output=True,
            text=True,
        )
    output = result.stdout + result.stderr
    rel = os.path.relpath(doc)
    expectations = [
        ("exit status 1", result.returncode == 1),
        ("the compile error at the doc's line 27", re.search(r"Fixture\.md:27:\d+: error: cannot convert", output)),
        ("the fence of the failing block", f"{rel}:26: does not compile" in output),
        ("the wrong output's fence", f"{rel}:31: output differs" in output),
        ("a diff of the wrong output", "-expected\n+actual" in output),
        ("the summary", "4 snippets in 1 files: 3 built, 2 run, 2 failed" in output),
    ]
    missing = [what for what, ok in expectations if not ok]
    if missing:
        print(output)
        print("check-snippets self-test FAILED: missing " + "; ".join(missing))
        return 1
    print("check-snippets self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", nargs="+", help="Markdown files to check (default: README.md and Docs/*.md)")
    parser.add_argument("--jobs", type=int, default=2, help="compilers run in parallel (default 2)")
    parser.add_argument("--skip-build", action="store_true", help="use the existing debug build of Courier")
    parser.add_argument("--times", action="store_true", help="print how long each snippet took")
    parser.add_argument("--self-test", action="store_true", help="check that the checker catches broken snippets")
    args = parser.parse_args()
    if not shutil.which("swiftc"):
        sys.exit("check-snippets: swiftc not found")
    if not args.skip_build:
        build_package()
    if args.self_test:
        sys.exit(self_test(args.jobs))
    sys.exit(1 if check(args.docs or default_docs(), args.jobs, args.times) else 0)


if __name__ == "__main__":
    main()
