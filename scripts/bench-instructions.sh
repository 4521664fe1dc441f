#!/usr/bin/env bash
# Instructions and allocations per request of httpdns-bench's single-loop modes, counted by
# valgrind's callgrind: unlike times, they repeat on a shared, noisy machine.
#
# Usage: scripts/bench-instructions.sh [--package DIR] [--scratch-path DIR] [--requests N1,N2]
#                                      [--only TEXT] [--repeat R] [--top K] [--keep DIR]
#   --package DIR       the checkout whose benchmark to measure (default: this one); another
#                       checkout's bench is run with this checkout's servers and counting
#   --scratch-path DIR  its build directory (default: DIR/.build)
#   --requests N1,N2    the two request counts (default 500,4500)
#   --only TEXT         only the rows whose workload or caller contains TEXT ("HTTP/1.1")
#   --repeat R          measure each mode R times, print the median and the range (default 1;
#                       a mode's figure moves by up to about 2% between runs)
#   --top K             after the table, for each of this library's rows: its K most costly
#                       functions per request, inclusive and exclusive, and the cost by object file
#   --keep DIR          keep the callgrind.out files, the bench's output and the servers' logs in DIR
#
# Builds the benchmark (release), starts the test servers once (scripts/test-servers.sh; the bench
# finds them through HTTPDNS_TEST_SERVERS_DIR, as under valgrind it cannot start them) and runs each
# mode under callgrind at both counts. Start-up, warm-up and exit cost the same at both, so
# (Ir(N2) - Ir(N1)) / (N2 - N1) is the cost of one request; the same for calls to malloc, calloc,
# realloc, posix_memalign, aligned_alloc and memalign (scripts/callgrind-counts.py). Every thread is
# counted: the event loop's polling is part of a request's cost. Prints one markdown table. A mode
# the measured bench lacks (an older design's) gets a row saying so. With the defaults, about
# 8 minutes on the 2-core machine (each --repeat round as long again).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
package=$here
scratch=""
counts="500,4500"
only=""
repeat=1
top=0
keep=""

die() {
    echo "bench-instructions: $*" >&2
    exit 1
}

while (($#)); do
    case $1 in
        --package) package=$(cd "${2:?--package needs a directory}" && pwd); shift 2 ;;
        --scratch-path) scratch=${2:?--scratch-path needs a directory}; shift 2 ;;
        --requests) counts=${2:?--requests needs N1,N2}; shift 2 ;;
        --only) only=${2:?--only needs a text}; shift 2 ;;
        --repeat) repeat=${2:?--repeat needs a number}; shift 2 ;;
        --top) top=${2:?--top needs a number}; shift 2 ;;
        --keep) keep=${2:?--keep needs a directory}; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
[[ $counts =~ ^([0-9]+),([0-9]+)$ ]] || die "--requests takes N1,N2, got '$counts'"
n1=${BASH_REMATCH[1]}
n2=${BASH_REMATCH[2]}
((n1 > 0 && n2 > n1)) || die "--requests needs 0 < N1 < N2, got '$counts'"
[[ $top =~ ^[0-9]+$ ]] || die "--top takes a number, got '$top'"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat takes a positive number, got '$repeat'"
scratch=${scratch:-$package/.build}

for tool in valgrind callgrind_annotate gcc objcopy python3; do
    command -v "$tool" >/dev/null || die "$tool not found: install valgrind, gcc, binutils and python3 (apt-get install valgrind gcc binutils python3)"
done

# What is measured, read before the build: the tree may change while the runs go on.
commit=$(git -C "$package" rev-parse --short HEAD 2>/dev/null || echo "?")
[[ -z $(git -C "$package" status --porcelain --untracked-files=no 2>/dev/null) ]] || commit="$commit with uncommitted changes"
echo "bench-instructions: building httpdns-bench (release) in $package" >&2
swift build -c release --package-path "$package" --scratch-path "$scratch" --product httpdns-bench >&2
bench=$scratch/release/httpdns-bench
[[ -x $bench ]] || die "no benchmark at $bench after the build"

if [[ -n $keep ]]; then
    mkdir -p "$keep"
    work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/httpdns-callgrind.XXXXXX")
