#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (swiftc -sanitize=fuzzer,address) and runs each for a bounded
# time or number of executions, starting from the seed corpus in Fuzz/Corpus/<target>/. Prints
# executions and crashes per target; exits 1 if any target crashed, leaked or timed out (the inputs
# are kept under the work directory, see below). Not part of CI: too slow.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#   scripts/fuzz.sh --runs N [TARGET...]                 (N executions each, libFuzzer's -runs=N; no time limit)
#
# A run stopped early (killed) still gets its row: the executions of its last progress line.
#
# Environment: FUZZ_SCRATCH_PATH (build directory, default /tmp/build-httpdns-fuzz), FUZZ_WORK
# (corpus growth, logs and crashing inputs, default /tmp/httpdns-fuzz), FUZZ_JOBS (parallel targets,
# default 1), FUZZ_TIMEOUT (seconds one input may take, libFuzzer's -timeout, default 10: it is wall
# time, so a run under `nice` on a busy machine needs more, 300 say, or a starved input is reported
# as a hang).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

usage() { echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET | --runs N] [TARGET...]" >&2; exit 2; }
seconds=60
runs=""
if [[ ${1:-} == --runs ]]; then
    [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage
    runs=$2
    shift 2
elif [[ ${1:-} =~ ^[0-9]+$ ]]; then
    seconds=$1
    shift
fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(FuzzDNSMessage FuzzServiceBinding FuzzDNSSECRecords FuzzJSONDoH FuzzAlibabaHTTPDNS FuzzDNSPodHTTPDNS FuzzHostName FuzzCertificates FuzzCLIArguments FuzzResponseHead FuzzAuthenticationChallenge)
fi
scratch="${FUZZ_SCRATCH_PATH:-/tmp/build-httpdns-fuzz}"
work="${FUZZ_WORK:-/tmp/httpdns-fuzz}"
jobs="${FUZZ_JOBS:-1}"

# lld: gold cannot link the fuzzer runtime with SwiftPM's renamed main. C targets get coverage too.
# One product at a time: the package also holds httpdns-leakcheck, which is not a fuzzer.
for target in "${targets[@]}"; do
    (cd Fuzz && swift build --product "$target" --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address \
        -Xswiftc -use-ld=lld -Xcc -fsanitize=fuzzer-no-link,address 2>&1 | grep -v "Cannot export local symbol") \
        || { echo "$target: build failed" >&2; exit 1; }
done
bin="$scratch/debug"

# Swift's own crash backtracer runs inside the sanitizer's report and trips over it.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"

run_one() {
    local target="$1"
    [[ -x "$bin/$target" ]] || { echo "$target: not built" >&2; return 1; }
    local corpus="$work/corpus/$target" artifacts="$work/artifacts/$target/"
    rm -rf "$artifacts"  # what a previous run found was reported then
    mkdir -p "$corpus" "$artifacts"
    # New inputs go to the work corpus (first directory); the seeds in the repo are only read.
    # -runs bounds the executions instead of the time (-max_total_time=0: no limit).
    local bound=(-max_total_time="$seconds")
    [[ -z $runs ]] || bound=(-runs="$runs" -max_total_time=0)
    "$bin/$target" "$corpus" "Fuzz/Corpus/$target" "${bound[@]}" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts" >"$work/$target.log" 2>&1 || true
}

mkdir -p "$work"
# A target this run does not reach (the run stopped) must not show an earlier run's log.
for target in "${targets[@]}"; do rm -f "$work/$target.log"; done
# Stopping the run (killing xargs, then the running fuzzer) still prints the table below.
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c "$(declare -f run_one); bin='$bin' work='$work' seconds='$seconds' runs='$runs' run_one {}" || true

status=0
bound="${seconds} s each"
[[ -z $runs ]] || bound="$runs runs each"
printf '%-20s %12s %10s %8s %s\n' target executions exec/s crashes "($bound; logs in $work)"
for target in "${targets[@]}"; do
    log="$work/$target.log"
    if [[ ! -f $log ]]; then
        printf '%-20s %12s\n' "$target" "(not run)"
        status=1
        continue
    fi
    executed="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -n 1)"
    rate="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -n 1)"
    if [[ -z $executed ]]; then
        # No final statistics (the run was killed): its last progress line, "#N ... exec/s: R ...".
        executed="$(sed -nE 's/^#([0-9]+)[[:space:]].*/\1/p' "$log" | tail -n 1)"
        rate="$(sed -nE 's/^#[0-9]+[[:space:]].*exec\/s: ([0-9]+).*/\1/p' "$log" | tail -n 1)"
        [[ -z $executed ]] || executed="$executed (stopped)"
    elif grep -q 'libFuzzer: run interrupted' "$log"; then
        executed="$executed (stopped)"  # SIGTERM or SIGINT: libFuzzer prints its statistics and exits
    fi
    found=()
    while IFS= read -r -d '' file; do found+=("$file"); done \
        < <(find "$work/artifacts/$target" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) -print0)
    printf '%-20s %12s %10s %8s\n' "$target" "${executed:-?}" "${rate:-?}" "${#found[@]}"
    for file in "${found[@]}"; do echo "    $file"; done
    [[ ${#found[@]} -eq 0 && -n $executed && $executed != *stopped* ]] || status=1
done
exit "$status"
