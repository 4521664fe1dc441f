#!/usr/bin/env bash
# The real servers that the integration tests and the README demo talk to, all on loopback:
#   nginx   - one TLS port (HTTP/1.1 + HTTP/2) with name-based virtual hosts chosen by SNI, and a plain-HTTP port;
#             and SVCB_PORT, the TLS port the HTTPS records under svc.test name (also on 127.0.0.51)
#   unbound - DNS-over-HTTPS (RFC 8484) at https://dns.test:DOH_PORT/dns-query, and plain DNS on DNS_PORT,
#             answering authoritatively for the zone "test." and refusing everything else
# plus a throw-away PKI whose root CA the clients are told to trust.
#
# Usage:
#   scripts/test-servers.sh start DIR   start both servers; writes and prints DIR/servers.env
#   scripts/test-servers.sh stop DIR    stop the servers recorded in DIR (safe to repeat)
#
# With TEST_SERVERS_OWNER_PID set, `start` also leaves a watchdog that stops the servers once that
# process has exited, so a test run that crashes before it can call `stop` does not leak them.
set -euo pipefail

readonly NGINX=/usr/sbin/nginx
readonly UNBOUND=/usr/sbin/unbound
readonly ECHO_MODULE=/usr/lib/nginx/modules/ngx_http_echo_module.so
readonly READY_TIMEOUT=10   # seconds to wait for each server to listen on its ports
readonly START_ATTEMPTS=3   # a port picked as free can be taken by someone else before we bind it

script=$(readlink -f "${BASH_SOURCE[0]}")
# shellcheck source=scripts/dnssec-zones.sh
source "$(dirname "$script")/dnssec-zones.sh"
readonly script

die() {
    echo "test-servers: $*" >&2
    exit 1
}

usage() {
    echo "usage: $0 start DIR | stop DIR" >&2
    exit 2
}

# Fails with the Debian package to install, never skips: a test run without its servers must fail.
require_tools() {
    [[ -x $NGINX ]] || die "nginx not found at $NGINX: install nginx-light (scripts/install-deps.sh)"
    [[ -f $ECHO_MODULE ]] || die "nginx echo module not found at $ECHO_MODULE: install libnginx-mod-http-echo (scripts/install-deps.sh)"
    [[ -x $UNBOUND ]] || die "unbound not found at $UNBOUND: install unbound (scripts/install-deps.sh)"
    command -v openssl >/dev/null || die "openssl not found: install openssl (scripts/install-deps.sh)"
    command -v python3 >/dev/null || die "python3 not found: install python3 (scripts/install-deps.sh)"
    command -v ss >/dev/null || die "ss not found: install iproute2 (scripts/install-deps.sh)"
}

# --- processes -----------------------------------------------------------------------------------

# True when PID is alive and its command line mentions DIR, so a recycled pid is never killed.
owned_by_dir() {
    local pid=$1 dir=$2
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$dir"
}

# Every server is started with setsid, so its pid is also its process group: killing the group
# takes nginx's workers along even if the master has to be killed hard.
kill_group() {
    local pid=$1 dir=$2 name=$3
    owned_by_dir "$pid" "$dir" || return 0
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 50; i++)); do
        owned_by_dir "$pid" "$dir" || return 0
        sleep 0.1
    done
    echo "test-servers: $name (pid $pid) ignored SIGTERM for 5 s; killing it" >&2
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
}

# Runs "$@" in the background in a session of its own (its pid is then its process group, see
# kill_group), with stdin from /dev/null, stdout and stderr to LOG, and none of the other descriptors
# this script inherited. That last part matters: Foundation's Process learns that a child exited when
# a socket it handed down reaches end of file, so a server holding that socket would keep a Swift
# caller waiting for this script until the server stops.
spawn_detached() {
    local log=$1
    shift
    (
        for fd in /proc/"$BASHPID"/fd/*; do
            fd=${fd##*/}
            if ((fd > 2)); then eval "exec $fd>&-"; fi
        done
        exec setsid "$@" </dev/null >>"$log" 2>&1
    ) &
}

stop_servers() {
    local dir=$1 file pid
    for file in watchdog.pid nginx.pid unbound.pid; do
        [[ -f $dir/$file ]] || continue
        pid=$(<"$dir/$file")
        # The watchdog stops the servers itself through this function; it must not kill itself.
        if [[ $pid != "$$" ]]; then
            kill_group "$pid" "$dir" "${file%.pid}"
        fi
        rm -f "$dir/$file"
    done
}

# --- ports ---------------------------------------------------------------------------------------

