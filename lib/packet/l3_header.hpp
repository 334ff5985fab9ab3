// What a router makes of a frame before its route lookup: Ethernet with at
// most one 802.1Q/802.1ad tag, then IPv4 or IPv6 checked as RFC 1812 asks,
// or ARP and neighbour discovery for the control path. Pure bytes, no
// DPDK; a worker runs it per packet, so it reads and never writes or throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "enum_names.hpp"

namespace pmdfwd {

// What a frame is to the router. Whether a packet is for one of our own
// addresses is the route lookup's to say, and ttl_expired speaks of
// forwarding only: TTL 1 to our own address is still ours, so the caller
// looks the destination up before it drops. Each verdict ends as a worker's
// drop reason (not_ip, bad_header, ttl_expired), a punt reason (control:
// neighbour) or a forwarded packet: counted there.
#define PMDFWD_L3_VERDICTS(X)   \
    X(forward_v4, "forward_v4") \
    X(forward_v6, "forward_v6") \
    X(control, "control")       \
    X(not_ip, "not_ip")         \
    X(bad_header, "bad_header") \
    X(ttl_expired, "ttl_expired")

// Which check a bad header failed (none unless the verdict is bad_header):
// a short one (runt: not all in the first segment), the version, the IHL,
// the lengths, the IPv4 checksum, an IPv4 option. The worker counts them
// all as drop reason bad_header, whose sentence names them.
#define PMDFWD_L3_BAD_HEADERS(X)    \
    X(none, "none")                 \
    X(runt, "runt")                 \
    X(bad_version, "bad_version")   \
    X(bad_ihl, "bad_ihl")           \
    X(bad_length, "bad_length")     \
    X(bad_checksum, "bad_checksum") \
    X(bad_option, "bad_option")

enum class L3Verdict : uint8_t { PMDFWD_L3_VERDICTS(PMDFWD_ENUM_MEMBER) };
enum class L3BadHeader : uint8_t { PMDFWD_L3_BAD_HEADERS(PMDFWD_ENUM_MEMBER) };

inline constexpr std::string_view kL3VerdictNames[] = {PMDFWD_L3_VERDICTS(PMDFWD_ENUM_TEXT)};
inline constexpr std::string_view kL3BadHeaderNames[] = {PMDFWD_L3_BAD_HEADERS(PMDFWD_ENUM_TEXT)};
constexpr std::string_view l3_verdict_name(L3Verdict v) { return enum_name(kL3VerdictNames, v); }
constexpr std::string_view l3_bad_header_name(L3BadHeader b) {
    return enum_name(kL3BadHeaderNames, b);
}

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

// Neighbour discovery (RFC 4861: router solicitation .. redirect) right
// behind an IPv6 header whose packet lies whole in_segment bytes: the
// control path's, where it comes to the router. ipv6: 40 bytes at least.
bool is_neighbour_discovery(const uint8_t* ipv6, size_t in_segment);

}  // namespace pmdfwd
