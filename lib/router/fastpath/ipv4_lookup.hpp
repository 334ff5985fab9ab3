// The IPv4 table as a worker reads it: DIR-24-8 (Gupta, Lin, McKeown
// 1998; DPDK's rte_lpm and rte_fib). One load for a prefix of /24 or
// shorter, two for a longer one. Written by Ipv4Fib (ipv4_fib.hpp) with one
// aligned 4-byte store per entry, so a lookup sees an entry's old value or
// its new one, never a mix.
#pragma once

#include <cstdint>

namespace pmdfwd {

// A tbl24 entry: (next hop << 1), or (group << 1) | kIpv4Extended where the
// /24 holds longer prefixes; the group's 256 entries, one per last byte,
// are next hops.
constexpr uint32_t kIpv4Extended = 1;
constexpr unsigned kIpv4GroupEntries = 256;

struct Ipv4Tables {
    const uint32_t* tbl24 = nullptr;  // 2^24 entries
    const uint32_t* tbl8 = nullptr;   // kIpv4GroupEntries a group
};

inline uint32_t ipv4_lookup(const Ipv4Tables& t, uint32_t host_order) {
    const uint32_t e = t.tbl24[host_order >> 8];
    if (e & kIpv4Extended) return t.tbl8[(e >> 1) * kIpv4GroupEntries + (host_order & 0xff)];
    return e >> 1;
}

// n addresses at once: every tbl24 load is issued before the first
// dependent one, so their cache misses overlap (what rte_lpm_lookupx4 does
// with SSE, here in plain code the compiler schedules).
inline void ipv4_lookup_bulk(const Ipv4Tables& t, const uint32_t* addresses, uint32_t* next_hops,
                             unsigned n) {
    constexpr unsigned kStride = 4;
    unsigned k = 0;
    for (; k + kStride <= n; k += kStride) {
        uint32_t e[kStride];
        for (unsigned i = 0; i < kStride; ++i) e[i] = t.tbl24[addresses[k + i] >> 8];
        for (unsigned i = 0; i < kStride; ++i)
            next_hops[k + i] =
                (e[i] & kIpv4Extended)
                    ? t.tbl8[(e[i] >> 1) * kIpv4GroupEntries + (addresses[k + i] & 0xff)]
                    : e[i] >> 1;
    }
    for (; k < n; ++k) next_hops[k] = ipv4_lookup(t, addresses[k]);
}

}  // namespace pmdfwd
