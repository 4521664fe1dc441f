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

log="$(mktemp /tmp/httpdns-test-log.XXXXXX)"
trap 'rm -f "$log"' EXIT
status=0
swift test "${swift_args[@]}" 2>&1 | tee "$log" || status=$?

# The suite is Swift Testing; XCTest's own summary ("Executed 0 tests") counts none of it. Close
# with one plain line of what ran.
summary="$(grep -E 'Test run with [0-9]+ tests? ' "$log" | tail -n 1 || true)"
total="$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<<"$summary")"
failed="$(grep -cE '^✘ Test .* failed after' "$log" || true)"
if [[ -z $total ]]; then
    echo "tests: no Swift Testing summary found" >&2
    exit 1
fi
echo "tests: $((total - failed)) passed, $failed failed"
exit "$status"
