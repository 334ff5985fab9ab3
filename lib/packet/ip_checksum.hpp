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
// seen TTL > 1. In C, for any target; decrement_ttl is the one to call.
inline void decrement_ttl_portable(uint8_t* ipv4_header) {
    ipv4_header[8] = uint8_t(ipv4_header[8] - 1);
    uint16_t checksum;
    std::memcpy(&checksum, ipv4_header + 10, 2);
    if constexpr (std::endian::native == std::endian::little) {
        // ~m + m' = 0xfffe (TTL is the low byte of the word as loaded), and
        // ~(~HC + 0xfffe) in ones' complement is HC + 1 modulo 0xffff:
        // 0xfffe goes to 0x0000 and 0xffff to 0x0001, never to 0xffff.
        const uint32_t next = uint32_t(checksum) + 1;
        checksum = uint16_t(next + ((next + 1) >> 16));
    } else {
        uint32_t sum = uint32_t(uint16_t(~checksum)) + 0xfeff;
        sum = (sum & 0xffff) + (sum >> 16);  // two terms: one fold carries everything
        checksum = uint16_t(~sum);
    }
    std::memcpy(ipv4_header + 10, &checksum, 2);
}

// The same, inline on a worker's path.
inline void decrement_ttl(uint8_t* ipv4_header) {
#if defined(__x86_64__)
    // HC as loaded (little-endian) goes to HC + 1 modulo 0xffff, in two
    // read-modify-write adds and no branch: HC + 2, then -1 plus the
    // carry, which 0xfffe and 0xffff set (to 0x0000 and 0x0001, as above).
    // Three instructions where one 32-bit add for both fields, with its
    // test for those two, took five (callgrind).
    using Half = uint16_t __attribute__((may_alias, aligned(1)));
    asm("subb $1, %[ttl]\n\t"
        "addw $2, %[hc]\n\t"
        "adcw $-1, %[hc]"
        : [ttl] "+m"(ipv4_header[8]), [hc] "+m"(*reinterpret_cast<Half*>(ipv4_header + 10))
        :
        : "cc");
#else
    decrement_ttl_portable(ipv4_header);
#endif
}

// A 20-byte header's five 32-bit words summed in ones' complement (RFC
// 1071's larger-word sum), in C for any target: what
// ipv4_header20_checksum_ok sums, modulo 0xffff.
inline uint32_t ipv4_header20_sum_portable(const uint8_t* ipv4_header) {
    uint32_t w[5];
    std::memcpy(w, ipv4_header, sizeof w);
    uint64_t wide = uint64_t(w[0]) + w[1] + w[2] + w[3] + w[4];
    wide = (wide & 0xffffffff) + (wide >> 32);
    return uint32_t((wide & 0xffffffff) + (wide >> 32));
}

// Whether a 20-byte IPv4 header (no options) sums to all ones: its checksum
// is right. Five 32-bit words summed (RFC 1071's larger-word sum), inline
// for the workers' per-packet check. The header's first byte is not zero
// (the caller has seen version 4), so the sum is not zero either.
inline bool ipv4_header20_checksum_ok(const uint8_t* ipv4_header) {
#if defined(__x86_64__)
    // One add-with-carry chain straight from the header (as Linux's
    // ip_fast_csum): the end-around carry of a ones' complement sum is the
    // carry flag fed back in. Each word a memory operand of its own, so the
    // compiler addresses them from whatever pointer it holds (the frame's,
    // in a worker's loop) with no add to make the header's.
    using Word = uint32_t __attribute__((may_alias, aligned(1)));
    const auto word = [ipv4_header](unsigned i) -> const Word& {
        return *reinterpret_cast<const Word*>(ipv4_header + 4 * i);
    };
    uint32_t s;
    asm("movl %[w0], %[s]\n\t"
        "addl %[w1], %[s]\n\t"
        "adcl %[w2], %[s]\n\t"
        "adcl %[w3], %[s]\n\t"
        "adcl %[w4], %[s]\n\t"
        "adcl $0, %[s]"
        : [s] "=&r"(s)
        : [w0] "m"(word(0)), [w1] "m"(word(1)), [w2] "m"(word(2)), [w3] "m"(word(3)),
          [w4] "m"(word(4))
        : "cc");
#else
    const uint32_t s = ipv4_header20_sum_portable(ipv4_header);
#endif
    // s, a ones' complement sum of 32-bit words, folds to 16 bits as all
    // ones exactly when s is a multiple of 0xffff (2^16 = 1 modulo 0xffff,
    // which divides 2^32 - 1, so folding keeps s's remainder; s > 0). The
    // multiple test is one multiply by 0xffff's inverse modulo 2^32 and one
    // compare (Granlund and Montgomery 1994; Lemire 2019): three
    // instructions where the fold and its compare took six (callgrind).
    constexpr uint32_t kInverse = 0xfffeffff;             // 0xffff * kInverse = 1 modulo 2^32
    constexpr uint32_t kMultiples = 0xffffffff / 0xffff;  // 0x10001
    static_assert(uint32_t(0xffffu * kInverse) == 1);
    return s * kInverse <= kMultiples;
}

// Hop limit - 1; IPv6 has no header checksum to follow it. The caller has
// seen a hop limit > 1.
inline void decrement_hop_limit(uint8_t* ipv6_header) {
    ipv6_header[7] = uint8_t(ipv6_header[7] - 1);
}

}  // namespace pmdfwd