# Prints "IPV6 PORT..." : whether ::1 can be bound, then COUNT distinct ports that are free for TCP
# on 127.0.0.1 (and ::1 when available) and for UDP on 127.0.0.1. All sockets stay open until every
# port is chosen, so the ports differ from each other.
pick_ports() {
    python3 - "$1" <<'PY'
import socket, sys

count = int(sys.argv[1])
try:
    probe = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    probe.bind(("::1", 0))
    probe.close()
    ipv6 = True
except OSError:
    ipv6 = False

held, ports = [], []
while len(ports) < count:
    first = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    first.bind(("127.0.0.1", 0))
    port = first.getsockname()[1]
    group = [first]
    try:
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        group.append(udp)
        udp.bind(("127.0.0.1", port))
        if ipv6:
            tcp6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            group.append(tcp6)
            tcp6.bind(("::1", port))
    except OSError:
        for s in group:
            s.close()
        continue
    held.extend(group)
    ports.append(port)
print(1 if ipv6 else 0, *ports)
PY
}

# True when PID itself listens on 127.0.0.1:PORT (TCP). Asking ss for the owner, rather than just
# connecting, keeps a port that someone else took meanwhile from passing for ours.
listens_on() {
    local pid=$1 port=$2
    ss -Hltnp "sport = :$port" 2>/dev/null | grep -F "127.0.0.1:$port " | grep -qF "pid=$pid,"
}

# Waits until PID listens on 127.0.0.1:PORT; fails with the log tail if PID dies first (nginx gives
# up on a port in use after about 2.5 s of retries) or the wait times out.
wait_for_port() {
    local name=$1 pid=$2 port=$3 log=$4
    local deadline=$((SECONDS + READY_TIMEOUT))
    until listens_on "$pid" "$port"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "test-servers: $name exited during start-up; last lines of $log:" >&2
            tail -n 20 "$log" >&2 || true
            return 1
        fi
        if ((SECONDS >= deadline)); then
            echo "test-servers: $name does not listen on 127.0.0.1:$port after ${READY_TIMEOUT}s; last lines of $log:" >&2
            tail -n 20 "$log" >&2 || true
            return 1
        fi
        sleep 0.05
    done
}

# --- PKI -----------------------------------------------------------------------------------------

# EC P-256 keys: generated in milliseconds (RSA would make every start noticeably slower).
new_key() {
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
    chmod 600 "$1"
}

# make_ca PREFIX "COMMON NAME": self-signed root PREFIX.pem with key PREFIX.key.
make_ca() {
    local prefix=$1 cn=$2
    new_key "$prefix.key"
    openssl req -new -x509 -key "$prefix.key" -out "$prefix.pem" -days 3650 -sha256 \
        -subj "/O=httpdns tests/CN=$cn" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -addext "subjectKeyIdentifier=hash"
}

