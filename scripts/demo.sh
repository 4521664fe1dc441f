#!/usr/bin/env bash
# The main job, on real local servers: nginx serving several name-based HTTPS virtual hosts on one
# IP:port (certificate chosen by SNI) and unbound serving DNS-over-HTTPS. `httpdns fetch` resolves
# each name over DoH, connects to the resolved address, and gets the right virtual host with the
# certificate verified for the name. Then the naive way (IP in the URL plus a Host header) fails.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
echo "== building httpdns"
swift build --product httpdns 2>&1 | tail -n 1
bin="$(swift build --show-bin-path)/httpdns"

dir="$(mktemp -d /tmp/httpdns-demo.XXXXXX)"
trap 'scripts/test-servers.sh stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
echo "== starting nginx and unbound on loopback"
scripts/test-servers.sh start "$dir" >/dev/null
# shellcheck disable=SC1091
source "$dir/servers.env"

# The DoH server is reached through a bootstrap address, so no system DNS is involved, and its
# certificate (from the test CA) is verified for dns.test.
doh=(--doh-url "$DOH_URL" --resolve "dns.test:$DOH_PORT:127.0.0.1" --cacert "$CA_CERT")

run() {
    printf '\n$ httpdns'
    printf ' %q' "$@"
    printf '\n'

    set +e
    "$bin" "$@"
    local status=$?
    set -e
    echo "(exit $status)"
}

echo
echo "nginx https://*:$HTTPS_PORT (vhosts a.test, b.test, default.test), DoH $DOH_URL"
echo
echo "== resolving four names over DoH, one of which does not exist: expected to fail (exit 6)"
echo "   nope.test is NXDOMAIN; the other names' addresses are printed first."
run resolve "${doh[@]}" a.test b.test www.a.test nope.test
echo
echo "== IP-direct: each name resolved over DoH, the connection to its address, SNI, Host and the"
echo "   certificate check on the name; each virtual host answers with its own certificate"
run fetch -v "${doh[@]}" "https://a.test:$HTTPS_PORT/"
run fetch -v "${doh[@]}" --http1.1 "https://b.test:$HTTPS_PORT/"
run fetch -i "${doh[@]}" "https://www.a.test:$HTTPS_PORT/"
echo
echo "== the naive way, the IP in the URL and a Host header: expected to fail (exit 60)"
echo "   No SNI is sent, nginx answers with its default certificate, and it is checked against the IP."
run fetch -v -H "Host: a.test" --cacert "$CA_CERT" "https://127.0.0.1:$HTTPS_PORT/"
echo
echo "   What nginx presents to a client that sends no SNI (openssl s_client without -servername):"
openssl s_client -connect "127.0.0.1:$HTTPS_PORT" -noservername </dev/null 2>/dev/null | openssl x509 -noout -subject
echo
echo "== a certificate for another name, rejected even though DNS answered: expected to fail (exit 60)"
run fetch "${doh[@]}" "https://wrong.test:$HTTPS_PORT/"
echo
echo "== a name that does not exist (NXDOMAIN from DoH, no fallback to system DNS): expected to fail (exit 6)"
run fetch "${doh[@]}" "https://nope.test:$HTTPS_PORT/"
