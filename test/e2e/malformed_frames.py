#!/usr/bin/python3
"""Sends a corpus of malformed and awkward frames out of one interface, for
the router e2e test: pmdfwd must count and drop (or answer) each, stay up,
and lose no mbuf. Prints how many frames of each kind it sent.

Usage: malformed_frames.py IFACE ROUTER_MAC ROUTER_IP PEER_IP ROUTER_IP6
"""
import random
import sys

from scapy.all import (ARP, ICMP, IP, UDP, Dot1Q, Ether, ICMPv6EchoRequest, ICMPv6ND_NA,
                       ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6, IPOption, Raw, conf, sendp)


def corpus(router_mac, router_ip, peer_ip, router_ip6):
    eth = Ether(dst=router_mac)
    good = eth / IP(src="10.52.0.2", dst=peer_ip, ttl=64) / UDP(sport=1, dport=9) / Raw(b"x" * 18)
    raw = bytes(good)
    ip_at = 14
    kinds = {}
    # Frames cut at every length up to a whole IPv4 + UDP header.
    kinds["runt"] = [raw[:n] for n in range(1, 42)]
    # IPv4 header fields a router must refuse.
    def patched(offset, value, fix_checksum=True):
        b = bytearray(raw)
        b[ip_at + offset] = value
        if fix_checksum:
            b[ip_at + 10:ip_at + 12] = b"\0\0"
            s = sum(int.from_bytes(b[ip_at + i:ip_at + i + 2], "big") for i in range(0, 20, 2))
            s = (s & 0xffff) + (s >> 16)
            s = (s & 0xffff) + (s >> 16)
            b[ip_at + 10:ip_at + 12] = (~s & 0xffff).to_bytes(2, "big")
        return bytes(b)
    kinds["bad_version"] = [patched(0, 0x65), patched(0, 0x05)]
    kinds["bad_ihl"] = [patched(0, 0x40 | i) for i in range(0, 5)] + [patched(0, 0x4f)]
    kinds["bad_length"] = [patched(2, 0xff), patched(3, 0x05) if raw[ip_at + 2] == 0 else raw]
    kinds["bad_checksum"] = [patched(10, raw[ip_at + 10] ^ 0xff, fix_checksum=False)]
    kinds["ttl"] = [bytes(eth / IP(src="10.52.0.2", dst=peer_ip, ttl=t) / UDP()) for t in (0, 1)]
    kinds["options"] = [bytes(eth / IP(src="10.52.0.2", dst=peer_ip,
                                       options=[IPOption(b"\x94\x04\x00\x00")]) / UDP())]
    kinds["fragments"] = [bytes(eth / IP(src="10.52.0.2", dst=peer_ip, flags="MF", frag=0) / Raw(b"a" * 16)),
                          bytes(eth / IP(src="10.52.0.2", dst=peer_ip, frag=2) / Raw(b"b" * 16))]
    kinds["vlan"] = [bytes(Ether(dst=router_mac) / Dot1Q(vlan=5) / IP(src="10.52.0.2", dst=peer_ip) / UDP()),
                     bytes(Ether(dst=router_mac) / Dot1Q(vlan=5) / Dot1Q(vlan=6) / IP(dst=peer_ip) / UDP())]
    kinds["not_ip"] = [bytes(Ether(dst=router_mac, type=t) / Raw(b"\0" * 46)) for t in (0x88cc, 0x9000, 0x0842)]
    kinds["broadcast"] = [bytes(Ether(dst="ff:ff:ff:ff:ff:ff") / IP(src="10.52.0.2", dst="10.52.0.255") / UDP())]
    kinds["arp"] = [bytes(Ether(dst="ff:ff:ff:ff:ff:ff") / ARP(op=op, pdst=router_ip)) for op in (3, 4, 9)] + \
                   [bytes(Ether(dst="ff:ff:ff:ff:ff:ff", type=0x0806) / Raw(b"\0\1\x08\0\6\4"))] + \
                   [bytes(Ether(dst="ff:ff:ff:ff:ff:ff") / ARP(hwlen=8, pdst=router_ip))]
    ns = Ether(dst=router_mac) / IPv6(src="2001:db8:52::2", dst=router_ip6, hlim=255) / \
        ICMPv6ND_NS(tgt=router_ip6) / ICMPv6NDOptSrcLLAddr(lladdr="02:00:00:00:00:99")
    nsb = bytearray(bytes(ns))
    nsb[-7] = 0  # option length 0
    kinds["nd"] = [bytes(nsb),
                   bytes(Ether(dst=router_mac) / IPv6(src="2001:db8:52::2", dst=router_ip6, hlim=64) /
                         ICMPv6ND_NS(tgt=router_ip6)),
                   bytes(Ether(dst=router_mac) / IPv6(src="2001:db8:52::2", dst=router_ip6, hlim=255) /
                         ICMPv6ND_NA(tgt="ff02::1"))]
    kinds["ipv6"] = [bytes(Ether(dst=router_mac) / IPv6(src="2001:db8:52::2", dst="2001:db8:52:2::2", hlim=h) / UDP())
                     for h in (0, 1)] + \
                    [bytes(Ether(dst=router_mac) / IPv6(src="2001:db8:52::2", dst="2001:db8:52:2::2", plen=500) / UDP())] + \
                    [bytes(Ether(dst=router_mac, type=0x86dd) / Raw(b"\x60" + b"\0" * 20))]
    echo = bytearray(bytes(Ether(dst=router_mac) / IP(src="10.52.0.2", dst=router_ip) / ICMP() / Raw(b"ping")))
    echo[-6] ^= 0xff  # ICMP checksum
    kinds["to_us"] = [bytes(echo),
                      bytes(Ether(dst=router_mac) / IP(src="10.52.0.2", dst=router_ip) / UDP(dport=33434)),
                      bytes(Ether(dst=router_mac) / IP(src="0.0.0.0", dst=router_ip) / ICMP()),
                      bytes(Ether(dst=router_mac) / IPv6(src="2001:db8:52::2", dst=router_ip6) /
                            ICMPv6EchoRequest(cksum=1))]
    # What is not the router's to route: another host's MAC, martian
    # sources, a directed broadcast, a malformed option.
    kinds["other_mac"] = [bytes(Ether(dst="02:00:00:00:00:99") / IP(src="10.52.0.2", dst=peer_ip) / UDP())]
    kinds["bad_source"] = [bytes(eth / IP(src=src, dst=peer_ip) / UDP())
                           for src in ("127.0.0.1", "224.0.0.9", router_ip)]
    directed = peer_ip.rsplit(".", 1)[0] + ".255"
    kinds["bad_destination"] = [bytes(eth / IP(src="10.52.0.2", dst=dst) / UDP())
                                for dst in (directed, "255.255.255.255", "239.1.2.3")]
    kinds["bad_option"] = [bytes(eth / IP(src="10.52.0.2", dst=peer_ip,
                                          options=[IPOption(b"\x07\x00\x00\x00")]) / UDP())]
    rnd = random.Random(7)
    kinds["random"] = [bytes(Ether(dst=router_mac, type=rnd.choice((0x0800, 0x86dd, 0x0806, 0x8100)))) +
                       bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 200))) for _ in range(300)]
    return kinds


def main():
    iface, router_mac, router_ip, peer_ip, router_ip6 = sys.argv[1:6]
    conf.verb = 0
    for kind, frames in corpus(router_mac, router_ip, peer_ip, router_ip6).items():
        sendp([Raw(f) for f in frames], iface=iface)
        print(kind, len(frames))


if __name__ == "__main__":
    main()
