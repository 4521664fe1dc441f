#!/usr/bin/env bash
# The whole test suite under ThreadSanitizer and AddressSanitizer, and a LeakSanitizer run of 1,000
# real requests. Exits non-zero on a failing test or any sanitizer report. Not part of CI: each
# sanitized build takes several minutes on a small machine; the modes run one at a time.
#
#   scripts/sanitize.sh [thread|address|leaks|all]      (default: all)
#
# Each sanitizer builds in its own directory, SANITIZE_SCRATCH_PREFIX-{thread,address,leaks}
# (default prefix /tmp/build-httpdns). Logs go to SANITIZE_LOGS (default /tmp/httpdns-sanitize).
# Suppressions, for libraries we do not own only, are in scripts/sanitizers/, each with its reason.
# The integration tests' `httpdns` child processes are the sanitized build and inherit the options.
#
# A sanitized build running the whole suite is several times slower, so the tests' allowances for
# the machine's speed (generous client and resolver limits, the slack above a limit under test; not
# the limits under test nor lower bounds) are stretched by HTTPDNS_TEST_TIME_SCALE
# (Tests/TestSupport/TestTimeScale.swift): 3 under ThreadSanitizer, 2 under AddressSanitizer, or the
# value the caller exported (a number from 1 to 100). scripts/test.sh leaves it unset: factor 1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

mode="${1:-all}"
prefix="${SANITIZE_SCRATCH_PREFIX:-/tmp/build-httpdns}"
logs="${SANITIZE_LOGS:-/tmp/httpdns-sanitize}"
mkdir -p "$logs"
time_scale="${HTTPDNS_TEST_TIME_SCALE:-}"

case "$mode" in
    thread | address | leaks | all) ;;
    *) echo "usage: $0 [thread|address|leaks|all]" >&2; exit 2 ;;
esac

scripts/install-deps.sh

# Swift's own crash backtracer runs inside a sanitizer's report and trips over it.
export SWIFT_BACKTRACE=enable=no
# halt_on_error=0: report every race, then exit 66 at the end (the run fails, the report is complete).
export TSAN_OPTIONS="suppressions=$root/scripts/sanitizers/tsan.supp:halt_on_error=0:second_deadlock_stack=1:history_size=4"
# Leaks are checked by the leaks mode, in one process that made 1,000 requests; here, a child
# httpdns's exit-time leak report would change what the CLI tests see.
export ASAN_OPTIONS="detect_leaks=0:strict_string_checks=1:detect_stack_use_after_return=0"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"

# Runs every test with --sanitize=$1, time allowances scaled by $2 unless the caller chose a
# factor; fails on a failing test or a sanitizer report.
run_suite() {
    local sanitizer="$1"
    local scratch="$prefix-$sanitizer" log="$logs/$sanitizer.log"
    export HTTPDNS_TEST_TIME_SCALE="${time_scale:-$2}"
    echo "== swift test --sanitize=$sanitizer, time scale $HTTPDNS_TEST_TIME_SCALE (build in $scratch, log in $log)"
    local status=0
    swift build --build-tests --scratch-path "$scratch" --sanitize="$sanitizer" >"$log" 2>&1 || status=$?
    if [[ $status -ne 0 ]]; then
        tail -n 30 "$log"
        echo "$sanitizer: build failed" >&2
        return 1
    fi
    swift test --skip-build --scratch-path "$scratch" --sanitize="$sanitizer" 2>&1 | tee -a "$log" >/dev/null || status=$?
    local summary total failed reports
    summary="$(grep -E 'Test run with [0-9]+ tests? ' "$log" | tail -n 1 || true)"
    total="$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<<"$summary")"
    failed="$(grep -E '^✘ Test .* failed after' "$log" | grep -cv '^✘ Test run with' || true)"
    reports="$(grep -cE '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer|SUMMARY: (Thread|Address)Sanitizer)' "$log" || true)"
    echo "$sanitizer: tests: $((${total:-0} - failed)) passed, $failed failed; sanitizer reports: $reports (exit $status)"
    [[ -n $total && $failed -eq 0 && $reports -eq 0 && $status -eq 0 ]]
}

# 1,000 requests in one AddressSanitizer process (Fuzz/Sources/httpdns-leakcheck) against the test
# servers; LeakSanitizer reports at exit what is no longer reachable.
run_leaks() {
    local scratch="$prefix-leaks" log="$logs/leaks.log" servers
    echo "== LeakSanitizer: ${LEAK_REQUESTS:-1000} requests (build in $scratch, log in $log)"
    (cd Fuzz && swift build --product httpdns-leakcheck --scratch-path "$scratch" -Xswiftc -sanitize=address >"$log" 2>&1) || {
        tail -n 30 "$log"; echo "leaks: build failed" >&2; return 1
    }
    servers="$(mktemp -d /tmp/httpdns-leakcheck.XXXXXX)"
    TEST_SERVERS_OWNER_PID=$$ scripts/test-servers.sh start "$servers" >>"$log" 2>&1
    # shellcheck disable=SC1091
    source "$servers/servers.env"
    local status=0
    # print_suppressions=1: the log says which suppressions matched, and how many allocations.
    ASAN_OPTIONS="detect_leaks=1" LSAN_OPTIONS="$LSAN_OPTIONS:print_suppressions=1" "$scratch/debug/httpdns-leakcheck" --doh-url "$DOH_URL" --cacert "$CA_CERT" \
        --port "$HTTPS_PORT" --requests "${LEAK_REQUESTS:-1000}" >>"$log" 2>&1 || status=$?
    scripts/test-servers.sh stop "$servers" >/dev/null 2>&1 || true
    rm -rf "$servers"
    grep -E '^httpdns-leakcheck:|unexpected:' "$log" || true
    grep -E '^SUMMARY: AddressSanitizer|^(Direct|Indirect) leak of' "$log" || echo "leaks: no leak reported"
    # LeakSanitizer exits 23 when it found a leak.
    [[ $status -eq 0 ]]
}

result=0
case "$mode" in
    thread) run_suite thread 3 || result=1 ;;
    address) run_suite address 2 || result=1 ;;
    leaks) run_leaks || result=1 ;;
    all)
        run_suite thread 3 || result=1
        run_suite address 2 || result=1
        run_leaks || result=1
        ;;
esac
exit "$result"
