#!/usr/bin/env python3
"""Fails unless every Swift example of the documents below is compiled: each block's lines (its imports
aside) must stand, in order and together, in one of the DocumentationExamples.swift files below, which
`swift build --build-tests` compiles (there, names an example leaves to the reader are its function's
parameters)."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = [
    ROOT / "Tests/DeviceLinksTests/DocumentationExamples.swift",
    ROOT / "Tests/TerminalTests/DocumentationExamples.swift",
]
DOCUMENTS = [
    "README.md",
    "Documentation/Internals.md",
    "Sources/DeviceLinks/DeviceLinks.docc/DeviceLinks.md",
    "Sources/DeviceRuns/DeviceRuns.docc/DeviceRuns.md",
    "Sources/PicoAnalysis/PicoAnalysis.docc/PicoAnalysis.md",
    "Sources/Terminal/Terminal.docc/Terminal.md",
]


def main():
    files = [[line.strip() for line in path.read_text().splitlines() if line.strip()] for path in EXAMPLES]
    failures = []
    count = 0
    for document in DOCUMENTS:
        blocks = re.findall(r"```swift\n(.*?)```", (ROOT / document).read_text(), re.S)
        for number, block in enumerate(blocks, 1):
            count += 1
            lines = [line.strip() for line in block.splitlines() if line.strip() and not line.startswith("import ")]
            if not any(
                compiled[i : i + len(lines)] == lines
                for compiled in files
                for i in range(len(compiled) - len(lines) + 1)
            ):
                failures.append(f"{document}: example {number} (first line: {lines[0] if lines else '?'})")
    for failure in failures:
        print(f"check-doc-examples: {failure} is not in any of {', '.join(str(path.relative_to(ROOT)) for path in EXAMPLES)} as written", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"check-doc-examples: the {count} Swift examples of {len(DOCUMENTS)} documents are compiled as written")


if __name__ == "__main__":
    main()
