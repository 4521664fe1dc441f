#!/usr/bin/env bash
# The Python peer of httpdns-bench's DoH workload: dnspython with httpx and h2 (for HTTP/2), installed
# from PyPI into a private virtual environment, never into the system Python.
#
# Usage: scripts/install-bench-deps.sh [VENV_DIR]
#   VENV_DIR defaults to $HTTPDNS_BENCH_VENV, else ~/.cache/httpdns-bench/venv. Prints the venv's
#   python path on success; a second run with everything installed asks nothing of PyPI.
set -euo pipefail

venv=${1:-${HTTPDNS_BENCH_VENV:-$HOME/.cache/httpdns-bench/venv}}
readonly venv
# Pinned so the peer's figures stay comparable across runs.
readonly packages=(dnspython==2.8.0 httpx==0.28.1 h2==4.3.0)

check() {
    "$venv/bin/python" - <<'PY' 2>/dev/null
import dns.version, httpx, h2
assert dns.version.MAJOR >= 2 and dns.version.MINOR >= 7
PY
}

if [[ -x $venv/bin/python ]] && check; then
    echo "$venv/bin/python"
    exit 0
fi
command -v python3 >/dev/null || { echo "install-bench-deps: python3 not found (scripts/install-deps.sh)" >&2; exit 1; }
python3 -m venv "$venv" >&2 || { echo "install-bench-deps: python3 -m venv failed: install python3-venv" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" >&2
check || { echo "install-bench-deps: dnspython, httpx or h2 did not import from $venv" >&2; exit 1; }
echo "$venv/bin/python"
