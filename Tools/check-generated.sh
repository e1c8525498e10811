#!/usr/bin/env bash
# Regenerates Sources/*/Generated/ (and README.md's technique table) from Specs/ and fails if that
# changed anything: generated code in the tree must be exactly what the generator makes from the
# committed tables.
set -euo pipefail
cd "$(dirname "$0")/.."
swift run --quiet SpecGen "$PWD"
changes=$(git status --porcelain -- 'Sources/*/Generated/' README.md)
if [ -n "$changes" ]; then
    echo "check-generated: regenerating from Specs/ changed these files (run 'make generate' and commit):" >&2
    echo "$changes" >&2
    git --no-pager diff --stat -- 'Sources/*/Generated/' README.md >&2 || true
    exit 1
fi
echo "check-generated: Sources/*/Generated/ and README.md's technique table match Specs/"
