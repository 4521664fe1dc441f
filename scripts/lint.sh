#!/usr/bin/env bash
# swift-format in lint mode, with the checked-in .swift-format, over every Swift source of the
# package. Exits non-zero on any finding, the printer's layout included: scripts/format.sh lays
# the code out as the linter wants it. Documentation/Style.md gives the reasons for the rules
# that are off.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
swift_format="$(dirname "$(command -v swift)")/swift-format"
output="$("$swift_format" lint --configuration .swift-format --recursive --parallel \
    Package.swift Sources Tests Benchmarks/HTTPDNSBenchmarks Fuzz/Sources 2>&1 || true)"
findings="$(grep -E '(warning|error):' <<<"$output" || true)"
if [[ -n $findings ]]; then
    echo "$findings"
    echo "lint: $(wc -l <<<"$findings") swift-format finding(s) above; scripts/format.sh fixes the layout ones" >&2
    exit 1
fi
echo "lint: no swift-format findings"
