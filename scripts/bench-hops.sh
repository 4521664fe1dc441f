#!/usr/bin/env bash
# CPU time per request of the sequential callers, in one run: a caller on the global executor
# (one thread hand-off a request: the transfer loop resumes it on another thread), one on the
# client's executor (none), the reused blocking easy handle, and optionally another checkout's bench (an older
# design), each on every CPU and again pinned to one CPU (taskset), where waking another thread
# costs no inter-processor interrupt. The difference between the two settings is what the
# hand-offs cost on this machine.
#
# Usage: scripts/bench-hops.sh [--scratch-path DIR] [--other LABEL=BENCH] [--requests N]
#                              [--rounds R] [--version h1|h2]
#   --scratch-path DIR   this checkout's build directory (default: .build); the bench is built there
#   --other LABEL=BENCH  also measure the httpdns-bench binary BENCH (already built), as LABEL
#   --requests N         requests per measurement (default 20000); each mode also runs N/10, and
#                        the difference divided by 0.9 N is one request's cost (start-up cancels)
#   --rounds R           alternating rounds; the table gives each mode's median (default 5)
#   --version h1|h2      HTTP version (default h1)
#
# CPU time is user + system of the whole process (every thread), from /usr/bin/time. Prints one
# markdown table. About 8 minutes with the defaults.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=$here/.build
others=()
requests=20000
rounds=5
version=h1

die() {
    echo "bench-hops: $*" >&2
    exit 1
}

while (($#)); do
    case $1 in
        --scratch-path) scratch=${2:?--scratch-path needs a directory}; shift 2 ;;
        --other) [[ ${2:-} == *=* ]] || die "--other takes LABEL=BENCH"; others+=("$2"); shift 2 ;;
        --requests) requests=${2:?--requests needs a number}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
        --version) version=${2:?--version needs h1 or h2}; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
[[ $requests =~ ^[0-9]+$ ]] && ((requests >= 100)) || die "--requests takes a number of at least 100, got '$requests'"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a positive number, got '$rounds'"
[[ $version == h1 || $version == h2 ]] || die "--version takes h1 or h2, got '$version'"
command -v taskset >/dev/null || die "needs taskset (util-linux)"
[[ -x /usr/bin/time ]] || apt-get install -y time >/dev/null

echo "bench-hops: building httpdns-bench (release) in $here" >&2
swift build -c release --package-path "$here" --scratch-path "$scratch" --product httpdns-bench >&2
bench=$scratch/release/httpdns-bench

work=$(mktemp -d "${TMPDIR:-/tmp}/httpdns-hops.XXXXXX")
cleanup() {
    "$here/scripts/test-servers.sh" stop "$work/servers" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
TEST_SERVERS_OWNER_PID=$$ "$here/scripts/test-servers.sh" start "$work/servers" >/dev/null
export HTTPDNS_TEST_SERVERS_DIR=$work/servers

# label | binary | flags
modes=("global executor|$bench|--profile $version"
    "\`client.executor\`|$bench|--profile $version --on-executor"
    "reused blocking easy handle|$bench|--profile-raw $version")
for other in "${others[@]}"; do
    modes+=("${other%%=*}, global executor|${other#*=}|--profile $version")
done

# Prints the CPU microseconds of one request of FLAGS run by BINARY, under PREFIX (taskset or none).
measure() {
    local prefix=$1 binary=$2 flags=$3 small=$((requests / 10)) cpu=()
    for count in "$small" "$requests"; do
        # shellcheck disable=SC2086 # the flags and prefix are words
        $prefix /usr/bin/time -f "%U %S" -o "$work/time" "$binary" $flags --requests "$count" >/dev/null 2>"$work/err" ||
            die "$binary $flags failed: $(tail -3 "$work/err")"
        cpu+=("$(awk '{printf "%.0f", ($1 + $2) * 1000000}' "$work/time")")
    done
    echo $(((cpu[1] - cpu[0]) / (requests - small)))
}

declare -A results
cpus=$(nproc)
for ((round = 1; round <= rounds; round++)); do
    echo "bench-hops: round $round of $rounds" >&2
    for mode in "${modes[@]}"; do
        IFS='|' read -r label binary flags <<<"$mode"
        results["$label|all"]+="$(measure "" "$binary" "$flags") "
        results["$label|one"]+="$(measure "taskset -c $((cpus - 1))" "$binary" "$flags") "
    done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
raw_all=$(median "${results["reused blocking easy handle|all"]}")
raw_one=$(median "${results["reused blocking easy handle|one"]}")

version_name=$([[ $version == h1 ]] && echo "HTTP/1.1" || echo "HTTP/2")
echo
echo "Sequential $version_name, CPU time per request (user + system, every thread), median of $rounds alternating rounds of $requests requests; $(git -C "$here" rev-parse --short HEAD), release build."
echo
echo "| caller | every CPU | pinned to one CPU | every CPU, against the easy handle | one CPU, against the easy handle |"
echo "| --- | ---: | ---: | ---: | ---: |"
for mode in "${modes[@]}"; do
    IFS='|' read -r label _ _ <<<"$mode"
    all=$(median "${results["$label|all"]}")
    one=$(median "${results["$label|one"]}")
    echo "| $label | $all µs | $one µs | $(awk -v a="$all" -v b="$raw_all" 'BEGIN {printf "%.2fx", a / b}') | $(awk -v a="$one" -v b="$raw_one" 'BEGIN {printf "%.2fx", a / b}') |"
done