# make_leaf CA_PREFIX OUT_PREFIX SAN [DAYS] [USAGE]: server certificate OUT_PREFIX.pem (key OUT_PREFIX.key) for the
# names in SAN ("DNS:a.test,DNS:www.a.test"), its CN the first of them, signed by CA_PREFIX.
# DAYS defaults to 365; -1 makes a certificate that is already expired. USAGE defaults to serverAuth.
make_leaf() {
    local ca=$1 out=$2 san=$3 days=${4:-365} usage=${5:-serverAuth}
    local cn=${san%%,*}
    cn=${cn#*:}
    new_key "$out.key"
    openssl req -new -key "$out.key" -subj "/O=httpdns tests/CN=$cn" -out "$out.csr"
    openssl x509 -req -in "$out.csr" -CA "$ca.pem" -CAkey "$ca.key" -out "$out.pem" \
        -set_serial "0x$(openssl rand -hex 16)" -days "$days" -sha256 \
        -extfile <(printf '%s\n' \
            "basicConstraints=critical,CA:FALSE" \
            "keyUsage=critical,digitalSignature" \
            "extendedKeyUsage=$usage" \
            "subjectAltName=$san" \
            "subjectKeyIdentifier=hash" \
            "authorityKeyIdentifier=keyid,issuer") 2>/dev/null
    rm -f "$out.csr"
}

make_pki() {
    local pki=$1
    rm -rf "$pki"
    mkdir -p "$pki"
    make_ca "$pki/ca" "httpdns Test Root CA"
    make_leaf "$pki/ca" "$pki/a.test" "DNS:a.test,DNS:www.a.test"
    make_leaf "$pki/ca" "$pki/b.test" "DNS:b.test"
    make_leaf "$pki/ca" "$pki/default.test" "DNS:default.test"
    make_leaf "$pki/ca" "$pki/other.test" "DNS:other.test"
    make_leaf "$pki/ca" "$pki/localhost" "DNS:localhost,IP:127.0.0.1,IP:::1"
    # The DoH server's certificate also names the plain resolver's address: RFC 9462 §4.2's check
    # for Discovery of Designated Resolvers.
    make_leaf "$pki/ca" "$pki/dns.test" "DNS:dns.test,IP:127.0.0.1"
    # The names under svc.test whose HTTPS records (RFC 9460) send clients to SVCB_PORT.
    make_leaf "$pki/ca" "$pki/svc.test" "DNS:svc.test,DNS:*.svc.test"
    # bücher.test as its IDNA A-label (RFC 3492), for Unicode host names end to end.
    make_leaf "$pki/ca" "$pki/xn--bcher-kva.test" "DNS:xn--bcher-kva.test"
    # A CA no client trusts, with a leaf that is right in every other way (not served yet).
    make_ca "$pki/other-ca" "httpdns Other CA"
    make_leaf "$pki/other-ca" "$pki/other-ca-a.test" "DNS:a.test,DNS:www.a.test"

    # Trust fixtures (issue 4): an expired leaf, a wildcard, a self-signed server, a host that
    # requires client certificates from a separate client CA.
    make_leaf "$pki/ca" "$pki/expired.test" "DNS:expired.test" -1
    make_leaf "$pki/ca" "$pki/wild.test" "DNS:*.wild.test"
    make_leaf "$pki/ca" "$pki/mtls.test" "DNS:mtls.test"
    new_key "$pki/self-signed.test.key"
    openssl req -new -x509 -key "$pki/self-signed.test.key" -out "$pki/self-signed.test.pem" -days 365 -sha256 \
        -subj "/O=httpdns tests/CN=self-signed.test" -addext "subjectAltName=DNS:self-signed.test" \
        -addext "basicConstraints=critical,CA:FALSE"
    make_client_identities "$pki"
}

# Client identities for mtls.test, all with the password/passphrase "secret":
#   client.pem/.key (PEM), client-encrypted.key (AES-256 PEM key), client.p12 (OpenSSL 3 default:
#   AES-256, PBKDF2), client-legacy.p12 (3DES/RC2, as older tools write), client-nokey.p12
#   (certificate only), client-expired.pem/.key, and untrusted-client.p12 from a CA nginx does not
#   accept.
make_client_identities() {
    local pki=$1
    make_ca "$pki/client-ca" "httpdns Client CA"
    make_leaf "$pki/client-ca" "$pki/client" "DNS:client.test" 365 clientAuth
    make_leaf "$pki/client-ca" "$pki/client-expired" "DNS:client.test" -1 clientAuth
    make_leaf "$pki/other-ca" "$pki/untrusted-client" "DNS:client.test" 365 clientAuth
    openssl pkey -in "$pki/client.key" -aes256 -passout pass:secret -out "$pki/client-encrypted.key"
    openssl pkcs12 -export -in "$pki/client.pem" -inkey "$pki/client.key" -certfile "$pki/client-ca.pem" \
        -out "$pki/client.p12" -passout pass:secret
    openssl pkcs12 -export -legacy -in "$pki/client.pem" -inkey "$pki/client.key" \
        -out "$pki/client-legacy.p12" -passout pass:secret
    openssl pkcs12 -export -nokeys -in "$pki/client.pem" -out "$pki/client-nokey.p12" -passout pass:secret
    openssl pkcs12 -export -in "$pki/untrusted-client.pem" -inkey "$pki/untrusted-client.key" \
        -out "$pki/untrusted-client.p12" -passout pass:secret
}

# --- nginx ---------------------------------------------------------------------------------------

# One server block: NAME is what X-Vhost and GET / report, SERVER_NAMES what nginx matches
# (SNI for the certificate, Host for the request), CERT the PKI file prefix it presents.
# EXTRA, optional, is more directives for the block.
nginx_server() {
    local name=$1 server_names=$2 cert=$3 default=$4 extra=${5:-}
    local listen
    for listen in "${listens[@]}"; do
        echo "        listen $listen:$HTTPS_PORT ssl http2${default:+ default_server};"
        echo "        listen $listen:$HTTP_PORT${default:+ default_server};"
    done
    cat <<EOF
        server_name $server_names;
        ssl_certificate     $PKI_DIR/$cert.pem;
        ssl_certificate_key $PKI_DIR/$cert.key;
$extra

        # "always": error responses (404, 500) carry them too.
        add_header X-Vhost "$name" always;
        add_header X-SNI "\$ssl_server_name" always;
        add_header X-Host "\$host" always;
        add_header X-Protocol "\$server_protocol" always;
        # Lets tests see whether requests shared a connection.
        add_header X-Connection "\$connection" always;
        add_header X-Connection-Requests "\$connection_requests" always;

        location = / { return 200 "vhost=$name\n"; }
        # echo_request_body only sees a body held in memory: client_body_buffer_size keeps up to
        # 64 MiB there instead of spilling it to a temporary file.
        location = /echo {
            client_max_body_size 100m;
            client_body_buffer_size 64m;
            echo_read_request_body;
            echo_request_body;
        }
        location = /status/400 { return 400 "status=400\n"; }
        # A 400 page longer than the 1 KiB a client holds back to recognise a client-certificate rejection.
        location = /status/400/long { return 400 "$(printf 'status=400 %.0s' $(seq 1 200))\n"; }
        location = /status/404 { return 404 "status=404\n"; }
        location = /status/500 { return 500 "status=500\n"; }
        location = /large { alias $WWW_DIR/large.bin; }
        location = /slow { echo_sleep 5; echo "slow"; }
        # Holds its connection long enough that a test's other request can time out first, even
        # under a sanitizer.
        location = /hold { echo_sleep 15; echo "held"; }
        # Long enough that requests of one burst overlap even on a loaded machine.
        location = /delay { echo_sleep 0.3; echo "delayed"; }
        # A gzip-compressed body when the request accepts it (Accept-Encoding), plain otherwise;
        # X-Accept-Encoding says what the request carried.
        location = /gzip {
            gzip on;
            gzip_min_length 1;
            gzip_types text/plain;
            default_type text/plain;
            add_header X-Accept-Encoding "\$http_accept_encoding" always;
            return 200 "$(printf 'compressible %.0s' $(seq 1 64))\n";
        }
        # The request's header block as received (HTTP/1.x).
        location = /headers { echo \$echo_client_request_headers; }
        # nginx closes the idle keep-alive connection a second after this response.
        location = /keepalive/short { keepalive_timeout 1s; return 200 "short\n"; }
        # A 401 offering Basic authentication, on a connection kept alive.
        location = /challenge { add_header WWW-Authenticate 'Basic realm="httpdns"' always; return 401 "challenge\n"; }
        # A 401 offering only Bearer (RFC 6750), which a client cannot answer with a user and password.
        location = /challenge/bearer { add_header WWW-Authenticate 'Bearer realm="api", error="invalid_token"' always; return 401 "bearer\n"; }
        # Basic authentication for user alice, password wonderland (htpasswd): the user, then the
        # request body. echo, not return: return answers before the access phase checks the user.
        location = /basic {
            auth_basic "httpdns";
            auth_basic_user_file $dir/htpasswd;
            client_max_body_size 100m;
            client_body_buffer_size 64m;
            echo_read_request_body;
            echo "user=\$remote_user";
            echo_request_body;
        }
        # A collector: each request body POSTed under /collect/ goes to nginx-bodies.log, one line
        # "PATH BODY" (held in memory, logged as it came: a JSON body, such as a pin report, has no
        # raw line break).
        location ^~ /collect/ {
            client_body_buffer_size 1m;
            access_log $dir/nginx-bodies.log bodies;
            echo_read_request_body;
            echo "collected";
        }
$(nginx_http_semantics_locations)
EOF
}

# Locations for HTTP semantics across IP-direct (redirects, cookies, Host), on every virtual host.
nginx_http_semantics_locations() {
    local code
    cat <<'EOF'
        # What the request carried, then its body: method, Host field as sent (with port), cookies.
        location = /inspect {
            client_max_body_size 100m;
            client_body_buffer_size 64m;
            echo_read_request_body;
            echo "method=$request_method";
            echo "host=$http_host";
            echo "cookie=$http_cookie";
            echo_request_body;
        }
        location = /cookie/inspect { return 200 "cookie=$http_cookie\n"; }
        # add_header in a location replaces the server's, so X-Vhost is repeated.
        location = /cookie/set {
            add_header X-Vhost "$server_name" always;
            add_header Set-Cookie "site=$host; Path=/" always;
            add_header Set-Cookie "scoped=1; Path=/cookie" always;
            return 200 "set\n";
        }
        location = /cookie/redirect {
            absolute_redirect off;
            add_header Set-Cookie "hop=1; Path=/" always;
            return 302 /inspect;
        }
        location = /redirect/loop { absolute_redirect off; return 302 /redirect/loop; }
        location = /redirect/chain { absolute_redirect off; return 302 /redirect/307; }
        # The credentials and Referer a request carried (-u, -e), and redirects to them: on the
        # same origin, and to b.test.
        location = /credentials {
            echo "host=$host";
            echo "authorization=$http_authorization";
            echo "referer=$http_referer";
        }
        location = /redirect/credentials { absolute_redirect off; return 302 /credentials; }
        location = /redirect/credentials/b { return 302 https://b.test:$server_port/credentials; }
EOF
    # 128 MiB of zeros (a sparse file): streaming a body without holding it.
    echo "        location = /huge { alias $WWW_DIR/huge.bin; }"
    # /redirect/CODE: relative Location; /redirect/CODE/b: absolute, to b.test on the same port.
    # Bodies up to 100 MiB, so that a redirect (rather than 413) answers large uploads.
    for code in 301 302 303 307 308; do
        echo "        location = /redirect/$code { client_max_body_size 100m; absolute_redirect off; return $code /inspect; }"
        echo "        location = /redirect/$code/b { client_max_body_size 100m; return $code https://b.test:\$server_port/inspect; }"
    done
}

write_nginx_conf() {
    local dir=$1
    # 127.0.0.50 is the load tests' own address: only they connect to it, so they can count their sockets.
    local listens=(127.0.0.1 127.0.0.50)
    [[ $IPV6 == 1 ]] && listens+=("[::1]")
    {
        cat <<EOF
# Generated by scripts/test-servers.sh; rewritten at every start.
load_module $ECHO_MODULE;
daemon off;
master_process on;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log info;
EOF
        # A root master would switch its workers to "nobody", who cannot read a 0700 temp directory.
        if [[ $(id -u) -eq 0 ]]; then echo "user root;"; fi
        cat <<EOF
events { worker_connections 4096; }  # the load tests open 1,000 connections at once
http {
    default_type application/octet-stream;
    log_format tests '\$remote_addr [\$time_local] "\$request" \$status \$body_bytes_sent '
                     'sni=\$ssl_server_name host=\$host conn=\$connection reqs=\$connection_requests';
    access_log $dir/nginx-access.log tests;
    log_format bodies escape=none '\$request_uri \$request_body';
    # Keep every temporary file inside DIR instead of /var/lib/nginx.
    client_body_temp_path $dir/nginx-tmp/body;
    proxy_temp_path $dir/nginx-tmp/proxy;
    fastcgi_temp_path $dir/nginx-tmp/fastcgi;
    uwsgi_temp_path $dir/nginx-tmp/uwsgi;
    scgi_temp_path $dir/nginx-tmp/scgi;
    keepalive_requests 10000;
    keepalive_timeout 75s;
    ssl_protocols TLSv1.2 TLSv1.3;
    server_names_hash_bucket_size 64;

    # No SNI, or a name no other block claims (an IP literal, say): default.test.
    server {
$(nginx_server default.test default.test default.test yes)
    }
    server {
$(nginx_server a.test "a.test www.a.test" a.test "")
    }
    server {
$(nginx_server b.test b.test b.test "")
    }
    server {
$(nginx_server localhost localhost localhost "")
    }
    # Presents the other.test certificate, so a client that checks the name must refuse it.
    server {
$(nginx_server wrong.test wrong.test other.test "")
    }
    server {
$(nginx_server xn--bcher-kva.test xn--bcher-kva.test xn--bcher-kva.test "")
    }
    server {
$(nginx_server expired.test expired.test expired.test "")
    }
    server {
$(nginx_server self-signed.test self-signed.test self-signed.test "")
    }
    server {
$(nginx_server wild.test "*.wild.test" wild.test "")
    }
    # The port the HTTPS records under svc.test name (SVCB_PORT), on 127.0.0.1 and on 127.0.0.51,
    # the address of their hints (so a test sees whether a hint or the A answer was used).
    # X-Server-Port and X-Server-Address say where the connection arrived.
    server {
$(nginx_server svc.test "svc.test *.svc.test" svc.test "" "        listen 127.0.0.1:$SVCB_PORT ssl http2;
        listen 127.0.0.51:$SVCB_PORT ssl http2;
        add_header X-Server-Port \"\$server_port\" always;
        add_header X-Server-Address \"\$server_addr\" always;")
    }
    # Requires a client certificate from the client CA; without one (or with another) nginx
    # completes the handshake and answers 400.
    server {
$(nginx_server mtls.test mtls.test mtls.test "" "        ssl_verify_client on;
        ssl_client_certificate $PKI_DIR/client-ca.pem;
        add_header X-Client-Subject \"\$ssl_client_s_dn\" always;")
    }
}
EOF
    } >"$dir/nginx.conf"
}

start_nginx() {
    local dir=$1
    mkdir -p "$dir/nginx-tmp"
    # -e: nginx opens its error log before reading the config, so the default /var/log path must
    # be overridden on the command line. -p keeps relative paths inside DIR.
    : >"$dir/nginx.out"
    spawn_detached "$dir/nginx.out" "$NGINX" -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf"
    NGINX_PID=$!
    echo "$NGINX_PID" >"$dir/nginx.pid"
}

# --- unbound -------------------------------------------------------------------------------------

# The zone "test." that the DoH and DNS ports answer for. Any other name under test. is NXDOMAIN,
# with the SOA (negative TTL 60 s, RFC 2308) in the authority section.
write_zone() {
    cat >"$1/test.zone" <<'EOF'
$ORIGIN test.
test.         3600 IN SOA   ns.test. hostmaster.test. 1 3600 600 86400 60
a.test.        300 IN A     127.0.0.1
a.test.        300 IN AAAA  ::1
www.a.test.    120 IN CNAME a.test.
chain.test.    120 IN CNAME www.a.test.
b.test.        300 IN A     127.0.0.1
b.test.        300 IN AAAA  ::1
wrong.test.    300 IN A     127.0.0.1
dns.test.      300 IN A     127.0.0.1
v4only.test.   300 IN A     127.0.0.1
nodata.test.   300 IN TXT   "no addresses here"
ttl0.test.       0 IN A     127.0.0.1
xn--bcher-kva.test. 300 IN A 127.0.0.1
expired.test.  300 IN A     127.0.0.1
self-signed.test. 300 IN A  127.0.0.1
*.wild.test.   300 IN A     127.0.0.1
mtls.test.     300 IN A     127.0.0.1
; HTTPS records (RFC 9460): ServiceMode in priority order (listed out of it), AliasMode, ECH, an
; SVCB with dohpath (key7: unbound 1.17's parser has no name for it), and hostile ones in the
; generic form, which unbound serves as written (a port of one octet, mandatory naming an absent
; key, a compressed TargetName; keys out of order it would sort, duplicates it refuses).
svc.test.      300 IN A     127.0.0.1
svc.test.      300 IN HTTPS 2 alt.svc.test. alpn=http/1.1
svc.test.      300 IN HTTPS 1 . alpn=h2 port=8443 ipv4hint=127.0.0.1
alias.svc.test. 300 IN A    127.0.0.1
alias.svc.test. 300 IN HTTPS 0 svc.test.
loop.svc.test. 300 IN A     127.0.0.1
loop.svc.test. 300 IN HTTPS 0 loop2.svc.test.
loop2.svc.test. 300 IN HTTPS 0 loop.svc.test.
ech.svc.test.  300 IN A     127.0.0.1
ech.svc.test.  300 IN HTTPS 1 . alpn=h2,http/1.1 ech=AAT+DQAA ipv6hint=::1
doh.svc.test.  300 IN SVCB  1 dns.test. alpn=h2 key7=/dns-query{?dns}
bad.svc.test.  300 IN A     127.0.0.1
bad.svc.test.  300 IN TYPE65 \# 8 00010000030001bb
mandatory.svc.test. 300 IN A 127.0.0.1
mandatory.svc.test. 300 IN TYPE65 \# 9 000100000000020003
pointer.svc.test. 300 IN A  127.0.0.1
pointer.svc.test. 300 IN TYPE65 \# 4 0001c00c
EOF
    write_port_records >>"$1/test.zone"
}

# HTTPS records that send clients to nginx's SVCB_PORT (its svc.test block), for the client's use of
# them: port, ALPN (h2 only, http/1.1 only, h3 beside h2), a TargetName with a hint at 127.0.0.51
# (its A answer is 127.0.0.1), an upgrade of http://, ech, AliasMode to one of them; and hostile
# ones naming the same port, which a client must not use: port 0 (in the generic form) and an
# IPv4-mapped ipv6hint. (Keys out of order cannot be served: unbound sorts them.) dead.svc.test
# names port 9, where nothing listens: a client falls back to the origin's port. next.svc.test's
# first record names port 9 too, its second SVCB_PORT: a client tries the second.
write_port_records() {
    cat <<EOF
port.svc.test.     300 IN A     127.0.0.1
port.svc.test.     300 IN HTTPS 1 . alpn=h2 port=$SVCB_PORT
h1.svc.test.       300 IN A     127.0.0.1
h1.svc.test.       300 IN HTTPS 1 . alpn=http/1.1 port=$SVCB_PORT
h3.svc.test.       300 IN A     127.0.0.1
h3.svc.test.       300 IN HTTPS 1 . alpn=h3,h2 port=$SVCB_PORT
target.svc.test.   300 IN A     127.0.0.1
target.svc.test.   300 IN HTTPS 1 real.svc.test. alpn=h2 port=$SVCB_PORT ipv4hint=127.0.0.51
real.svc.test.     300 IN A     127.0.0.1
up.svc.test.       300 IN A     127.0.0.1
up.svc.test.       300 IN HTTPS 1 . port=$SVCB_PORT
echport.svc.test.  300 IN A     127.0.0.1
echport.svc.test.  300 IN HTTPS 1 . alpn=h2 port=$SVCB_PORT ech=AAT+DQAA
aliasport.svc.test. 300 IN A    127.0.0.1
aliasport.svc.test. 300 IN HTTPS 0 port.svc.test.
zero.svc.test.     300 IN A     127.0.0.1
zero.svc.test.     300 IN TYPE65 \# 9 000100000300020000
mapped.svc.test.   300 IN A     127.0.0.1
dead.svc.test.     300 IN A     127.0.0.1
dead.svc.test.     300 IN HTTPS 1 . alpn=h2 port=9
next.svc.test.     300 IN A     127.0.0.1
next.svc.test.     300 IN HTTPS 1 . alpn=h2 port=9
next.svc.test.     300 IN HTTPS 2 . alpn=http/1.1 port=$SVCB_PORT
mapped.svc.test.   300 IN HTTPS 1 . port=$SVCB_PORT ipv6hint=::ffff:127.0.0.1
EOF
}

write_unbound_conf() {
    local dir=$1
    write_zone "$dir"
    cat >"$dir/unbound.conf" <<EOF
# Generated by scripts/test-servers.sh; rewritten at every start.
server:
    verbosity: 1
    log-queries: yes
    use-syslog: no
    logfile: "$dir/unbound.log"
    chroot: ""
    username: ""
    directory: "$dir"
    pidfile: "$dir/unbound.pid"
    do-daemonize: no
    num-threads: 1
    # Two unbounds (other worktrees, other runs) must never share a port through SO_REUSEPORT.
    so-reuseport: no
    # The suite runs many clients at once; unbound's default of 10 TCP (and so DoH) connections
    # makes it drop the rest with a broken pipe.
    incoming-num-tcp: 512
    http-max-streams: 1000
    do-ip6: no
    interface: 127.0.0.1@$DNS_PORT
    interface: 127.0.0.1@$DOH_PORT
    https-port: $DOH_PORT
    http-endpoint: "/dns-query"
    tls-service-key: "$PKI_DIR/dns.test.key"
    tls-service-pem: "$PKI_DIR/dns.test.pem"
    access-control: 127.0.0.0/8 allow
    module-config: "iterator"
    # Everything outside test. is refused locally: no query may ever leave this machine.
    local-zone: "." refuse
    # test. is one of unbound's built-in NXDOMAIN zones (RFC 6761); "transparent" lets queries
    # through to the auth-zone below instead.
    local-zone: "test." transparent
    # Discovery of Designated Resolvers (RFC 9462): the plain resolver designates its DoH server
    # (dns.test, whose certificate names 127.0.0.1, found by its A record) and, first, a.test, whose
    # certificate does not name 127.0.0.1 and so must fail verification.
    local-zone: "resolver.arpa." static
    local-data: "_dns.resolver.arpa. 300 IN SVCB 1 a.test. alpn=h2 port=$HTTPS_PORT ipv4hint=127.0.0.1 key7=/dns-query{?dns}"
    local-data: "_dns.resolver.arpa. 300 IN SVCB 2 dns.test. alpn=h2 port=$DOH_PORT key7=/dns-query{?dns}"

# An auth-zone rather than local-data: local-data answers a CNAME alone, while an authoritative
# zone follows in-zone CNAME chains in one answer, as the recursive DoH servers in the wild do.
$(auth_zone_clause test "$dir/test.zone")

$(dnssec_auth_zones "$dir/dnssec")

remote-control:
    control-enable: no
EOF
}

start_unbound() {
    local dir=$1
    : >"$dir/unbound.out"
    spawn_detached "$dir/unbound.out" "$UNBOUND" -d -c "$dir/unbound.conf"
    UNBOUND_PID=$!
    echo "$UNBOUND_PID" >"$dir/unbound.pid"
}

# --- commands ------------------------------------------------------------------------------------

# Tries once with fresh ports. On failure the servers are stopped and the status is 2 when a port
# turned out to be in use (worth retrying), 1 otherwise.
start_once() {
    local dir=$1 picked
    picked=$(pick_ports 5)
    read -r IPV6 HTTPS_PORT HTTP_PORT DOH_PORT DNS_PORT SVCB_PORT <<<"$picked"

    write_nginx_conf "$dir"
    printf 'alice:{PLAIN}wonderland\n' >"$dir/htpasswd"
    write_unbound_conf "$dir"
    : >"$dir/nginx-error.log"
    : >"$dir/unbound.log"
    start_nginx "$dir"
    start_unbound "$dir"

    if wait_for_port nginx "$NGINX_PID" "$HTTPS_PORT" "$dir/nginx-error.log" &&
        wait_for_port nginx "$NGINX_PID" "$HTTP_PORT" "$dir/nginx-error.log" &&
        wait_for_port nginx "$NGINX_PID" "$SVCB_PORT" "$dir/nginx-error.log" &&
        wait_for_port unbound "$UNBOUND_PID" "$DOH_PORT" "$dir/unbound.log" &&
        wait_for_port unbound "$UNBOUND_PID" "$DNS_PORT" "$dir/unbound.log"; then
        return 0
    fi
    cat "$dir/nginx.out" "$dir/unbound.out" >&2 2>/dev/null || true
    stop_servers "$dir"
    # Only a port taken between picking and binding is worth another try.
    if grep -qs "in use" "$dir/nginx-error.log" "$dir/nginx.out" "$dir/unbound.log" "$dir/unbound.out"; then
        return 2
    fi
    return 1
}

write_env() {
    local dir=$1
    cat >"$dir/servers.env" <<EOF
TEST_SERVERS_DIR=$dir
HTTPS_PORT=$HTTPS_PORT
HTTP_PORT=$HTTP_PORT
DOH_PORT=$DOH_PORT
DOH_URL=https://dns.test:$DOH_PORT/dns-query
DOH_ADDRESS=127.0.0.1
DNS_PORT=$DNS_PORT
SVCB_PORT=$SVCB_PORT
CA_CERT=$PKI_DIR/ca.pem
OTHER_CA_CERT=$PKI_DIR/other-ca.pem
PKI_DIR=$PKI_DIR
WWW_DIR=$WWW_DIR
LARGE_FILE=$WWW_DIR/large.bin
HUGE_FILE=$WWW_DIR/huge.bin
NGINX_PID=$NGINX_PID
UNBOUND_PID=$UNBOUND_PID
NGINX_ERROR_LOG=$dir/nginx-error.log
NGINX_ACCESS_LOG=$dir/nginx-access.log
NGINX_BODY_LOG=$dir/nginx-bodies.log
UNBOUND_LOG=$dir/unbound.log
IPV6=$IPV6
CLIENT_CA_CERT=$PKI_DIR/client-ca.pem
CLIENT_CERT=$PKI_DIR/client.pem
CLIENT_KEY=$PKI_DIR/client.key
CLIENT_ENCRYPTED_KEY=$PKI_DIR/client-encrypted.key
CLIENT_P12=$PKI_DIR/client.p12
CLIENT_LEGACY_P12=$PKI_DIR/client-legacy.p12
CLIENT_NOKEY_P12=$PKI_DIR/client-nokey.p12
CLIENT_EXPIRED_CERT=$PKI_DIR/client-expired.pem
CLIENT_EXPIRED_KEY=$PKI_DIR/client-expired.key
UNTRUSTED_CLIENT_P12=$PKI_DIR/untrusted-client.p12
CLIENT_PASSWORD=secret
SELF_SIGNED_CERT=$PKI_DIR/self-signed.test.pem
EXPIRED_CERT=$PKI_DIR/expired.test.pem
DNSSEC_DIR=$dir/dnssec
DNSSEC_ANCHOR=$dir/dnssec/anchor.ds
EOF
}

cmd_start() {
    local dir=$1
    require_tools
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd -P)
    # The paths go unquoted into nginx.conf, unbound.conf and servers.env.
    [[ $dir =~ ^[A-Za-z0-9_./-]+$ ]] || die "DIR must be a path of letters, digits and _ . / - only: $dir"

    stop_servers "$dir" # stale servers from an earlier start in the same DIR
    rm -f "$dir/servers.env"

    PKI_DIR=$dir/pki
    WWW_DIR=$dir/www
    make_pki "$PKI_DIR"
    make_dnssec_zones "$dir/dnssec"
    mkdir -p "$WWW_DIR"
    head -c $((16 * 1024 * 1024)) /dev/urandom >"$WWW_DIR/large.bin"
    truncate -s $((128 * 1024 * 1024)) "$WWW_DIR/huge.bin"

    local attempt status
    for ((attempt = 1; ; attempt++)); do
        status=0
        start_once "$dir" || status=$?
        ((status == 0)) && break
        ((status == 2)) || die "servers did not start (logs in $dir)"
        ((attempt < START_ATTEMPTS)) || die "servers did not start after $START_ATTEMPTS attempts (logs in $dir)"
        echo "test-servers: a port was taken meanwhile; retrying with other ports" >&2
    done

    if [[ -n ${TEST_SERVERS_OWNER_PID:-} ]]; then
        spawn_detached "$dir/watchdog.log" "$script" watch "$dir" "$TEST_SERVERS_OWNER_PID"
        echo $! >"$dir/watchdog.pid"
    fi

    write_env "$dir"
    cat "$dir/servers.env"
}

cmd_stop() {
    local dir=$1
    [[ -d $dir ]] || return 0
    dir=$(cd "$dir" && pwd -P)
    stop_servers "$dir"
    rm -f "$dir/servers.env"
}

# Internal: stops DIR's servers once OWNER_PID has exited (see TEST_SERVERS_OWNER_PID).
# Prints PID's state letter and start time (fields 3 and 22 of /proc/PID/stat), or nothing once it
# is gone. The command name (field 2) may hold spaces, so fields are counted after its ")".
process_stat() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    stat=${stat##*) }
    read -r -a fields <<<"$stat"
    echo "${fields[0]} ${fields[19]}"
}

cmd_watch() {
    local dir=$1 owner=$2 started state
    started=$(process_stat "$owner")
    started=${started#* }
    # The owner counts as gone when /proc has no such process, when it is a zombie (its parent may
    # never reap it: PID 1 here is not always an init that does), or when its PID now belongs to a
    # process that started later (PID reuse). `kill -0` alone says yes to all three.
    while :; do
        state=$(process_stat "$owner")
        [[ -n $state && ${state%% *} != Z && ${state#* } == "$started" ]] || break
        sleep 1
    done
    echo "test-servers: owner $owner exited; stopping servers in $dir"
    stop_servers "$dir"
    rm -f "$dir/servers.env"
}

[[ $# -ge 2 ]] || usage
case $1 in
start) cmd_start "$2" ;;
stop) cmd_stop "$2" ;;
watch) [[ $# -eq 3 ]] || usage; cmd_watch "$2" "$3" ;;
*) usage ;;
esac
