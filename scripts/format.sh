#!/usr/bin/env bash
# Lays out every Swift source of the package with the toolchain's swift-format and the checked-in
# .swift-format, in place: what scripts/lint.sh (and so CI) then finds nothing to say about.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
swift_format="$(dirname "$(command -v swift)")/swift-format"
"$swift_format" format --in-place --configuration .swift-format --recursive --parallel \
    Package.swift Sources Tests Benchmarks/HTTPDNSBenchmarks Fuzz/Sources
