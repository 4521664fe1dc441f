#!/usr/bin/env python3
"""A plain-DNS server (RFC 1035 over UDP) that lies: the test suite points a mount namespace's
/etc/resolv.conf at it to exercise the real getaddrinfo path with a hijacked name.

Usage: lying-dns-server.py ADDRESS NAME=IPV4 [NAME=IPV4 ...]
Answers A queries for the given names with the given address (TTL 60), AAAA for them with no data,
and NXDOMAIN for every other name. Prints "ready" once bound; exits after 120 s or on SIGTERM.
"""
import socket
import struct
import sys
import threading
import os


def main():
    address = sys.argv[1]
    table = dict(item.split("=", 1) for item in sys.argv[2:])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((address, 53))
    print("ready", flush=True)
    threading.Timer(120, lambda: os._exit(0)).start()
    while True:
        data, peer = sock.recvfrom(4096)
        if len(data) < 12:
            continue
        ident, flags, qdcount = struct.unpack("!HHH", data[:6])
        offset, labels = 12, []
        while offset < len(data) and data[offset] != 0:
            length = data[offset]
            labels.append(data[offset + 1:offset + 1 + length].decode("ascii", "replace"))
            offset += 1 + length
        offset += 1
        qtype, qclass = struct.unpack("!HH", data[offset:offset + 4])
        question = data[12:offset + 4]
        name = ".".join(labels).lower()
        answers = b""
        rcode = 0
        if name not in table:
            rcode = 3
        elif qtype == 1:
            answers = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton(table[name])
        count = 1 if answers else 0
        header = struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1, count, 0, 0)
        sock.sendto(header + question + answers, peer)


if __name__ == "__main__":
    main()
