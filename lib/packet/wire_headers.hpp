// The Ethernet, IPv4 and IPv6 headers a router reads, by field name: their
// wire layouts (each mirrors DPDK's rte_ether_hdr, rte_ipv4_hdr and
// rte_ipv6_hdr, checked in lib/router/fastpath/wire_headers_check.cpp) and views
// that read a field from the bytes a header starts at. Pure, no DPDK; a
// view is a pointer and its reads are the loads of plain offsets, so the
// workers use them per packet at no cost. The caller has checked that the
// header's bytes are there; multi-byte fields come in network order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pmdfwd {

// Byte arrays and fields at their natural alignment: no padding, so
// sizeof and offsetof are the wire's. Never read through these types (a
// frame's bytes are no such object): the views below read by offsetof.
struct EtherHeaderLayout {
    uint8_t dst_addr[6];
    uint8_t src_addr[6];
    uint16_t ether_type;
};
static_assert(sizeof(EtherHeaderLayout) == 14);

struct Ipv4HeaderLayout {  // RFC 791
    uint8_t version_ihl;
    uint8_t type_of_service;
    uint16_t total_length;
    uint16_t packet_id;
    uint16_t fragment_offset;
    uint8_t time_to_live;
    uint8_t next_proto_id;
    uint16_t hdr_checksum;
    uint32_t src_addr;
    uint32_t dst_addr;
};
static_assert(sizeof(Ipv4HeaderLayout) == 20);

struct Ipv6HeaderLayout {  // RFC 8200
    uint32_t vtc_flow;
    uint16_t payload_len;
    uint8_t proto;
    uint8_t hop_limits;
    uint8_t src_addr[16];
    uint8_t dst_addr[16];
};
static_assert(sizeof(Ipv6HeaderLayout) == 40);

constexpr uint32_t kIpv4HeaderLen = sizeof(Ipv4HeaderLayout);  // without options
constexpr uint32_t kIpv6HeaderLen = sizeof(Ipv6HeaderLayout);

constexpr uint8_t kIpProtoTcp = 6;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint8_t kIpProtoSctp = 132;
constexpr uint8_t kIpProtoIcmpv6 = 58;

namespace wire {

// A field of type T at `offset`, unaligned, as stored (network order).
template <typename T>
inline T load(const uint8_t* p, size_t offset) {
    T v;
    std::memcpy(&v, p + offset, sizeof v);
    return v;
}

// A 16-bit field in network order as a host-order number, widened to 64
// bits. On x86-64 a zero-extending load and a rotate of its low half: the
// compiler's byte swap there is followed by a second zero extension it
// does not see is needless, and a 32-bit result by a third where it is
// compared in 64 bits (an instruction a packet each on the router's plain
// paths, callgrind).
inline uint64_t load_be16(const uint8_t* p, size_t offset) {
#if defined(__x86_64__)
    using Half = uint16_t __attribute__((may_alias, aligned(1)));
    uint64_t v;
    asm("movzwl %[field], %k[v]\n\t"
        "rolw $8, %w[v]"
        : [v] "=r"(v)
        : [field] "m"(*reinterpret_cast<const Half*>(p + offset))
        : "cc");
    return v;
#else
    return uint64_t(p[offset]) << 8 | p[offset + 1];
#endif
}

}  // namespace wire

class EtherHeaderView {
  public:
    explicit EtherHeaderView(const uint8_t* p) : p_(p) {}
    const uint8_t* dst_addr() const { return p_ + offsetof(EtherHeaderLayout, dst_addr); }
    const uint8_t* src_addr() const { return p_ + offsetof(EtherHeaderLayout, src_addr); }
    uint16_t ether_type_be() const {
        return wire::load<uint16_t>(p_, offsetof(EtherHeaderLayout, ether_type));
    }
    // The EtherType and the two bytes behind it (an IPv4 header's version,
    // IHL and type of service) in one load, as stored.
    uint32_t ether_type_and_next2() const {
        return wire::load<uint32_t>(p_, offsetof(EtherHeaderLayout, ether_type));
    }

  private:
    const uint8_t* p_;
};

class Ipv4HeaderView {
  public:
    explicit Ipv4HeaderView(const uint8_t* p) : p_(p) {}
    uint16_t total_length_be() const {
        return wire::load<uint16_t>(p_, offsetof(Ipv4HeaderLayout, total_length));
    }
    uint32_t total_length() const {
        return uint32_t(wire::load_be16(p_, offsetof(Ipv4HeaderLayout, total_length)));
    }
    uint8_t time_to_live() const { return p_[offsetof(Ipv4HeaderLayout, time_to_live)]; }
    uint8_t next_proto_id() const { return p_[offsetof(Ipv4HeaderLayout, next_proto_id)]; }
    // More fragments set, or an offset: any fragment of a packet, not a
    // whole one.
    bool is_fragment() const {
        const uint8_t* f = p_ + offsetof(Ipv4HeaderLayout, fragment_offset);
        return ((f[0] << 8 | f[1]) & 0x3fff) != 0;
    }
    const uint8_t* src_addr() const { return p_ + offsetof(Ipv4HeaderLayout, src_addr); }
    const uint8_t* dst_addr() const { return p_ + offsetof(Ipv4HeaderLayout, dst_addr); }
    uint32_t dst_addr_be() const {
        return wire::load<uint32_t>(p_, offsetof(Ipv4HeaderLayout, dst_addr));
    }

  private:
    const uint8_t* p_;
};

class Ipv6HeaderView {
  public:
    explicit Ipv6HeaderView(const uint8_t* p) : p_(p) {}
    uint8_t version() const { return p_[offsetof(Ipv6HeaderLayout, vtc_flow)] >> 4; }
    // In host order, widened (wire::load_be16).
    uint64_t payload_len() const {
        return wire::load_be16(p_, offsetof(Ipv6HeaderLayout, payload_len));
    }
    uint8_t proto() const { return p_[offsetof(Ipv6HeaderLayout, proto)]; }
    uint8_t hop_limits() const { return p_[offsetof(Ipv6HeaderLayout, hop_limits)]; }
    const uint8_t* src_addr() const { return p_ + offsetof(Ipv6HeaderLayout, src_addr); }
    const uint8_t* dst_addr() const { return p_ + offsetof(Ipv6HeaderLayout, dst_addr); }

  private:
    const uint8_t* p_;
};

}  // namespace pmdfwd