fi
servers=$work/servers
cleanup() {
    "$here/scripts/test-servers.sh" stop "$servers" >/dev/null 2>&1 || true
    [[ -n $keep ]] || rm -rf "$work"
}
trap cleanup EXIT

# valgrind 3.19 (Debian 12) gives up on the DWARF that Swift 6.3 writes ("Possibly corrupted
# debuginfo file"): run a copy without it. The symbol table stays, so functions keep their names.
objcopy --strip-debug "$bench" "$work/httpdns-bench"
# It also crashes when a program calls sigsuspend with its mask in read-only memory, as
# libdispatch's main thread does once an async main has started (valgrind writes into the mask):
# hand sigsuspend a copy on the stack.
cat >"$work/sigsuspend-copy.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
int sigsuspend(const sigset_t *mask) {
    static int (*next)(const sigset_t *);
    if (!next) next = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
    sigset_t copy = *mask;
    return next(&copy);
}
EOF
gcc -O2 -shared -fPIC -o "$work/sigsuspend-copy.so" "$work/sigsuspend-copy.c" -ldl

TEST_SERVERS_OWNER_PID=$$ "$here/scripts/test-servers.sh" start "$servers" >/dev/null

# An older bench lacks --on-executor, or takes it with --profile only.
help=$("$work/httpdns-bench" --help)
sequential_executor=""
concurrent_executor=""
if grep -q -- "--on-executor" <<<"$help"; then sequential_executor=1; fi
if grep -q -- "or --profile-concurrent" <<<"$help"; then concurrent_executor=1; fi

# workload | caller | the bench's flags (empty: the bench lacks the mode)
rows=()
for version in h1 h2; do
    name=$([[ $version == h1 ]] && echo "HTTP/1.1" || echo "HTTP/2")
    rows+=("sequential, $name|global executor|--profile $version")
    rows+=("sequential, $name|\`client.executor\`|${sequential_executor:+--profile $version --on-executor}")
    rows+=("sequential, $name|raw libcurl|--profile-raw $version")
    rows+=("16 concurrent, $name|global executor|--profile-concurrent $version")
    rows+=("16 concurrent, $name|\`client.executor\`|${concurrent_executor:+--profile-concurrent $version --on-executor}")
    rows+=("16 concurrent, $name|raw libcurl|--profile-raw-concurrent $version")
done

# Runs one mode at one count into $work/STEM.COUNT.*; prints "IR ALLOCATIONS TLS-CONNECTIONS".
measure() {
    local flags=$1 count=$2 stem=$3
    local out=$work/$stem.$count
    # shellcheck disable=SC2086 # the flags are words
    if ! HTTPDNS_TEST_SERVERS_DIR=$servers LD_PRELOAD=$work/sigsuspend-copy.so \
        valgrind --tool=callgrind --callgrind-out-file="$out.callgrind.out" \
        "$work/httpdns-bench" $flags --requests "$count" >"$out.txt" 2>"$out.valgrind.log"; then
        tail -20 "$out.valgrind.log" >&2
        die "httpdns-bench $flags --requests $count failed under callgrind (log above)"
    fi
    python3 "$here/scripts/callgrind-counts.py" counts "$out.callgrind.out"
}

# One mode at both counts into STEM; prints "IR-PER-REQUEST ALLOCATIONS-PER-REQUEST".
pair() {
    local flags=$1 stem=$2 first second attempt ir1 ir2 alloc1 alloc2 tls1 tls2
    first=$(measure "$flags" "$n1" "$stem")
    second=$(measure "$flags" "$n2" "$stem")
    # A TLS connection made in one run and not in the other (the 16-concurrent pool sometimes
    # opens 15 or 17) puts a handshake, 3 to 6 million instructions, into the difference: run
    # again, the shorter count first, until both made as many.
    for attempt in 1 2 3; do
        read -r _ _ tls1 <<<"$first"
        read -r _ _ tls2 <<<"$second"
        ((tls1 != tls2)) || break
        echo "bench-instructions: $tls1 TLS connections at $n1 requests, $tls2 at $n2; again" >&2
        if ((attempt == 2)); then second=$(measure "$flags" "$n2" "$stem"); else first=$(measure "$flags" "$n1" "$stem"); fi
    done
    read -r ir1 alloc1 tls1 <<<"$first"
    read -r ir2 alloc2 tls2 <<<"$second"
    ((tls1 == tls2)) || echo "$tls1 TLS connections at $n1 requests, $tls2 at $n2" >"$work/$stem.unmatched"
    python3 -c "print(($ir2 - $ir1) / ($n2 - $n1), ($alloc2 - $alloc1) / ($n2 - $n1))"
}

