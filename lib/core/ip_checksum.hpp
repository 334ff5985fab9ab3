// The IPv4 header checksum, the ICMP and ICMPv6 checksums, and the TTL and
// hop-limit decrements a router makes. Pure bytes on headers in network
// order: no DPDK, no allocation; the decrements are inline so a worker can
// use them on a header in place, the ICMP sums are the control path's.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace pmdfwd {

// RFC 1071 over len bytes (len even). Over a header whose checksum field is
// zero it is the value to store; over a header as received it is zero when
// the header is intact.
uint16_t ipv4_header_checksum(const uint8_t* header, size_t len);

// Zeroes the checksum field, then stores the checksum of the len-byte header.
void ipv4_store_checksum(uint8_t* header, size_t len);

// The RFC 1071 sum of bytes added to sum, folded to 16 bits so that pieces
// chain: a checksum over several pieces is checksum_finish of the pieces
// added in turn. Every piece but the last must be of even length (an odd
// last byte is summed as if a zero followed it, as RFC 1071 pads).
uint32_t checksum_add(uint32_t sum, std::span<const uint8_t> bytes);

// The one's complement of the folded sum: the value to store, or zero over
// bytes that include an intact checksum.
uint16_t checksum_finish(uint32_t sum);

// ICMP (RFC 792): over the whole message, no pseudo-header.
uint16_t icmp_checksum(std::span<const uint8_t> message);

// ICMPv6 (RFC 4443 2.3): over the pseudo-header of RFC 8200 8.1 (source,
// destination, upper-layer length = the message's, next header 58) and the
// message. Same convention as above: the value to store over a message whose
// checksum field is zero, zero over one received intact.
uint16_t icmpv6_checksum(std::span<const uint8_t, 16> src, std::span<const uint8_t, 16> dst,
                         std::span<const uint8_t> message);

// TTL - 1, with the checksum updated by RFC 1624 eqn. 3,
// HC' = ~(~HC + ~m + m'), on the 16-bit word that holds TTL and protocol.
// Eqn. 3 and not RFC 1141's HC' = HC + m + ~m': that one can leave 0xffff
// where a full recompute gives 0x0000. With TTL > 1 the word m' is m less
// one in its TTL byte, so ~m + m' is 0xfffe whatever m is; and a ones'
// complement sum is the same in either byte order (RFC 1071), so the
// checksum is updated as it lies in memory, with no swap. The caller has
// seen TTL > 1.
inline void decrement_ttl(uint8_t* ipv4_header) {
    ipv4_header[8] = uint8_t(ipv4_header[8] - 1);
    uint16_t checksum;
    std::memcpy(&checksum, ipv4_header + 10, 2);
    // ~m + m' = 0xfffe in the byte order of the TTL/protocol word: TTL is
    // its first byte, which a little-endian load puts low.
    constexpr uint32_t kTtlDelta = std::endian::native == std::endian::little ? 0xfffe : 0xfeff;
    uint32_t sum = uint32_t(uint16_t(~checksum)) + kTtlDelta;
    sum = (sum & 0xffff) + (sum >> 16);  // two terms: one fold carries everything
    checksum = uint16_t(~sum);
    std::memcpy(ipv4_header + 10, &checksum, 2);
}

// Whether a 20-byte IPv4 header (no options) sums to all ones: its checksum
// is right. Five 32-bit words summed and folded (RFC 1071's larger-word
// sum), inline for the workers' per-packet check.
inline bool ipv4_header20_checksum_ok(const uint8_t* ipv4_header) {
    uint32_t w[5];
    std::memcpy(w, ipv4_header, sizeof w);
    uint64_t sum = uint64_t(w[0]) + w[1] + w[2] + w[3] + w[4];
    sum = (sum & 0xffffffff) + (sum >> 32);
    sum = (sum & 0xffffffff) + (sum >> 32);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return sum == 0xffff;
}

// Hop limit - 1; IPv6 has no header checksum to follow it. The caller has
// seen a hop limit > 1.
inline void decrement_hop_limit(uint8_t* ipv6_header) {
    ipv6_header[7] = uint8_t(ipv6_header[7] - 1);
}

}  // namespace pmdfwd
