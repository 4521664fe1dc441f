#!/usr/bin/env python3
"""Per-request figures from two callgrind runs of one workload at two request counts.

Start-up, warm-up and exit cost the same at both counts, so (cost(N2) - cost(N1)) / (N2 - N1) is
the cost of one request. scripts/bench-instructions.sh runs the workloads; this reads the files.

  callgrind-counts.py counts FILE
      "IR ALLOCATIONS TLS": the run's instructions, its calls to malloc, calloc, realloc,
      posix_memalign, aligned_alloc and memalign, and its calls to SSL_new (one a TLS connection)
      (callgrind's call counts, every thread).
  callgrind-counts.py top FILE1 N1 FILE2 N2 K
      The K functions with the most inclusive instructions per request (callgrind_annotate
      --inclusive=yes at both counts, differenced; thread entry points and recursion cycles left
      out), the K with the most exclusive instructions per request, then the instructions per
      request by object file. Swift names are demangled when swift-demangle is found.
"""
import os
import re
import shutil
import subprocess
import sys

ALLOCATORS = ("malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign")
# "12,345 (1.23%)  file:function [object]" in callgrind_annotate's function list.
ROW = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)\s+\[(.*)\]\s*$")
# Where threads start: each holds a whole thread's cost and says nothing about where it goes.
THREAD_ENTRIES = {"start_thread", "clone", "clone3", "(below main)", "_dispatch_worker_thread", "_dispatch_worker_thread2",
                  "$s10Foundation13NSThreadStart33_643EAFDBA6441671515D9121EE76E49ELLySvSgADF",
                  "$s10Foundation13NSThreadStart33_643EAFDBA6441671515D9121EE76E49ELLySvSgADFTo",
                  "$s10Foundation6ThreadC4mainyyF"}


def counts(path):
    """Total Ir, allocator calls and SSL_new calls of one callgrind.out file (name compression resolved)."""
    names, callee, total, calls = {}, None, None, {}
    with open(path, errors="replace") as lines:
        for line in lines:
            if line.startswith(("fn=", "cfn=")):
                match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
                if match and match.group(2) is not None:
                    names[match.group(1)] = match.group(2)
                if line.startswith("cfn=") and match:
                    callee = names.get(match.group(1))
            elif line.startswith("calls="):
                calls[callee] = calls.get(callee, 0) + int(line[6:].split()[0])
            elif line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
    if total is None:
        sys.exit(f"callgrind-counts: no totals in {path} (did the run finish?)")
    return total, sum(calls.get(name, 0) for name in ALLOCATORS), calls.get("SSL_new", 0)


def annotate(path, inclusive):
    """{(function, object): Ir} from callgrind_annotate's list of every function."""
    output = subprocess.run(
        ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", "--auto=no", path],
        check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in output.splitlines():
        match = ROW.match(line)
        if match and match.group(2) != "PROGRAM TOTALS":
            function = match.group(2).split(":", 1)[-1]
            key = (function, os.path.basename(match.group(3)))
            rows[key] = rows.get(key, 0) + int(match.group(1).replace(",", ""))
    return rows


def demangle(names):
    tool = shutil.which("swift-demangle") or ("/opt/swift/usr/bin/swift-demangle" if os.path.exists("/opt/swift/usr/bin/swift-demangle") else None)
    if not tool or not names:
        return names
    result = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(names) + "\n", capture_output=True, text=True)
    lines = result.stdout.splitlines()
    if result.returncode != 0 or len(lines) != len(names):
        return names
    # --simplified drops which piece of an async function a symbol is: keep it, as the full
    # demangler names it ("TY1_": suspend resume partial function 1, "TQ0_": await resume 0).
    def part(mangled):
        match = re.search(r"T([YQ])(\d+)_$", mangled)
        return f" ({'suspend' if match.group(1) == 'Y' else 'await'} resume {match.group(2)})" if match else ""
    return [line + part(name) for line, name in zip(lines, names)]


def per_request(first, n1, second, n2):
    keys = set(first) | set(second)
    return {key: (second.get(key, 0) - first.get(key, 0)) / (n2 - n1) for key in keys}


def print_functions(kind, costs, k):
    """The k costliest functions of {(function, object): cost} as a markdown table."""
    rows = sorted(costs.items(), key=lambda item: -item[1])[:k]
    names = demangle([function for (function, _), _ in rows])
    print(f"| instructions per request ({kind}) | function | object |")
    print("| ---: | --- | --- |")
    for name, ((_, obj), cost) in zip(names, rows):
        print(f"| {cost:,.0f} | `{name[:160]}` | {obj} |")
    print()


def top(file1, n1, file2, n2, k):
    total = (counts(file2)[0] - counts(file1)[0]) / (n2 - n1)
    inclusive = per_request(annotate(file1, True), n1, annotate(file2, True), n2)
    # A function in a recursion cycle ("name'2") can be given more than the whole: leave it out.
    print_functions("inclusive", {key: cost for key, cost in inclusive.items() if key[0] not in THREAD_ENTRIES and cost <= total}, k)
    exclusive = per_request(annotate(file1, False), n1, annotate(file2, False), n2)
    print_functions("exclusive", exclusive, k)
    by_object = {}
    for (_, obj), cost in exclusive.items():
        by_object[obj] = by_object.get(obj, 0) + cost
    total = sum(by_object.values())
    print("| instructions per request | object |")
    print("| ---: | --- |")
    for obj, cost in sorted(by_object.items(), key=lambda item: -item[1]):
        if abs(cost) >= 0.005 * total:
            print(f"| {cost:,.0f} ({cost / total:.0%}) | {obj} |")


def main(argv):
    if len(argv) == 2 and argv[0] == "counts":
        print(*counts(argv[1]))
    elif len(argv) == 6 and argv[0] == "top":
        top(argv[1], int(argv[2]), argv[3], int(argv[4]), int(argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
