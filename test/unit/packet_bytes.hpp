// Bytes, addresses and a small frame builder for the control path's packet
// tests (ARP, neighbour discovery, ICMP). Checksums here are summed on their
// own, over one concatenated buffer, so that a test holds lib/core's
// checksums to an independent recompute.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ip_prefix.hpp"
#include "mac_addr.hpp"
#include "udp_frame.hpp"

namespace packet_bytes {

using Bytes = std::vector<uint8_t>;

// Literals: value() rather than REQUIRE, since test constants are made
// before Catch runs; a typo throws.
inline pmdfwd::MacAddr mac(const char* text) { return pmdfwd::MacAddr::parse(text).value(); }

// The two ends of the control path's packet tests.
inline const pmdfwd::MacAddr kRouterMac = mac("02:00:00:00:00:01");
inline const pmdfwd::MacAddr kHostMac = mac("02:00:00:00:00:02");

inline pmdfwd::IpAddress ip(const char* text) {
    std::string why;
    return pmdfwd::parse_ip_address(text, &why).value();
}

inline pmdfwd::Ipv4Addr ip4(const char* text) { return pmdfwd::Ipv4Addr::parse(text).value(); }

// "0a 1b ...", so that a failed comparison shows the bytes.
inline std::string hex(const Bytes& b) {
    std::string s;
    char two[4];
    for (size_t i = 0; i < b.size(); ++i) {
        std::snprintf(two, sizeof two, "%02x", b[i]);
        s += (i ? (i % 16 ? " " : "\n") : "") + std::string(two);
    }
    return s;
}

inline uint16_t be16(const Bytes& b, size_t at) { return uint16_t(b[at] << 8 | b[at + 1]); }

inline void put16(Bytes& b, size_t at, uint16_t v) {
    b[at] = uint8_t(v >> 8);
    b[at + 1] = uint8_t(v);
}

inline Bytes concat(Bytes a, const Bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

inline Bytes slice(const Bytes& b, size_t at, size_t len) {
    return Bytes(b.begin() + long(at), b.begin() + long(at + len));
}

// RFC 1071 the long way: one buffer, zero-padded to even, a 64-bit sum.
inline uint16_t reference_checksum(Bytes b) {
    if (b.size() % 2) b.push_back(0);
    uint64_t sum = 0;
    for (size_t i = 0; i < b.size(); i += 2) sum += uint64_t(b[i]) << 8 | b[i + 1];
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(~sum);
}

inline Bytes v6_pseudo_header(const pmdfwd::IpAddress& src, const pmdfwd::IpAddress& dst,
                              size_t len) {
    Bytes p(src.bytes.begin(), src.bytes.end());
    p.insert(p.end(), dst.bytes.begin(), dst.bytes.end());
    const Bytes tail = {
        uint8_t(len >> 24), uint8_t(len >> 16), uint8_t(len >> 8), uint8_t(len), 0, 0, 0, 58};
    return concat(p, tail);
}

// An ICMPv6 message with its checksum stored (over src, dst and message).
inline Bytes icmpv6(const pmdfwd::IpAddress& src, const pmdfwd::IpAddress& dst, Bytes message) {
    put16(message, 2, 0);
    put16(message, 2,
          reference_checksum(concat(v6_pseudo_header(src, dst, message.size()), message)));
    return message;
}

// An ICMP message with its checksum stored.
inline Bytes icmp(Bytes message) {
    put16(message, 2, 0);
    put16(message, 2, reference_checksum(message));
    return message;
}

inline Bytes ipv4(pmdfwd::Ipv4Addr src, pmdfwd::Ipv4Addr dst, uint8_t proto, const Bytes& payload,
                  uint8_t ttl = 64, size_t option_len = 0) {
    const size_t header_len = 20 + option_len;
    Bytes h(header_len, 1);  // options: NOPs
    h[0] = uint8_t(0x40 | header_len / 4);
    h[1] = 0;
    put16(h, 2, uint16_t(header_len + payload.size()));
    put16(h, 4, 0x1234);
    put16(h, 6, 0);
    h[8] = ttl;
    h[9] = proto;
    put16(h, 10, 0);
    for (int i = 0; i < 4; ++i) {
        h[12 + size_t(i)] = uint8_t(src.host_order >> (24 - 8 * i));
        h[16 + size_t(i)] = uint8_t(dst.host_order >> (24 - 8 * i));
    }
    put16(h, 10, reference_checksum(h));
    return concat(h, payload);
}

inline Bytes ipv6(const pmdfwd::IpAddress& src, const pmdfwd::IpAddress& dst, uint8_t next,
                  const Bytes& payload, uint8_t hop_limit = 64) {
    Bytes h(8, 0);
    h[0] = 0x60;
    put16(h, 4, uint16_t(payload.size()));
    h[6] = next;
    h[7] = hop_limit;
    h.insert(h.end(), src.bytes.begin(), src.bytes.end());
    h.insert(h.end(), dst.bytes.begin(), dst.bytes.end());
    return concat(h, payload);
}

inline Bytes ether(const pmdfwd::MacAddr& dst, const pmdfwd::MacAddr& src, uint16_t ethertype,
                   const Bytes& l3, std::optional<uint16_t> tci = std::nullopt) {
    Bytes f(dst.bytes.begin(), dst.bytes.end());
    f.insert(f.end(), src.bytes.begin(), src.bytes.end());
    if (tci) f.insert(f.end(), {0x81, 0x00, uint8_t(*tci >> 8), uint8_t(*tci)});
    f.insert(f.end(), {uint8_t(ethertype >> 8), uint8_t(ethertype)});
    return concat(f, l3);
}

// frame with an 802.1Q tag of tci put in after the MACs.
inline Bytes tagged(const Bytes& frame, uint16_t tci) {
    Bytes f = slice(frame, 0, 12);
    f.insert(f.end(), {0x81, 0x00, uint8_t(tci >> 8), uint8_t(tci)});
    return concat(f, slice(frame, 12, frame.size() - 12));
}

}  // namespace packet_bytes
