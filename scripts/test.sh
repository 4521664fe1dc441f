#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: unit tests and the integration tests,
# which start real nginx and unbound through scripts/test-servers.sh. Exits non-zero on any failure.
#
# SCRATCH_PATH=/tmp/build-x scripts/test.sh builds outside .build (one build directory per worktree).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh

swift_args=()
if [[ -n ${SCRATCH_PATH:-} ]]; then
    swift_args=(--scratch-path "$SCRATCH_PATH")
fi

swift build "${swift_args[@]}"
swift test "${swift_args[@]}"
