#!/usr/bin/env python3
"""Before and after a change, in the same hour: runs Bench suites of two builds alternately, the code
at BASE (a work tree of its own, built once) and this checkout, and prints each suite's headline
figures from both with their ratio (after / before), round by round and as the median.

    Tools/bench-before-after.py BASE [--rounds N] [SUITE ...]   (default: 3 rounds of stack e2e rig forward)

BASE is any revision `git rev-parse` names. `forward` needs PostgreSQL's server (`make test-deps`).
The full outputs stay in the log folder it names."""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Each suite's headline figures: a name and a pattern whose first group is the number (larger is better).
FIGURES = {
    "stack": [
        ("notifications / bare recv, 20 B (%)", r"notifications / bare recv, 20 B\s+([0-9.]+) %"),
        ("notifications / bare recv, 244 B (%)", r"notifications / bare recv, 244 B\s+([0-9.]+) %"),
    ],
    "e2e": [("samples/s", r"^\s*([0-9]+) samples/s")],
    "rig": [("journal / bare SQLite (%)", r"median ratio journal / bare: ([0-9.]+)%")],
    "forward": [("forwarder / psql \\copy", r"^median\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+)")],
}


def run(command, cwd):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("suites", nargs="*", default=["stack", "e2e", "rig", "forward"])
    args = parser.parse_intermixed_args()
    unknown = [suite for suite in args.suites if suite not in FIGURES]
    if unknown:
        sys.exit(f"bench: no headline figures known for {', '.join(unknown)} (known: {', '.join(FIGURES)})")
    base = run(["git", "rev-parse", "--short", args.base], ROOT).stdout.strip()
    if not base:
        sys.exit(f"bench: {args.base} is not a revision")
    before = pathlib.Path(tempfile.gettempdir()) / f"hcipico-bench-{base}"
    if not before.exists():
        added = run(["git", "worktree", "add", "--detach", str(before), base], ROOT)
        if added.returncode != 0:
            sys.exit(added.stderr)
    for directory in (before, ROOT):
        print(f"bench: building Bench in {directory}", file=sys.stderr)
        built = run(["swift", "build", "-c", "release", "--product", "Bench"], directory)
        if built.returncode != 0:
            sys.exit(built.stdout[-4000:] + built.stderr[-4000:])
    logs = pathlib.Path(tempfile.mkdtemp(prefix="hcipico-bench-logs."))
    ratios = {}
    for round_number in range(1, args.rounds + 1):
        for suite in args.suites:
            found = {}
            # Which goes first alternates from round to round: an order effect (a warmer cache, a
            # busier hour) then falls on both sides.
            sides = [("before", before), ("after", ROOT)]
            for side, directory in sides if round_number % 2 else reversed(sides):
                result = run([str(directory / ".build/release/Bench"), suite], directory)
                text = result.stdout + result.stderr
                (logs / f"{suite}-{round_number}-{side}.txt").write_text(text)
                if result.returncode != 0:
                    print(f"bench: {suite} ({side}) exited {result.returncode}", file=sys.stderr)
                for name, pattern in FIGURES[suite]:
                    match = re.search(pattern, text, re.MULTILINE)
                    found[(name, side)] = float(match.group(1)) if match else None
            for name, _ in FIGURES[suite]:
                old, new = found[(name, "before")], found[(name, "after")]
                ratio = new / old if old and new is not None else None
                if ratio is not None:
                    ratios.setdefault((suite, name), []).append(ratio)
                shown = f"{ratio:.3f}" if ratio is not None else "?"
                print(f"round {round_number}  {suite:8} {name:38} before {old}  after {new}  after/before {shown}")
            sys.stdout.flush()
    print()
    for (suite, name), values in ratios.items():
        listed = ", ".join(f"{value:.3f}" for value in values)
        print(f"{suite:8} {name:38} median after/before {statistics.median(values):.3f}  ({listed})")
    print(f"bench: full outputs in {logs}", file=sys.stderr)


if __name__ == "__main__":
    main()
