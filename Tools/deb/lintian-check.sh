#!/usr/bin/env bash
# Runs lintian on PACKAGE: fails on any error or warning, prints the informational tags (tags of
# hcipico's own making are fixed, not overridden). What stays at the informational level and why is in
# Documentation/Packaging.md. Prints the package's path last.
set -euo pipefail
package=${1:?usage: lintian-check.sh PACKAGE}
tags=$(lintian --tag-display-limit 0 --display-info "$package" 2>&1 | grep -E '^[EWI]: ' || true)
errors=$(printf '%s\n' "$tags" | grep -c '^E:' || true)
warnings=$(printf '%s\n' "$tags" | grep -c '^W:' || true)
infos=$(printf '%s\n' "$tags" | grep '^I:' | sed 's/^I: hcipico: \([^ ]*\).*/\1/' | sort | uniq -c | awk '{ printf "%s%s (%d)", sep, $2, $1; sep = ", " }')
if [ "$errors" -ne 0 ] || [ "$warnings" -ne 0 ]; then
    printf '%s\n' "$tags" | grep -E '^[EW]:' >&2
    echo "lintian: $errors errors, $warnings warnings in $package" >&2
    exit 1
fi
echo "lintian: $package: 0 errors, 0 warnings; informational: ${infos:-none}" >&2
echo "$package"
