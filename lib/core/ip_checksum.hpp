// The IPv4 header checksum, the ICMP and ICMPv6 checksums, and the TTL and
// hop-limit decrements a router makes. Pure bytes on headers in network
// order: no DPDK, no allocation; the decrements are inline so a worker can
// use them on a header in place, the ICMP sums are the control path's.
#pragma once

#include <cstddef>
#include <cstdint>
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
// where a full recompute gives 0x0000. The caller has seen TTL > 1.
inline void decrement_ttl(uint8_t* ipv4_header) {
    uint8_t* const ttl_proto = ipv4_header + 8;
    uint8_t* const checksum = ipv4_header + 10;
    const auto old_word = uint16_t(ttl_proto[0] << 8 | ttl_proto[1]);
    ttl_proto[0] = uint8_t(ttl_proto[0] - 1);
    const auto new_word = uint16_t(ttl_proto[0] << 8 | ttl_proto[1]);
    const auto old_checksum = uint16_t(checksum[0] << 8 | checksum[1]);
    uint32_t sum = uint32_t(uint16_t(~old_checksum)) + uint16_t(~old_word) + new_word;
    sum = (sum & 0xffff) + (sum >> 16);  // three words: two folds carry everything
    sum = (sum & 0xffff) + (sum >> 16);
    const auto new_checksum = uint16_t(~sum);
    checksum[0] = uint8_t(new_checksum >> 8);
    checksum[1] = uint8_t(new_checksum);
}

// Hop limit - 1; IPv6 has no header checksum to follow it. The caller has
// seen a hop limit > 1.
inline void decrement_hop_limit(uint8_t* ipv6_header) {
    ipv6_header[7] = uint8_t(ipv6_header[7] - 1);
}

}  // namespace pmdfwd
