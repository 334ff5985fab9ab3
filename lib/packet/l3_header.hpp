// What a router makes of a frame before its route lookup: Ethernet with at
// most one 802.1Q/802.1ad tag, then IPv4 or IPv6 checked as RFC 1812 asks,
// or ARP and neighbour discovery for the control path. Pure bytes, no
// DPDK; a worker runs it per packet, so it reads and never writes or throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace pmdfwd {

// Each verdict once, with the sentence a counter of it will carry. Whether a
// packet is for one of our own addresses is the route lookup's to say, and
// ttl_expired speaks of forwarding only: TTL 1 to our own address is still
// ours, so the caller looks the destination up before it drops.
#define PMDFWD_L3_VERDICTS(X)                                                                     \
    X(forward_v4, "an IPv4 packet fit to route")                                                  \
    X(forward_v6, "an IPv6 packet fit to route")                                                  \
    X(control, "ARP or IPv6 neighbour discovery (ICMPv6 133-137), for the control path")          \
    X(not_ip, "neither IPv4, IPv6 nor ARP (or a second VLAN tag)")                                \
    X(bad_header, "an Ethernet, IPv4 or IPv6 header a router must not forward (see L3BadHeader)") \
    X(ttl_expired, "TTL or hop limit 0 or 1: forwarding would take it to 0")

// Why a header is bad; none unless the verdict is bad_header.
#define PMDFWD_L3_BAD_HEADERS(X)                                                                  \
    X(none, "the header is good")                                                                 \
    X(runt, "the Ethernet, VLAN or IP header (options included) is not all in the first segment") \
    X(bad_version, "the IP version is not the one the ethertype names")                           \
    X(bad_ihl, "IPv4 header length under 5 words")                                                \
    X(bad_length, "the IP length is under its header's or over what the frame carries")           \
    X(bad_checksum, "the IPv4 header checksum is wrong")                                          \
    X(bad_option, "an IPv4 option of length under 2 or running past the header")

enum class L3Verdict : uint8_t {
#define PMDFWD_L3_ENUM(name, help) name,
    PMDFWD_L3_VERDICTS(PMDFWD_L3_ENUM)
#undef PMDFWD_L3_ENUM
};

enum class L3BadHeader : uint8_t {
#define PMDFWD_L3_ENUM(name, help) name,
    PMDFWD_L3_BAD_HEADERS(PMDFWD_L3_ENUM)
#undef PMDFWD_L3_ENUM
};

const char* l3_verdict_name(L3Verdict verdict);
const char* l3_bad_header_name(L3BadHeader bad);

constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeIpv6 = 0x86dd;
constexpr uint16_t kEtherTypeArp = 0x0806;
constexpr uint16_t kEtherTypeVlan = 0x8100;  // 802.1Q
constexpr uint16_t kEtherTypeQinQ = 0x88a8;  // 802.1ad

struct L3Header {
    L3Verdict verdict = L3Verdict::not_ip;
    L3BadHeader bad = L3BadHeader::none;
    // Set once the Ethernet header (and tag) was read, whatever the verdict,
    // so ttl_expired and control can still be looked at by the caller.
    uint16_t l3_offset = 0;      // 14, or 18 behind a tag
    uint16_t ethertype = 0;      // host order, the one after the tag
    uint16_t l3_header_len = 0;  // IHL * 4 or 40, once the IP header was read
};

// first_segment: the frame's first segment; pkt_len: the whole frame's length
// (a segment longer than it counts as pkt_len bytes). Every header looked at
// must lie in the first segment. checksum_verified: the port's rx offload has
// already checked the IPv4 header checksum, so it is not summed again.
// The offset, from the start of the IPv4 header, of the first octet of a
// malformed option (a length under 2, or one that runs past the header: the
// length octet; a type without room for its length: the type), which an
// ICMP parameter problem points at; 0 when the options are well formed.
// header_len: IHL * 4, at most what ip holds.
size_t ipv4_option_problem(const uint8_t* ip, size_t header_len);

L3Header parse_l3_header(std::span<const uint8_t> first_segment, uint32_t pkt_len,
                         bool checksum_verified);

}  // namespace pmdfwd
