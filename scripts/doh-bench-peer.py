#!/usr/bin/env python3
"""The dnspython peer of httpdns-bench's DoH workload (run with the venv from install-bench-deps.sh).

Sends COUNT RFC 8484 queries for NAME (type A) to URL over one warm HTTP/2 connection, WIDTH in
flight (1: dns.query.https on an httpx.Client; more: dns.asyncquery.https on an httpx.AsyncClient
with WIDTH asyncio workers), connecting to BOOTSTRAP instead of resolving the URL's host and verifying
the server against CA. Prints the lookups per second. Every answer must be NOERROR with an A record.

usage: doh-bench-peer.py URL BOOTSTRAP CA NAME COUNT WIDTH [SECONDS] [--as-shipped] [--get]
SECONDS bounds the timed loop (default 60): fewer lookups are made if it runs out. The queries are
POSTs (dnspython's default), or GETs with --get (httpdns's default: RFC 8484 §4.1, `?dns=`).

dnspython's synchronous bootstrap connector opens its sockets without TCP_NODELAY, so each HTTP/2
request (HEADERS and DATA written apart) waits for the server's delayed ACK: about 20 lookups/s.
That measures Nagle's algorithm rather than the client, so the peer sets TCP_NODELAY through
dnspython's own socket factory hook (httpx's connector and asyncio set it too); --as-shipped leaves
the hook alone.
"""
import asyncio
import socket
import ssl
import sys
import time

import dns.asyncquery
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import httpx
from dns._asyncio_backend import _HTTPTransport as AsyncTransport


def socket_with_nodelay(af, kind, proto):
    sock = socket.socket(af, kind, proto)
    if kind == socket.SOCK_STREAM:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def check(response):
    if response.rcode() != dns.rcode.NOERROR or not any(r.rdtype == dns.rdatatype.A for r in response.answer):
        raise SystemExit(f"doh-bench-peer: unexpected answer:\n{response}")


def sequential(url, bootstrap, context, name, count, deadline, post):
    transport = dns.query._HTTPTransport(http1=False, http2=True, verify=context, bootstrap_address=bootstrap)
    with httpx.Client(http1=False, http2=True, verify=context, transport=transport) as session:
        check(dns.query.https(dns.message.make_query(name, "A"), url, session=session, timeout=10, post=post))  # warm
        start = time.perf_counter()
        done = 0
        while done < count and time.perf_counter() < deadline:
            check(dns.query.https(dns.message.make_query(name, "A"), url, session=session, timeout=10, post=post))
            done += 1
        return done / (time.perf_counter() - start)


async def concurrent(url, bootstrap, context, name, count, width, deadline, post):
    transport = AsyncTransport(http1=False, http2=True, verify=context, bootstrap_address=bootstrap)
    async with httpx.AsyncClient(http1=False, http2=True, verify=context, transport=transport) as session:
        check(await dns.asyncquery.https(dns.message.make_query(name, "A"), url, client=session, timeout=10, post=post))
        remaining = count
        done = 0

        async def worker():
            nonlocal remaining, done
            while remaining > 0 and time.perf_counter() < deadline:
                remaining -= 1
                check(await dns.asyncquery.https(dns.message.make_query(name, "A"), url, client=session, timeout=10, post=post))
                done += 1

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(width)))
        return done / (time.perf_counter() - start)


def main():
    arguments = [a for a in sys.argv[1:] if a not in ("--as-shipped", "--get")]
    post = "--get" not in sys.argv
    if len(arguments) not in (6, 7):
        raise SystemExit(__doc__)
    if "--as-shipped" not in sys.argv:
        dns.query.socket_factory = socket_with_nodelay
    url, bootstrap, ca, name = arguments[:4]
    count, width = int(arguments[4]), int(arguments[5])
    deadline = time.perf_counter() + (float(arguments[6]) if len(arguments) == 7 else 60)
    context = ssl.create_default_context(cafile=ca)
    if width == 1:
        rate = sequential(url, bootstrap, context, name, count, deadline, post)
    else:
        rate = asyncio.run(concurrent(url, bootstrap, context, name, count, width, deadline, post))
    print(f"{rate:.1f}")


if __name__ == "__main__":
    main()
