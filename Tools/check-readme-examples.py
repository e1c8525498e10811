#!/usr/bin/env python3
"""Fails unless every Swift example in the README's embedding section is compiled: each block's lines
(its imports aside) must stand, in order and together, in a function of
Tests/DeviceLinksTests/ReadmeExamples.swift, which `swift build --build-tests` compiles (names the
README leaves to the reader are the functions' parameters)."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
EXAMPLES = ROOT / "Tests/DeviceLinksTests/ReadmeExamples.swift"


def main():
    text = README.read_text()
    start = text.find("## Embedding `PicoLink`")
    if start < 0:
        sys.exit("check-readme-examples: README.md has no '## Embedding `PicoLink`' section")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end > 0 else len(text)]
    blocks = re.findall(r"```swift\n(.*?)```", section, re.S)
    compiled = [line.strip() for line in EXAMPLES.read_text().splitlines() if line.strip()]
    failures = []
    for number, block in enumerate(blocks, 1):
        lines = [line.strip() for line in block.splitlines() if line.strip() and not line.startswith("import ")]
        found = any(compiled[i : i + len(lines)] == lines for i in range(len(compiled) - len(lines) + 1))
        if not found:
            failures.append(f"example {number} (first line: {lines[0] if lines else '?'})")
    if failures:
        for failure in failures:
            print(f"check-readme-examples: README.md's embedding {failure} is not in {EXAMPLES.relative_to(ROOT)} as written", file=sys.stderr)
        sys.exit(1)
    print(f"check-readme-examples: the README's {len(blocks)} embedding examples are compiled as written")


if __name__ == "__main__":
    main()
