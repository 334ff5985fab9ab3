// The IPv6 table as a worker reads it: a multibit trie whose first stride
// is IPv4's tbl24 (2^24 entries for the first 24 bits, as rte_fib6's trie
// has) and whose groups of 256 entries take one byte each after it. A
// prefix of /24 or shorter is one load, a /48 four, a /64 six. Written by
// Ipv6Fib (ipv6_fib.hpp) with one aligned 4-byte store per entry, so a
// lookup sees an entry's old value or its new one, never a mix.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace pmdfwd {

// An entry: a next hop's index << 1 (as IPv4's, so that times 8 it is the
// next hop's byte offset), or kIpv6Group | the index of the first entry of
// the group for the next byte. The flag is the sign bit, so one test tells
// the two apart, and the group's index needs no shift: the group table's
// base is kept less kIpv6Group entries (tbl8_biased), so the entry plus
// the byte indexes it as it stands.
constexpr uint32_t kIpv6Group = 0x80000000u;
constexpr unsigned kIpv6GroupEntries = 256;

struct Ipv6Tables {
    const uint32_t* tbl24 = nullptr;  // 2^24 entries
    uintptr_t tbl8_biased = 0;        // the groups' address, less kIpv6Group entries
};

// A group's first entry is a multiple of 256 and the flag is above it, so
// the entry's low byte is 0 and the group's entry for `byte` is the entry
// with its low byte replaced. On x86-64 that is one byte load into the
// register's low byte (`movb`, which merges into the entry, where a load
// and an add took two): four instructions a level.
inline uint32_t ipv6_group_entry(const Ipv6Tables& t, uint32_t group_entry, const uint8_t* byte) {
    uint64_t index = group_entry;
#if defined(__x86_64__)
    asm("movb %1, %b0" : "+r"(index) : "m"(*byte));
#else
    index |= *byte;
#endif
    return *reinterpret_cast<const uint32_t*>(t.tbl8_biased + index * sizeof(uint32_t));
}

// The groups from byte K on, unrolled: each byte is read at its own
// offset, where a loop's pointer took an instruction more a level. No
// group is made past the last byte, so the walk ends there.
template <unsigned K>
__attribute__((always_inline)) inline uint32_t ipv6_walk(const Ipv6Tables& t,
                                                         const uint8_t* address, uint32_t e) {
    if constexpr (K == 16) {
        return e;
    } else {
        if (int32_t(e) >= 0) return e;
        return ipv6_walk<K + 1>(t, address, ipv6_group_entry(t, e, address + K));
    }
}

// The entry that holds `address`'s next hop (16 bytes in network order).
inline uint32_t ipv6_lookup_entry(const Ipv6Tables& t, const uint8_t* address) {
    uint32_t lead;
    std::memcpy(&lead, address, sizeof lead);
    if constexpr (std::endian::native == std::endian::little) lead = __builtin_bswap32(lead);
    return ipv6_walk<3>(t, address, t.tbl24[lead >> 8]);
}

// `address`'s next hop; a miss gives next hop 0.
inline uint32_t ipv6_lookup(const Ipv6Tables& t, const uint8_t* address) {
    return ipv6_lookup_entry(t, address) >> 1;
}

}  // namespace pmdfwd
