#!/usr/bin/env bash
# Installs the Debian packages httpdns builds and tests against, and only those that are missing.
# Idempotent and quick when everything is present: dpkg-query decides, apt-get runs only if needed.
set -euo pipefail

packages=(
    libcurl4-openssl-dev    # libcurl headers + pkg-config file for the CCurl system library
    libssl-dev              # OpenSSL headers for COpenSSL (trust evaluation)
    libidn2-dev             # IDNA (UTS #46, Punycode) for CIDN2: Unicode host names
    libsqlite3-dev          # SQLite headers + pkg-config file for CSQLite: the resolver's cache file
    nginx-light             # nginx with http_ssl + http_v2 (on bookworm it pulls in `nginx` itself)
    libnginx-mod-http-echo  # echo_request_body / echo_sleep for /echo and /slow
    unbound                 # DNS-over-HTTPS server (built with libnghttp2 on bookworm)
    openssl                 # CLI that makes the test PKI
    curl                    # used by tests and the README demo as a reference client
    python3                 # picks free ports in scripts/test-servers.sh
    python3-cryptography    # AES-GCM in the vendor test server and in tests (openssl enc has no AEAD)
    iproute2                # ss: test-servers.sh checks which process owns a port
    ldnsutils               # ldns-keygen / ldns-signzone / ldns-verify-zone: DNSSEC zones signed at test time
    dns-root-data           # /usr/share/dns/root.ds: the root trust anchor TrustAnchor.root() reads
)

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != "installed" ]]; then
        missing+=("$package")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all packages present"
    exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps: missing packages: ${missing[*]}; run this script as root (or: sudo apt-get install ${missing[*]})" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}"

# Debian's maintainer scripts would start nginx on *:80 and unbound on :53 right after installing them.
# The tests run their own instances on loopback ports, so keep the system services from starting
# (exit 101 = "action forbidden", see invoke-rc.d(8)); only remove the policy file if we made it.
policy=/usr/sbin/policy-rc.d
if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done"
