// The flow a routed packet belongs to, as 32 bits: a hash of its addresses,
// its protocol and, for TCP, UDP and SCTP that is not a fragment, its
// ports. It picks one path of an equal-cost route, so that a flow keeps to
// one path. The workers compute it per packet and the control path again
// for a packet that waited for its neighbour (to resolve the path the
// worker chose), so both hash the same bytes the same way; the NIC's RSS
// hash, which only some ports give and each NIC computes its own way, is
// not used. Pure, inline, no DPDK.
#pragma once

#include <cstdint>
#include <cstring>

#include "wire_headers.hpp"

namespace pmdfwd {

namespace flow_hash_detail {

inline uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline uint32_t load32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// One word into the running hash (a multiply and a shift: every input bit
// reaches the high half, which fold() brings down).
inline uint64_t absorb(uint64_t h, uint64_t word) {
    h = (h ^ word) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

inline uint32_t fold(uint64_t h) { return uint32_t(h ^ (h >> 32)); }

inline bool has_ports(uint8_t proto) {
    return proto == kIpProtoTcp || proto == kIpProtoUdp || proto == kIpProtoSctp;
}

}  // namespace flow_hash_detail

// ip: an IPv4 header whose 20 bytes are there; len: the bytes from ip on
// in the first segment (the ports are read only when they are there).
inline uint32_t flow_hash_v4(const uint8_t* ip, uint32_t len) {
    using namespace flow_hash_detail;
    const Ipv4HeaderView h(ip);
    const uint32_t header_len = uint32_t(ip[0] & 0x0f) * 4;
    const uint8_t proto = h.next_proto_id();
    // A later fragment has no ports, so no fragment is hashed with them:
    // a flow's fragments keep together.
    uint64_t ports = 0;
    if (has_ports(proto) && !h.is_fragment() && len >= header_len + 4)
        ports = load32(ip + header_len);
    // The source and destination addresses, one word.
    const uint64_t x = absorb(proto, load64(ip + offsetof(Ipv4HeaderLayout, src_addr)));
    return fold(absorb(x, ports));
}

// ip: an IPv6 header whose 40 bytes are there; len as above. Ports are
// read only where the transport header follows the fixed one.
inline uint32_t flow_hash_v6(const uint8_t* ip, uint32_t len) {
    using namespace flow_hash_detail;
    const uint8_t proto = Ipv6HeaderView(ip).proto();
    uint64_t ports = 0;
    if (has_ports(proto) && len >= kIpv6HeaderLen + 4) ports = load32(ip + kIpv6HeaderLen);
    const uint8_t* src = ip + offsetof(Ipv6HeaderLayout, src_addr);  // and the destination
    uint64_t x = absorb(proto, load64(src));
    x = absorb(x, load64(src + 8));
    x = absorb(x, load64(src + 16));
    x = absorb(x, load64(src + 24));
    return fold(absorb(x, ports));
}

}  // namespace pmdfwd
