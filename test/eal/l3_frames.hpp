// Frames for router mode's EAL tests, built from test/unit/packet_bytes.hpp:
// UDP over IPv4 (options, fragment bits) or IPv6 behind Ethernet and any
// number of 802.1Q/802.1ad tags, ARP and neighbour solicitations; and the
// frame a router must send for a routed one, computed independently of
// lib/core (full checksum recompute, tag taken off).
#pragma once

#include <cstdint>
#include <vector>

#include "../unit/packet_bytes.hpp"

namespace pmdfwd::test {

using packet_bytes::Bytes;

// The Ethernet header: addresses and the tags in front of the ethertype,
// each TPID << 16 | TCI.
struct L2 {
    MacAddr dst;
    MacAddr src;
    std::vector<uint32_t> tags;
};

inline Bytes frame(const L2& l2, uint16_t ethertype, const Bytes& l3) {
    Bytes f(l2.dst.bytes.begin(), l2.dst.bytes.end());
    f.insert(f.end(), l2.src.bytes.begin(), l2.src.bytes.end());
    for (const uint32_t tag : l2.tags)
        f.insert(f.end(),
                 {uint8_t(tag >> 24), uint8_t(tag >> 16), uint8_t(tag >> 8), uint8_t(tag)});
    f.insert(f.end(), {uint8_t(ethertype >> 8), uint8_t(ethertype)});
    return packet_bytes::concat(f, l3);
}

// A UDP datagram whose payload is stamped with seq (so that frames differ).
inline Bytes udp(uint32_t seq, size_t payload_len) {
    Bytes u(8 + payload_len, 0);
    packet_bytes::put16(u, 0, uint16_t(40000 + seq % 1000));
    packet_bytes::put16(u, 2, 9);  // discard
    packet_bytes::put16(u, 4, uint16_t(u.size()));
    for (size_t i = 0; i < payload_len; ++i) u[8 + i] = uint8_t(seq * 7 + i);
    for (size_t i = 0; i < 4 && i < payload_len; ++i) u[8 + i] = uint8_t(seq >> (24 - 8 * i));
    return u;  // checksum 0: none (IPv4); a router reads no UDP header
}

struct V4 {
    Ipv4Addr src{};
    Ipv4Addr dst{};
    uint8_t ttl = 64;
    size_t options = 0;  // bytes of NOP options (a multiple of 4, at most 40)
    uint16_t frag = 0;   // flags and fragment offset
    uint16_t id = 0x1234;
    size_t payload = 18;
    uint32_t seq = 0;
};

// Stores the IPv4 header checksum of ip (the header at its start).
inline void store_v4_checksum(Bytes& ip) {
    const size_t header_len = size_t(ip[0] & 0x0f) * 4;
    packet_bytes::put16(ip, 10, 0);
    packet_bytes::put16(ip, 10,
                        packet_bytes::reference_checksum(packet_bytes::slice(ip, 0, header_len)));
}

inline Bytes ipv4_udp(const V4& v) {
    Bytes ip = packet_bytes::ipv4(v.src, v.dst, 17, udp(v.seq, v.payload), v.ttl, v.options);
    packet_bytes::put16(ip, 4, v.id);
    packet_bytes::put16(ip, 6, v.frag);
    store_v4_checksum(ip);
    return ip;
}

struct V6 {
    IpAddress src{};
    IpAddress dst{};
    uint8_t hop_limit = 64;
    size_t payload = 18;
    uint32_t seq = 0;
};

inline Bytes ipv6_udp(const V6& v) {
    return packet_bytes::ipv6(v.src, v.dst, 17, udp(v.seq, v.payload), v.hop_limit);
}

// Ethernet/IPv4 ARP, 28 bytes, behind its header; padded to 60 bytes.
inline Bytes arp(const L2& l2, uint16_t op, const MacAddr& sha, Ipv4Addr spa, const MacAddr& tha,
                 Ipv4Addr tpa) {
    Bytes a = {0, 1, 8, 0, 6, 4, uint8_t(op >> 8), uint8_t(op)};
    const auto put_ip = [&](Ipv4Addr ip) {
        for (int i = 0; i < 4; ++i) a.push_back(uint8_t(ip.host_order >> (24 - 8 * i)));
    };
    a.insert(a.end(), sha.bytes.begin(), sha.bytes.end());
    put_ip(spa);
    a.insert(a.end(), tha.bytes.begin(), tha.bytes.end());
    put_ip(tpa);
    Bytes f = frame(l2, 0x0806, a);
    f.resize(f.size() < 60 ? 60 : f.size(), 0);
    return f;
}

// A neighbour solicitation (type 135) or advertisement (136, flags in the
// first byte after the checksum) with its link-layer address option.
inline Bytes nd(uint8_t type, uint8_t flags, const IpAddress& src, const IpAddress& dst,
                const IpAddress& target, const MacAddr& option_mac) {
    Bytes msg = {type, 0, 0, 0, flags, 0, 0, 0};
    msg.insert(msg.end(), target.bytes.begin(), target.bytes.end());
    msg.insert(msg.end(), {uint8_t(type == 135 ? 1 : 2), 1});
    msg.insert(msg.end(), option_mac.bytes.begin(), option_mac.bytes.end());
    return packet_bytes::ipv6(src, dst, 58, packet_bytes::icmpv6(src, dst, msg), 255);
}

// ff02::1:ffXX:XXXX and its 33:33 MAC.
inline IpAddress solicited_node(const IpAddress& a) {
    IpAddress g = packet_bytes::ip("ff02::1:ff00:0");
    g.bytes[13] = a.bytes[13];
    g.bytes[14] = a.bytes[14];
    g.bytes[15] = a.bytes[15];
    return g;
}

inline MacAddr multicast_mac(const IpAddress& group) {
    return MacAddr{
        {0x33, 0x33, group.bytes[12], group.bytes[13], group.bytes[14], group.bytes[15]}};
}

// What a router sends for `in`: the tag (if any) taken off, the MACs
// replaced, TTL or hop limit down by one and the IPv4 header checksum summed
// again in full.
inline Bytes routed(const Bytes& in, const MacAddr& dst, const MacAddr& src) {
    size_t l3 = 14;
    uint16_t type = packet_bytes::be16(in, 12);
    if (type == 0x8100 || type == 0x88a8) {
        l3 = 18;
        type = packet_bytes::be16(in, 16);
    }
    Bytes out = frame({dst, src, {}}, type, packet_bytes::slice(in, l3, in.size() - l3));
    if (type == 0x0800) {
        Bytes ip = packet_bytes::slice(out, 14, out.size() - 14);
        ip[8]--;
        store_v4_checksum(ip);
        out = packet_bytes::concat(packet_bytes::slice(out, 0, 14), ip);
    } else {
        out[14 + 7]--;
    }
    return out;
}

}  // namespace pmdfwd::test
