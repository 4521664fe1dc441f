#!/usr/bin/env bash
# Installs what is missing, builds, lints (scripts/lint.sh), builds the documentation
# (scripts/docs.sh) and runs every test: unit tests and the integration tests,
# against real nginx and unbound that it starts once (scripts/test-servers.sh). Exits non-zero on any failure.
#
#   scripts/test.sh [--filter PATTERN]
#
# --filter runs only the tests matching PATTERN (swift test --filter: a regular expression over
# Module.Suite/test names), the load tests included when they match.
# SCRATCH_PATH=/tmp/build-x scripts/test.sh builds outside .build (one build directory per worktree).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() { echo "usage: scripts/test.sh [--filter PATTERN]" >&2; exit 2; }
filter=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --filter) [[ $# -ge 2 && -n $2 ]] || usage; filter=(--filter "$2"); shift 2 ;;
        *) usage ;;
    esac
done

scripts/install-deps.sh

# Every time bound as written: only scripts/sanitize.sh stretches them (Tests/TestSupport/TestTimeScale.swift).
unset HTTPDNS_TEST_TIME_SCALE

swift_args=()
if [[ -n ${SCRATCH_PATH:-} ]]; then
    swift_args=(--scratch-path "$SCRATCH_PATH")
fi

swift build "${swift_args[@]}"
# swift-format's lint and the DocC catalog (with no documentation warnings) are part of CI.
scripts/lint.sh
scripts/docs.sh

log="$(mktemp /tmp/httpdns-test-log.XXXXXX)"
load_log="$(mktemp /tmp/httpdns-test-log.XXXXXX)"
# The real servers start once, before the tests: started from a test, the start (seconds, more on
# a busy machine) held Swift concurrency's cooperative threads, so every test of the process
# waited for it, and those timing an await failed. The test processes use them through
# HTTPDNS_TEST_SERVERS_DIR (TestServers.shared()); the watchdog stops them if this script dies.
servers_dir="$(mktemp -d /tmp/httpdns-test-servers.XXXXXX)"
chmod 755 "$servers_dir"  # as a directory the script makes: tests run the CLI as another user too
trap 'scripts/test-servers.sh stop "$servers_dir" >/dev/null 2>&1 || true; rm -rf "$servers_dir"; rm -f "$log" "$load_log"' EXIT
TEST_SERVERS_OWNER_PID=$$ scripts/test-servers.sh start "$servers_dir" >/dev/null
export HTTPDNS_TEST_SERVERS_DIR="$servers_dir"
status=0
logs=("$log")
if [[ ${#filter[@]} -gt 0 ]]; then
    HTTPDNS_LOAD_TESTS=1 swift test "${swift_args[@]}" "${filter[@]}" 2>&1 | tee "$log" || status=$?
else
    swift test "${swift_args[@]}" --skip LoadTests 2>&1 | tee "$log" || status=$?
    # The load tests (1,000 concurrent requests) run alone in a process of their own: alongside the
    # rest they would starve its timing-sensitive tests, and they count the process's descriptors
    # and threads.
    HTTPDNS_LOAD_TESTS=1 swift test "${swift_args[@]}" --skip-build --filter LoadTests 2>&1 | tee "$load_log" || status=$?
    logs+=("$load_log")
fi

# The suite is Swift Testing; XCTest's own summary ("Executed 0 tests") counts none of it. Close
# with one plain line of what ran.
total=0
failed=0
for file in "${logs[@]}"; do
    summary="$(grep -E 'Test run with [0-9]+ tests? ' "$file" | tail -n 1 || true)"
    count="$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<<"$summary")"
    if [[ -z $count ]]; then
        echo "tests: no Swift Testing summary found" >&2
        exit 1
    fi
    total=$((total + count))
    failed=$((failed + $(grep -E '^✘ Test .* failed after' "$file" | grep -vc '^✘ Test run with' || true)))
done
echo "tests: $((total - failed)) passed, $failed failed"
exit "$status"
