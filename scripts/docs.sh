#!/usr/bin/env bash
# Builds the DocC catalog of the HTTPDNS library (Sources/HTTPDNS/HTTPDNS.docc) with the toolchain's
# own docc, and fails on any documentation warning:
#
#   scripts/docs.sh [OUTPUT]      # default .build/docs/HTTPDNS.doccarchive
#
# The archive is a static site (docc's default transform for static hosting): serve it with
# `python3 -m http.server -d .build/docs/HTTPDNS.doccarchive 8000` and open
# http://localhost:8000/documentation/httpdns.
#
# Symbol graphs come from `swift build -emit-symbol-graph` in a build directory of their own
# (.build/docs-build), so the flags do not rebuild the test build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
output="${1:-.build/docs/HTTPDNS.doccarchive}"
scratch=.build/docs-build
graphs="$PWD/$scratch/symbol-graphs"

# Kept between runs: a module's graph is written when it compiles, so an up-to-date build writes none.
mkdir -p "$graphs" "$(dirname "$output")"
swift build --scratch-path "$scratch" --target HTTPDNS \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" 2>&1 | tail -n 1
# HTTPDNS's graph holds what it re-exports; the other modules' graphs would document them twice.
selected="$PWD/$scratch/symbol-graphs-HTTPDNS"
rm -rf "$selected"
mkdir -p "$selected"
cp "$graphs"/HTTPDNS.symbols.json "$graphs"/HTTPDNS@*.symbols.json "$selected/"

log="$(mktemp /tmp/httpdns-docc.XXXXXX)"
trap 'rm -f "$log"' EXIT
rm -rf "$output"
docc="$(dirname "$(command -v swift)")/docc"
"$docc" convert Sources/HTTPDNS/HTTPDNS.docc \
    --additional-symbol-graph-dir "$selected" \
    --fallback-display-name HTTPDNS --fallback-bundle-identifier httpdns.HTTPDNS \
    --output-path "$output" --warnings-as-errors 2>&1 | tee "$log"
if grep -qE '(warning|error):' "$log"; then
    echo "docs: documentation warnings above" >&2
    exit 1
fi
echo "docs: $output, no warnings (view: python3 -m http.server -d $output 8000, then http://localhost:8000/documentation/httpdns)"
