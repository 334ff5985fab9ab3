#!/usr/bin/python3
"""Sends COUNT UDP datagrams from source port SPORT to DST:DPORT, payload
"TAG-<i>" for i in 0..COUNT-1, INTERVAL seconds apart (0: back to back)."""
import socket
import sys
import time


def main() -> int:
    dst, dport, sport, count, interval, tag = sys.argv[1:7]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("0.0.0.0", int(sport)))
    for i in range(int(count)):
        sock.sendto(f"{tag}-{i}".encode(), (dst, int(dport)))
        if float(interval) > 0:
            time.sleep(float(interval))
    return 0


if __name__ == "__main__":
    sys.exit(main())
