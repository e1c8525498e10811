#!/usr/bin/env python3
"""Declared dependencies equal imports: for every target of Package.swift, each module its sources
import is a declared dependency (or one of the toolchain's), and each declared dependency is imported
by at least one of its files, and none is declared twice. Prints every mismatch with its target and exits 1 when there is one.

A dependency that is linked but never imported (a C library a Swift module needs at link time) is
named in LINKED_ONLY with the reason."""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Modules the toolchain provides: importing them needs no declared dependency.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Dispatch",
    "Synchronization", "Testing", "XCTest", "_Concurrency", "Observation", "RegexBuilder", "os",
    "Darwin", "PackageDescription", "FoundationXML",
}

# (target, dependency): linked for a reason other than an import.
LINKED_ONLY = {
    # GRDB's SQLite, linked by the targets that use GRDB (the journal's C library).
    ("RigJournal", "GRDBSQLite"): "SQLite for GRDB",
    ("Bench", "GRDBSQLite"): "SQLite for GRDB",
    # Counts Bench's allocations by replacing malloc: linked, never called by name.
    ("Bench", "CAllocationCounter"): "replaces malloc",
}

IMPORT = re.compile(
    r"^\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+|@_implementationOnly\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)


def package():
    out = subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out)


def dependency_list(target):
    names = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return names


def dependency_names(target):
    return set(dependency_list(target))


def target_path(target):
    if target.get("path"):
        return ROOT / target["path"]
    base = "Tests" if target["type"] == "test" else "Sources"
    return ROOT / base / target["name"]


def imports(path):
    found = set()
    for file in sorted(path.rglob("*.swift")):
        text = file.read_text(encoding="utf-8")
        # Imports inside `#if canImport(X)` are the platform's choice, not a dependency.
        for match in IMPORT.finditer(text):
            found.add(match.group(1))
    return found


def main():
    manifest = package()
    local = {target["name"] for target in manifest["targets"]}
    problems = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        path = target_path(target)
        if not any(path.rglob("*.swift")):
            continue  # a C target
        listed = dependency_list(target)
        for module in sorted({name for name in listed if listed.count(name) > 1}):
            problems.append(f"{target['name']}: declares {module} more than once (SwiftPM warns on every build)")
        declared = set(listed)
        used = imports(path) - TOOLCHAIN - {target["name"]}
        for module in sorted(used - declared):
            problems.append(f"{target['name']}: imports {module}, which it does not declare")
        for module in sorted(declared - used):
            if (target["name"], module) in LINKED_ONLY:
                continue
            what = "target" if module in local else "product"
            problems.append(f"{target['name']}: declares the {what} {module}, which none of its files imports")
    for problem in problems:
        print(f"check-dependencies: {problem}")
    if problems:
        print(f"check-dependencies: {len(problems)} mismatches between Package.swift and the imports")
        return 1
    print(f"check-dependencies: every target's declared dependencies equal its imports ({len(manifest['targets'])} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
