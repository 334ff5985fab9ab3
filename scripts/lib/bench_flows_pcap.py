#!/usr/bin/python3
"""Write a capture of N IPv4/UDP (or IPv6/UDP) flows, one 64-byte frame per
flow, for the net_pcap set-ups of scripts/bench (replayed with infinite_rx=1).

The frame length is the mbuf data length DPDK sees (no FCS), the same 64 bytes
that net_null hands out, so every set-up forwards the same packet size.
Flows differ in source address and both UDP ports, as a traffic generator
sweeping a few hundred 5-tuples would. By default every flow goes to one
destination (192.0.2.1: the patch and l2 comparisons look at no address);
--dst gives a template with {n}, the flow's index, so that the router
comparisons spread the flows over routes: "198.18.{n}.1" sends flow n into
198.18.n.0/24, "2001:2:0:{n:x}::1" (with --ipv6) into 2001:2:0:n::/64.
Router mode takes only frames to its port's own MAC: --dst-mac gives it
(net_pcap0's is 02:70:63:61:70:00).
"""
import argparse
import logging
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, IP, IPv6, UDP, Raw, wrpcap  # noqa: E402


def frames(flows: int, size: int, dst: str, ipv6: bool, dst_mac: str):
    for n in range(flows):
        i = n + 1  # 10.0.0.1 (or 2001:db8:10::1) upwards
        if ipv6:
            l3 = IPv6(src=f"2001:db8:10::{i:x}", dst=dst.format(n=n), hlim=64)
        else:
            l3 = IP(src=f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}",
                    dst=dst.format(n=n), ttl=64)
        hdr = (Ether(src="02:00:00:00:01:00", dst=dst_mac)
               / l3 / UDP(sport=1024 + n, dport=5000 + (n % 64)))
        pad = size - len(hdr)
        if pad < 0:
            sys.exit(f"frame size {size} is below the {len(hdr)}-byte headers")
        yield Ether(bytes(hdr / Raw(bytes(pad))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output")
    ap.add_argument("--flows", type=int, default=256)
    ap.add_argument("--size", type=int, default=64, help="frame bytes without FCS")
    ap.add_argument("--ipv6", action="store_true", help="IPv6/UDP frames instead of IPv4/UDP")
    ap.add_argument("--dst", help="destination address, or a template with {n} (the flow's "
                    "index, 0 up; {n:x} in hex); default 192.0.2.1, or 2001:db8::1 with --ipv6")
    ap.add_argument("--dst-mac", default="02:00:00:00:00:00",
                    help="the frames' Ethernet destination (l3: the receiving port's MAC)")
    a = ap.parse_args()
    dst = a.dst or ("2001:db8::1" if a.ipv6 else "192.0.2.1")
    pkts = list(frames(a.flows, a.size, dst, a.ipv6, a.dst_mac))
    wrpcap(a.output, pkts)
    family = "IPv6" if a.ipv6 else "IPv4"
    print(f"{a.output}: {len(pkts)} flows, {a.size}-byte {family}/UDP frames to {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
