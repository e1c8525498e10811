#!/usr/bin/env bash
# Fails unless every public declaration of the library targets an embedder reads has a doc comment
# (swift-format's AllPublicDeclarationsHaveDocumentation, with the project's other settings), and
# unless DocC builds their documentation without a warning.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(Coordination BLEHost BLELinux DeviceLinks DeviceRuns PicoLink MethodSCRIPT MethodSCRIPTBatch BLEDiagnostics PicoAnalysis Terminal)
config=$(mktemp)
log=$(mktemp)
trap 'rm -f "$config" "$log"' EXIT
python3 - "$config" <<'PY'
import json, sys
settings = json.load(open(".swift-format"))
settings["rules"]["AllPublicDeclarationsHaveDocumentation"] = True
json.dump(settings, open(sys.argv[1], "w"))
PY
paths=()
for target in "${targets[@]}"; do paths+=("Sources/$target"); done
swift format lint --strict --configuration "$config" --recursive "${paths[@]}"
arguments=()
for target in "${targets[@]}"; do arguments+=(--target "$target"); done
if ! swift package generate-documentation "${arguments[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    echo "check-docs: swift package generate-documentation failed" >&2
    exit 1
fi
# SwiftPM's notes about dependencies' files and system packages are not about this documentation.
warnings=$(grep -E 'warning:|error:' "$log" | grep -vE 'system-packager|unhandled; explicitly declare' || true)
if [ -n "$warnings" ]; then
    echo "$warnings" >&2
    echo "check-docs: DocC warned (above)" >&2
    exit 1
fi
echo "check-docs: every public symbol of ${targets[*]} is documented; DocC builds without warnings"
