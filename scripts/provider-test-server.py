#!/usr/bin/env python3
"""A stand-in for the HTTPDNS provider APIs that have no real server on Debian, for the test suite.

Written from the vendors' public API documentation, not from their code:
  * JSON DoH (Google Public DNS "JSON API for DNS over HTTPS", Cloudflare "Using JSON"):
      GET /resolve?name=NAME&type=A|AAAA -> application/dns-json
      {"Status": RCODE, "TC": false, "Answer": [{"name","type","TTL","data"}], "Authority": [SOA]}
  * Alibaba Cloud EMAS HTTPDNS API:
      GET /{account}/d?host=NAME&query=4,6          -> {"host","ips","ipsv6","ttl","origin_ttl","client_ip"}
      GET /{account}/sign_d?host=&query=&t=T&s=S    S = md5("host-secret-T"), T a Unix time not yet past
      GET /{account}/resolve?host=a,b,c&query=4,6   (up to 5 names) -> {"dns":[{"host","ips","type","ttl"}]}
      GET /v2/d?id=&m=0&dn=&q=&cip=&v=1.0&exp=&s=   s = hex HMAC-SHA256(hex secret, sorted "k=v&..."),
          or m=1&enc=hex(IV || AES-CBC(key, JSON)) or m=2&enc=hex(IV12 || AES-GCM(key, JSON) || tag) -> {"code":"success","mode":"0|1","data":{...}|base64}
          (the Android SDK's ResolveHostHelper, SignService, AESEncryptService); cip=10.0.0.1 answers 127.0.0.2
      GET /{account}/ss?region=R[&n=N&t=T&s=S]      ("调度服务接口") S = hex HMAC-MD5(secret, "N-secret-T")
          -> {"service_ip":["127.0.0.1"],"service_ipv6":["::1"]}; account 400000: {"service_status":"disable"}
      ip=10.0.0.1 on d answers 127.0.0.2; account 300000 is served by a clock 2 h ahead (t/exp and Date);
      /skewed/... serves the same APIs under another base URL
      403 {"code":"InvalidAccount"|"InvalidSignature"|"SignatureExpired"} on bad credentials
  * Tencent Cloud HTTPDNS / DNSPod D+ ("HTTP 请求方式查询", "HTTPS 请求方式查询", "AES、DES 加密解密说明"):
      GET /d?dn=NAME[,NAME...]&ttl=1[&type=AAAA|addrs][&ip=ADDRESS][&token=T]
          -> "ip;ip,TTL" ("A-AAAA" for addrs, "0" for none; a batch: "NAME.:..." lines; empty: no record)
      GET /d?dn=HEX&id=KEYID&ttl=1&alg=des|aes[&ip=HEX]...
          des: HEX = hex(DES-ECB(key[:8], text)); aes: HEX = hex(IV || AES-CBC(key, IV, text)); the answer alike.
      ip=10.0.0.1 answers 127.0.0.2 for names with an IPv4 address (to see the parameter reach the server).
      DES and AES are done by the openssl command line tool (Python has no ciphers in its standard library).
Faults, by path prefix, for GET, POST, PUT, PATCH and DELETE: /fault/429/..., /fault/500/... answer that status;
/fault/garbage/... answers 200 with a body no API would send; /fault/oversized/... a 70,000-byte
application/dns-message (over the largest DNS message); /fault/hang/... never answers (the connection
stays open up to 60 s); /fault/truncate/... promises 1 MiB and closes after 64 KiB; /fault/400pieces
answers 400 with 1,200 bytes in two writes 50 ms apart. /fault/drop
reads the whole request, then closes the connection without answering; /fault/dropfirst?ID does so for
the first request for ID only, and answers any later one 200. /fault/statusline/HEX answers
200 with the status line "HTTP/1.1 200" and then the bytes HEX encodes (a reason phrase; none for a bare line). Every request is appended to --log
as one line "METHOD PATH?QUERY".

Usage: provider-test-server.py --port P --cert PEM --key KEY --log FILE [--account ID] [--secret S]
       [--key-id ID --aes-key KEY --des-key KEY --token T] [--owner-pid PID: exit when that process has]. Prints "ready" once listening.
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # Debian's python3-cryptography

ZONE = {
    # name: (ipv4, ipv6, ttl)
    "a.test": (["127.0.0.1"], ["::1"], 300),
    "b.test": (["127.0.0.1"], ["::1"], 300),
    "v4only.test": (["127.0.0.1"], [], 300),
    "ttl0.test": (["127.0.0.1"], [], 0),
    "nodata.test": ([], [], 300),
    "xn--bcher-kva.test": (["127.0.0.1"], [], 300),
}
SOA = {"name": "test.", "type": 6, "TTL": 3600, "data": "ns.test. hostmaster.test. 1 3600 600 86400 60"}


def aes(decrypt, key, iv, data):
    args = ["openssl", "enc", "-aes-%d-cbc" % (len(key) * 8), "-K", key.hex(), "-iv", iv.hex()]
    if decrypt:
        args.append("-d")
    return subprocess.run(args, input=data, stdout=subprocess.PIPE, check=True).stdout


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        # The TLS handshake runs on this connection's own thread, so a slow client never holds up accept().
        self.request.settimeout(30)
        self.request = self.server.context.wrap_socket(self.request, server_side=True)
        super().setup()

    # Account SKEWED_ACCOUNT is served by a clock two hours ahead: its t/exp are judged by that clock
    # and its Date header shows it, as for a client whose own clock is two hours behind.
    SKEWED_ACCOUNT = "300000"
    skew = 0

    def now(self):
        return time.time() + self.skew

    def date_time_string(self, timestamp=None):
        return super().date_time_string(self.now() if timestamp is None else timestamp)

    def send(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_request_line(self, method):
        with self.server.log_lock, open(self.server.options.log, "a") as log:
            log.write("%s %s\n" % (method, self.path))

    def fault(self, name):
        if name == "garbage":
            return self.send(200, "<html>captive portal</html>", "text/html")
        if name == "oversized":
            return self.send(200, b"\0" * 70000, "application/dns-message")
        if name == "hang":
            # Hold the connection without a byte of answer until the client gives up (or 60 s).
            self.close_connection = True
            self.request.settimeout(60)
            try:
                while self.request.recv(1):
                    pass
            except OSError:
                pass
            return
        if name == "truncate":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            self.wfile.write(b"x" * 65536)
            self.wfile.flush()
            self.close_connection = True
            return
        if name == "400pieces":
            # An HTTP 400 page of 1,200 bytes written in two pieces 50 ms apart (over TLS: two records),
            # so a client that holds back a short 400 body sees it grow past what it holds.
            self.send_response(400)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "1200")
            self.end_headers()
            for piece in (b"a" * 600, b"b" * 600):
                self.wfile.write(piece)
                self.wfile.flush()
                time.sleep(0.05)
            return
        if name == "drop":
            self.close_connection = True
            return
        if name == "dropfirst":
            # /fault/dropfirst?ID: the first request for ID is dropped as /fault/drop; any later one
            # (the client's resend) answers 200 "ok".
            with self.server.log_lock:
                first = self.path not in self.server.dropped
                self.server.dropped.add(self.path)
            if first:
                self.close_connection = True
                return
            return self.send(200, "ok\n", "text/plain")
        if name == "interim":
            # /fault/interim: a 103 (Early Hints, RFC 8297) with fields of its own before the final
            # response, on one connection, written raw.
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nX-Interim: yes\r\n\r\n"
                             b"HTTP/1.1 200 OK\r\nX-Final: yes\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
            self.wfile.flush()
            self.close_connection = True
            return
        if name == "statusline":
            # /fault/statusline/HEX: the status line "HTTP/1.1 200" followed by the bytes HEX encodes
            # (none: a bare line; "20": an empty reason phrase; a phrase in any encoding), written raw.
            parts = urllib.parse.urlsplit(self.path).path.split("/")
            tail = bytes.fromhex(parts[3] if len(parts) > 3 else "")
            self.wfile.write(b"HTTP/1.1 200" + tail + b"\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
            self.wfile.flush()
            self.close_connection = True
            return
        return self.send(int(name), '{"code":"Busy"}')

    def do_POST(self):
        self.log_request_line(self.command)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with self.server.log_lock, open(self.server.options.log, "a") as log:
            log.write("BODY %s %d\n" % (self.path, len(body)))
        parts = [p for p in urllib.parse.urlsplit(self.path).path.split("/") if p]
        if parts[:1] == ["fault"] and len(parts) >= 2:
            return self.fault(parts[1])
        self.send(405, '{"code":"MethodNotAllowed"}')

    do_PUT = do_PATCH = do_DELETE = do_POST

    def do_GET(self):
        self.skew = 0
        self.log_request_line("GET")
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        parts = [p for p in url.path.split("/") if p]
        if parts[:1] == ["fault"] and len(parts) >= 2:
            return self.fault(parts[1])
        if parts[:1] == ["skewed"]:
            # The same APIs under another base URL, so a client keeps what it learns of this
            # clock apart from the others.
            parts = parts[1:]
        if parts == ["resolve"] and "name" in query:
            return self.json_doh(query)
        if parts == ["d"]:
            return self.dnspod(query)
        if parts == ["v2", "d"]:
            return self.alibaba_v2(query)
        if len(parts) == 2 and parts[1] == "ss":
            return self.alibaba_schedule(parts[0], query)
        if len(parts) == 2 and parts[1] in ("d", "sign_d", "resolve", "sign_resolve"):
            return self.alibaba(parts[0], parts[1], query)
        self.send(404, '{"code":"NotFound"}')

    def json_doh(self, query):
        name = query["name"].rstrip(".").lower()
        rtype = {"A": 1, "1": 1, "AAAA": 28, "28": 28}.get(query.get("type", "A").upper())
        if name not in ZONE:
            return self.send(200, json.dumps({"Status": 3, "TC": False, "Authority": [SOA]}), "application/dns-json")
        v4, v6, ttl = ZONE[name]
        addresses = v4 if rtype == 1 else v6
        body = {"Status": 0, "TC": False, "Question": [{"name": name + ".", "type": rtype}],
                "Answer": [{"name": name + ".", "type": rtype, "TTL": ttl, "data": a} for a in addresses]}
        if not addresses:
            body["Authority"] = [SOA]
        self.send(200, json.dumps(body), "application/dns-json")

    def alibaba(self, account, api, query):
        options = self.server.options
        if account == self.SKEWED_ACCOUNT:
            self.skew = 7200
        elif account != options.account:
            return self.send(403, '{"code":"InvalidAccount"}')
        hosts = [h.lower() for h in query.get("host", "").split(",") if h]
        if not hosts:
            return self.send(400, '{"code":"MissingArgument"}')
        if api.startswith("sign_"):
            t = query.get("t", "")
            expected = hashlib.md5(("%s-%s-%s" % (query.get("host", ""), options.secret, t)).encode()).hexdigest()
            if not t.isdigit() or int(t) < self.now():
                return self.send(403, '{"code":"SignatureExpired"}')
            if query.get("s") != expected:
                return self.send(403, '{"code":"InvalidSignature"}')
        families = query.get("query", "4").split(",")
        if api.endswith("resolve"):
            if len(hosts) > 5:
                return self.send(400, '{"code":"TooManyHosts"}')
            dns = []
            for host in hosts:
                v4, v6, ttl = ZONE.get(host, ([], [], 60))
                if "4" in families:
                    dns.append({"host": host, "client_ip": "127.0.0.1", "ips": v4, "type": 1, "ttl": ttl, "origin_ttl": ttl})
                if "6" in families:
                    dns.append({"host": host, "client_ip": "127.0.0.1", "ips": v6, "type": 28, "ttl": ttl, "origin_ttl": ttl})
            return self.send(200, json.dumps({"dns": dns}))
        v4, v6, ttl = ZONE.get(hosts[0], ([], [], 60))
        client = query.get("ip", "127.0.0.1")
        if client == "10.0.0.1" and v4:
            v4 = ["127.0.0.2"]
        body = {"host": hosts[0], "ips": v4 if "4" in families else [], "ttl": ttl, "origin_ttl": ttl, "client_ip": client}
        if "6" in families:
            body["ipsv6"] = v6
        self.send(200, json.dumps(body))

    def alibaba_schedule(self, account, query):
        # Alibaba "调度服务接口" /{account}/ss?region=[&n=&t=&s=], s = hex HMAC-MD5 (key: the secret's text)
        # of "n-secret-t". Account 400000 answers service_status disable.
        options = self.server.options
        if account == "400000":
            return self.send(200, json.dumps({"service_status": "disable"}))
        if account != options.account:
            return self.send(403, '{"code":"InvalidAccount"}')
        if query.get("region") not in ("cn", "hk", "sg", "us", "de", "global"):
            return self.send(400, '{"code":"InvalidRegion"}')
        if "s" in query:
            n, t = query.get("n", ""), query.get("t", "")
            if not (8 <= len(n) <= 16 and all(c in "0123456789abcdefABCDEF" for c in n)) or not t.isdigit():
                return self.send(400, '{"code":"MissingArgument"}')
            if int(t) < self.now():
                return self.send(403, '{"code":"SignatureExpired"}')
            # The account's signing secret: the first API's or /v2/d's (one account, one console secret).
            expected = [hmac.new(key.encode(), ("%s-%s-%s" % (n, key, t)).encode(), hashlib.md5).hexdigest() for key in (options.secret, options.v2_secret)]
            if query["s"] not in expected:
                return self.send(403, '{"code":"InvalidSignature"}')
        self.send(200, json.dumps({"service_ip": ["127.0.0.1"], "service_ipv6": ["::1"], "service_status": "enable"}))

    def alibaba_v2(self, query):
        # Alibaba "域名解析接口" /v2/d, as the Android SDK sends it: id, m (0 plain, 1 AES-CBC enc, 2 AES-GCM enc),
        # dn, q, cip, sdns-*, v, exp, s = hex HMAC-SHA256 (hex-decoded secret) of the sorted signed
        # parameters "k=v&...". The answer: {"code","mode","data"}, data base64(IV + AES-CBC) in mode 1,
        # base64(12-byte IV + AES-GCM ciphertext + tag) in mode 2 (the SDK's AESEncryptService).
        options = self.server.options
        if query.get("id") == self.SKEWED_ACCOUNT:
            self.skew = 7200
        elif query.get("id") != options.account:
            return self.send(403, '{"code":"InvalidAccount"}')
        exp = query.get("exp", "")
        if not exp.isdigit() or int(exp) < self.now():
            return self.send(403, '{"code":"SignatureExpired"}')
        if "s" in query:
            signed = sorted((k, v) for k, v in query.items()
                            if (k in ("id", "m", "dn", "cip", "q", "enc", "exp", "tags", "v") or k.startswith("sdns-")) and v)
            content = "&".join("%s=%s" % item for item in signed)
            expected = hmac.new(bytes.fromhex(options.v2_secret), content.encode(), hashlib.sha256).hexdigest()
            if query["s"] != expected:
                return self.send(403, '{"code":"InvalidSignature"}')
        params = query
        key = bytes.fromhex(options.v2_aes_key)
        mode = query.get("m", "0")
        try:
            if mode == "1":
                sealed = bytes.fromhex(query.get("enc", ""))
                params = json.loads(aes(True, key, sealed[:16], sealed[16:]))
            elif mode == "2":
                sealed = bytes.fromhex(query.get("enc", ""))
                params = json.loads(AESGCM(key).decrypt(sealed[:12], sealed[12:], None))
        except Exception:
            return self.send(400, '{"code":"MissingArgument"}')
        hosts = [h.lower() for h in params.get("dn", "").split(",") if h]
        if not hosts:
            return self.send(400, '{"code":"MissingArgument"}')
        if len(hosts) > 5:
            return self.send(400, '{"code":"TooManyHosts"}')
        families = (params.get("q") or "4").split(",")
        answers = []
        for host in hosts:
            v4, v6, ttl = ZONE.get(host, ([], [], 60))
            if params.get("cip") == "10.0.0.1" and v4:
                v4 = ["127.0.0.2"]
            answer = {"dn": host}
            if "4" in families:
                answer["v4"] = {"ips": v4, "ttl": ttl}
            if "6" in families:
                answer["v6"] = {"ips": v6, "ttl": ttl} if v6 else {"ips": [], "ttl": ttl, "no_ip_code": "RRNotExist"}
            answers.append(answer)
        data = {"cip": params.get("cip", "127.0.0.1"), "answers": answers}
        if mode == "1":
            iv = os.urandom(16)
            sealed = base64.b64encode(iv + aes(False, key, iv, json.dumps(data).encode())).decode()
            return self.send(200, json.dumps({"code": "success", "mode": "1", "data": sealed}))
        if mode == "2":
            iv = os.urandom(12)
            sealed = base64.b64encode(iv + AESGCM(key).encrypt(iv, json.dumps(data).encode(), None)).decode()
            return self.send(200, json.dumps({"code": "success", "mode": "2", "data": sealed}))
        self.send(200, json.dumps({"code": "success", "mode": "0", "data": data}))

    def dnspod(self, query):
        # Tencent Cloud HTTPDNS, "HTTP 请求方式查询" / "HTTPS 请求方式查询": dn (comma-separated for a batch
        # of up to 8), ttl=1, type=AAAA|addrs, ip=; with id= and alg=des|aes (des the default) dn and
        # ip are encrypted, and so is the answer; token= for the HTTPS entry. Always 200; an empty
        # answer for "no record".
        options = self.server.options
        alg = query.get("alg", "des") if "id" in query else None
        names, client = query.get("dn", ""), query.get("ip")
        if "token" in query and query["token"] != options.token:
            return self.send(200, "", "text/html")
        if alg is not None:
            if query.get("id") != options.key_id or alg not in ("des", "aes"):
                return self.send(200, "", "text/html")  # the service answers nothing for an unknown key
            try:
                names = self.tencent_cipher(alg, True, names).decode()
                if client:
                    client = self.tencent_cipher(alg, True, client).decode()
            except (ValueError, subprocess.CalledProcessError, UnicodeDecodeError):
                return self.send(200, "", "text/html")
        hosts = [h.lower() for h in names.split(",") if h]
        if len(hosts) > 8:
            return self.send(200, "", "text/html")
        kind = query.get("type", "").lower()
        with_ttl = query.get("ttl") == "1"

        def part(addresses, ttl):
            return (";".join(addresses) + ("," + str(ttl) if with_ttl else "")) if addresses else "0"

        lines = []
        for host in hosts:
            v4, v6, ttl = ZONE.get(host, ([], [], 0))
            if client == "10.0.0.1":
                v4 = ["127.0.0.2"] if v4 else v4  # the answer for that client subnet differs
            if kind == "addrs":
                text = part(v4, ttl) + "-" + part(v6, ttl)
            else:
                text = part(v6 if kind == "aaaa" else v4, ttl)
            lines.append((host + ".:" + text) if len(hosts) > 1 else text)
        text = "\n".join(lines)
        if len(hosts) == 1 and text in ("0", "0-0"):
            text = ""
        if alg is not None and text:
            text = self.tencent_cipher(alg, False, text).hex()
        self.send(200, text, "text/html")

    def tencent_cipher(self, alg, decrypt, data):
        """alg=des: DES-ECB under the key's first 8 bytes, hex; alg=aes: hex of IV + AES-CBC."""
        options = self.server.options
        if alg == "des":
            key = options.des_key.encode()[:8]
            args = ["openssl", "enc", "-des-ecb", "-K", key.hex(), "-nosalt", "-provider", "legacy", "-provider", "default"]
            if decrypt:
                return subprocess.run(args + ["-d"], input=bytes.fromhex(data), stdout=subprocess.PIPE, check=True).stdout
            return subprocess.run(args, input=data.encode(), stdout=subprocess.PIPE, check=True).stdout
        key = options.aes_key.encode()
        if decrypt:
            sealed = bytes.fromhex(data)
            return aes(True, key, sealed[:16], sealed[16:])
        iv = os.urandom(16)
        return iv + aes(False, key, iv, data.encode())


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--account", default="100000")
    parser.add_argument("--secret", default="test-secret")
    parser.add_argument("--key-id", default="42")
    parser.add_argument("--aes-key", default="0123456789abcdef")
    parser.add_argument("--des-key", default="dnspodpass")
    parser.add_argument("--v2-secret", default="00112233445566778899aabbccddeeff")
    parser.add_argument("--v2-aes-key", default="000102030405060708090a0b0c0d0e0f")
    parser.add_argument("--token", default="711886787")
    parser.add_argument("--owner-pid", type=int, default=0)
    options = parser.parse_args()
    if options.owner_pid:
        # Exit with the test process, however it ends.
        def watch():
            while True:
                try:
                    os.kill(options.owner_pid, 0)
                except OSError:
                    os._exit(0)
                time.sleep(1)
        threading.Thread(target=watch, daemon=True).start()
    server = Server(("127.0.0.1", options.port), Handler)
    server.options = options
    server.log_lock = threading.Lock()
    server.dropped = set()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(options.cert, options.key)
    context.set_alpn_protocols(["http/1.1"])
    server.context = context
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