declare -A raw_ir raw_alloc
results=()
notes=()
started=$SECONDS
for row in "${rows[@]}"; do
    IFS='|' read -r workload caller flags <<<"$row"
    [[ -z $only || $workload == *"$only"* || $caller == *"$only"* ]] || continue
    if [[ -z $flags ]]; then
        results+=("$workload|$caller||||")
        continue
    fi
    slug=$(tr -c 'a-z0-9\n' '-' <<<"$flags" | sed 's/--*/-/g; s/^-//; s/-$//')
    figures=""
    for ((round = 1; round <= repeat; round++)); do
        echo "bench-instructions: $flags at $n1 and $n2 requests, round $round of $repeat ($((SECONDS - started)) s so far)" >&2
        figures+="$round $(pair "$flags" "$slug.$round")"$'\n'
        if [[ -f $work/$slug.$round.unmatched ]]; then
            notes+=("$workload, $caller, round $round: $(cat "$work/$slug.$round.unmatched"): the difference holds a handshake")
        fi
    done
    # The median round (its files serve --top), and the range over the rounds.
    read -r median ir alloc low high < <(python3 -c "
import sys
rows = sorted((float(ir), int(r), float(alloc)) for r, ir, alloc in (line.split() for line in sys.stdin.read().splitlines() if line.strip()))
allocs = sorted(row[2] for row in rows)
ir, r, _ = rows[(len(rows) - 1) // 2]
print(r, round(ir), f'{allocs[(len(allocs) - 1) // 2]:.1f}', round(rows[0][0]), round(rows[-1][0]))" <<<"$figures")
    if [[ $caller == "raw libcurl" ]]; then
        raw_ir[$workload]=$ir
        raw_alloc[$workload]=$alloc
    fi
    results+=("$workload|$caller|$ir|$alloc|$slug.$median|$low $high")
done

echo
echo "Callgrind ($(valgrind --version)), httpdns-bench of $commit, release build; per request: (count($n2) - count($n1)) / $((n2 - n1)), every thread$( ((repeat > 1)) && echo "; the median of $repeat rounds (instructions: the range in parentheses)")."
echo
echo "| workload | caller | instructions per request | allocations per request | ratio to raw libcurl (instructions, allocations) |"
echo "| --- | --- | ---: | ---: | --- |"
for result in "${results[@]}"; do
    IFS='|' read -r workload caller ir alloc _ range <<<"$result"
    if [[ -z $ir ]]; then
        echo "| $workload | $caller | not in this build | | |"
        continue
    fi
    ratio=""
    if [[ $caller != "raw libcurl" && -n ${raw_ir[$workload]:-} ]]; then
        ratio=$(python3 -c "print(f'{$ir / ${raw_ir[$workload]}:.2f}x, {$alloc / ${raw_alloc[$workload]}:.2f}x')")
    fi
    read -r low high <<<"$range"
    shown=$(python3 -c "print(f'{$ir:,}' + (f' ({$low:,} to {$high:,})' if $repeat > 1 else ''))")
    printf '| %s | %s | %s | %s | %s |\n' "$workload" "$caller" "$shown" "$alloc" "$ratio"
done
for note in "${notes[@]}"; do echo; echo "Note: $note."; done

if ((top > 0)); then
    for result in "${results[@]}"; do
        IFS='|' read -r workload caller ir _ stem _ <<<"$result"
        [[ -n $ir && $caller != "raw libcurl" ]] || continue
        echo
        echo "### $workload, $caller: where the instructions per request go$( ((repeat > 1)) && echo " (the median round)")"
        echo
        python3 "$here/scripts/callgrind-counts.py" top "$work/$stem.$n1.callgrind.out" "$n1" "$work/$stem.$n2.callgrind.out" "$n2" "$top"
    done
fi
echo "bench-instructions: done in $((SECONDS - started)) s${keep:+; files in $work}" >&2
