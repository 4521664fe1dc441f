#!/usr/bin/env python3
"""A minimal HTTP proxy for the test suite: CONNECT tunnels (https) and absolute-form GETs (http).

It resolves names itself from --map NAME=ADDRESS (the suite's names are not in any real DNS) and
logs each request line ("CONNECT a.test:443", "GET http://a.test/") to --log, so tests can check
that requests arrive by host name, not by address.

Usage: connect-proxy.py --port P --log FILE [--map NAME=ADDR ...] [--owner-pid PID]. Prints "ready".
"""
import argparse
import os
import select
import socket
import socketserver
import threading
import time


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        client = self.request
        client.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = client.recv(4096)
            if not chunk:
                return
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        line = head.split(b"\r\n")[0].decode("latin-1")
        with self.server.log_lock, open(self.server.options.log, "a") as log:
            log.write(line + "\n")
        method, target = line.split(" ")[:2]
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
        else:
            rest = data  # forward the request as is (absolute form) to the origin
            netloc = target.split("/")[2]
            host, port = (netloc.rsplit(":", 1) + ["80"])[:2]
        address = self.server.names.get(host.lower(), host)
        try:
            upstream = socket.create_connection((address, int(port)), timeout=10)
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        if method == "CONNECT":
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if rest:
            upstream.sendall(rest)
        sockets = [client, upstream]
        while True:
            readable, _, _ = select.select(sockets, [], [], 30)
            if not readable:
                break
            for sock in readable:
                chunk = sock.recv(65536)
                if not chunk:
                    upstream.close()
                    return
                (upstream if sock is client else client).sendall(chunk)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--map", action="append", default=[])
    parser.add_argument("--owner-pid", type=int, default=0)
    options = parser.parse_args()
    if options.owner_pid:
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
    server.names = dict(item.split("=", 1) for item in options.map)
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
