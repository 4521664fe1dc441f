#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (swiftc -sanitize=fuzzer,address) and runs each for a bounded
# time, starting from the seed corpus in Fuzz/Corpus/<target>/. Prints executions and crashes per
# target; exits 1 if any target crashed, leaked or timed out (the inputs are kept under the work
# directory, see below). Not part of CI: too slow.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#
# Environment: FUZZ_SCRATCH_PATH (build directory, default /tmp/build-httpdns-fuzz), FUZZ_WORK
# (corpus growth, logs and crashing inputs, default /tmp/httpdns-fuzz), FUZZ_JOBS (parallel targets,
# default 1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

seconds="${1:-60}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(FuzzDNSMessage FuzzJSONDoH FuzzAlibabaHTTPDNS FuzzDNSPodHTTPDNS FuzzHostName FuzzCertificates FuzzCLIArguments FuzzResponseHead)
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
    "$bin/$target" "$corpus" "Fuzz/Corpus/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts" >"$work/$target.log" 2>&1 || true
}

mkdir -p "$work"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c "$(declare -f run_one); bin='$bin' work='$work' seconds='$seconds' run_one {}"

status=0
printf '%-20s %12s %10s %8s %s\n' target executions exec/s crashes "(${seconds} s each; logs in $work)"
for target in "${targets[@]}"; do
    log="$work/$target.log"
    runs="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -n 1)"
    rate="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -n 1)"
    found=()
    while IFS= read -r -d '' file; do found+=("$file"); done \
        < <(find "$work/artifacts/$target" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) -print0)
    printf '%-20s %12s %10s %8s\n' "$target" "${runs:-?}" "${rate:-?}" "${#found[@]}"
    for file in "${found[@]}"; do echo "    $file"; done
    [[ ${#found[@]} -eq 0 && -n $runs ]] || status=1
done
exit "$status"
