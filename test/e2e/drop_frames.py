#!/usr/bin/python3
"""The drop capture's test frames: sends one frame of each kind the router
must drop out of IFACE (each marked by its own payload), and writes what it
sent as JSON lines {"reason": ..., "hex": ...}; or, with --check, reads a
pcapng written by `pmdctl drops` and checks each sent frame is in it once,
byte for byte, with its reason in the packet's comment.

Usage: drop_frames.py send IFACE ROUTER_MAC SRC DST_OTHER_SUBNET BCAST OUT.json
       drop_frames.py check SENT.json CAPTURE.pcapng COMMENTS.txt
"""
import json
import sys

from scapy.all import IP, UDP, Ether, IPOption, Raw, conf, rdpcap, sendp


def frames(router_mac, src, dst, bcast):
    eth = Ether(dst=router_mac)

    def udp(mark, **ip):
        fields = dict(src=src, dst=dst)
        fields.update(ip)
        return eth / IP(**fields) / UDP(sport=40000, dport=40002) / Raw(mark.encode())

    return [
        ("bad_header", udp("checksum", chksum=0x1234)),
        ("ttl_expired", udp("ttl", ttl=1)),
        ("no_route", udp("noroute", dst="10.99.0.5")),
        ("not_ip", eth / Raw(b"\x88\xb5not ip at all")),
        ("bad_source", udp("source", src="127.0.0.1")),
        ("bad_destination", udp("bcast", dst=bcast)),
        ("not_our_mac", Ether(dst="02:00:00:00:00:99") / IP(src=src, dst=dst) /
         UDP(sport=40000, dport=40002) / Raw(b"othermac")),
        ("bad_option", udp("option", options=[IPOption(b"\x94\x01")])),
    ]


def send(iface, router_mac, src, dst, bcast, out):
    conf.verb = 0
    sent = [(reason, bytes(f)) for reason, f in frames(router_mac, src, dst, bcast)]
    # not_ip: the EtherType is the Raw's first two bytes, after the MACs.
    sent = [(r, b[:12] + b[14:] if r == "not_ip" else b) for r, b in sent]
    with open(out, "w") as f:
        for reason, raw in sent:
            f.write(json.dumps({"reason": reason, "hex": raw.hex()}) + "\n")
    for _, raw in sent:
        sendp(raw, iface=iface)


def check(sent_file, capture, comments_file):
    sent = [json.loads(line) for line in open(sent_file)]
    packets = [bytes(p) for p in rdpcap(capture)]
    comments = open(comments_file).read().splitlines()
    if len(comments) != len(packets):
        print(f"{len(packets)} packets but {len(comments)} comments")
        return 1
    bad = 0
    for s in sent:
        raw = bytes.fromhex(s["hex"])
        where = [i for i, p in enumerate(packets) if p == raw]
        if len(where) != 1:
            print(f"{s['reason']}: in the capture {len(where)} times, not once")
            bad += 1
            continue
        comment = comments[where[0]]
        if not comment.startswith(f"reason {s['reason']}, worker "):
            print(f"{s['reason']}: its comment says '{comment}'")
            bad += 1
    print(f"{len(sent) - bad} of {len(sent)} sent frames captured once, byte for byte, with their "
          f"reason; {len(packets)} packets in the capture")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(*sys.argv[2:8])
    else:
        sys.exit(check(*sys.argv[2:5]))
