#!/usr/bin/python3
"""Write a capture of N IPv4/UDP flows, one 64-byte frame per flow, for the
net_pcap set-up of scripts/bench (replayed with infinite_rx=1).

The frame length is the mbuf data length DPDK sees (no FCS), the same 64 bytes
that net_null hands out, so every set-up forwards the same packet size.
Flows differ in source address and both UDP ports, as a traffic generator
sweeping a few hundred 5-tuples would.
"""
import argparse
import logging
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, IP, UDP, Raw, wrpcap  # noqa: E402


def frames(flows: int, size: int):
    for n in range(flows):
        i = n + 1  # 10.0.0.1 upwards
        hdr = (Ether(src="02:00:00:00:01:00", dst="02:00:00:00:00:00")
               / IP(src=f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}",
                    dst="192.0.2.1", ttl=64)
               / UDP(sport=1024 + n, dport=5000 + (n % 64)))
        pad = size - len(hdr)
        if pad < 0:
            sys.exit(f"frame size {size} is below the {len(hdr)}-byte headers")
        yield Ether(bytes(hdr / Raw(bytes(pad))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output")
    ap.add_argument("--flows", type=int, default=256)
    ap.add_argument("--size", type=int, default=64, help="frame bytes without FCS")
    a = ap.parse_args()
    pkts = list(frames(a.flows, a.size))
    wrpcap(a.output, pkts)
    print(f"{a.output}: {len(pkts)} flows, {a.size}-byte IPv4/UDP frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
