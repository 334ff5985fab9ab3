// The router's lookup alone: rte_fib (DIR24_8 with 2-byte next hops, the
// table pmdfwd's router built for IPv4 until it moved to rte_lpm on these
// figures) against rte_lpm (the one DPDK's l3fwd uses),
// and rte_fib6 (trie) against rte_lpm6 and pmdfwd's own IPv6 table
// (Ipv6Fib, looked up inline as the workers do), on the tables scripts/bench routes
// with (512 /24s or /64s) and on 100000 routes, in bursts of 32 addresses
// as a worker's burst brings them. Two address sets per table: the bench's
// 256 flows (198.18.n.1, 2001:2:0:n::1), whose entries stay in L1, and
// 65536 addresses each in a random route of the table, which touch entries
// all over the table (cache and TLB misses with 100000 routes).
// Each variant runs --rounds times, alternating, on one lcore; prints the
// median and the range of ns per looked-up address. No target: it says
// which lookup the router should use. rte_fib's row is the scalar lookup
// DPDK gives (EAL allows 256-bit SIMD unless told otherwise); with
// --force-max-simd-bitwidth=512 among the EAL arguments the AVX-512 lookups
// are timed too.
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "ipv6_fib.hpp"

namespace {

constexpr unsigned kBurst = 32;           // a worker's burst
constexpr uint32_t kBaseRoutes = 512;     // scripts/bench's table (bench_l3_routes.py)
constexpr uint32_t kFlows = 256;          // scripts/bench's capture
constexpr uint32_t kSpreadAddrs = 65536;  // random routes of the table
constexpr uint32_t kTbl8v4 = 4096;        // as pmdfwd's tables had when this was measured
constexpr uint32_t kTbl8v6 = 8192;
// The trie reserves, for each route longer than /24 without a covering
// route, one group per byte below /24: five for a /64, so pmdfwd's 8192
// groups hold 1638 such routes. The large IPv6 table gets what it needs,
// up to what 2-byte next hops can index (32767 groups): 6000 routes.
constexpr uint32_t kTbl8PerV6Route = 5;
constexpr uint32_t kMaxTbl8v6 = 32767;
// The /64s of 2001:2::/48 share their path to byte 5 and need a group for
// each 256 of them besides (ipv6_fib.cpp's path nodes).
constexpr uint32_t kOwnGroupsV6 = 4096;
constexpr uint32_t kBigV6Routes = 6000;

struct Options {
    unsigned rounds = 7;
    uint64_t lookups = 1u << 24;  // per variant and round (IPv4)
    uint32_t lookups_v6_div = 4;  // IPv6 lookups are slower: fewer of them
    uint32_t big = 100000;        // routes of the large tables
};

// The bench's IPv4 table: 198.18.0.0/15 in /24s, then /24s from 20.0.0.0
// (bench_l3_routes.py), in host order.
uint32_t v4_route(uint32_t n) {
    constexpr uint32_t base = 198u << 24 | 18u << 16, extra = 20u << 24;
    return n < kBaseRoutes ? base + (n << 8) : extra + ((n - kBaseRoutes) << 8);
}

// 2001:2:0:n::/64 for n < 65536, then 2001:3:0:(n - 65536)::/64 ...
void v6_route(uint32_t n, uint8_t out[16]) {
    std::memset(out, 0, 16);
    out[0] = 0x20, out[1] = 0x01, out[2] = 0, out[3] = uint8_t(2 + (n >> 16));
    out[6] = uint8_t(n >> 8), out[7] = uint8_t(n);
}

double tsc_to_ns(uint64_t tsc) { return double(tsc) * 1e9 / double(rte_get_tsc_hz()); }

struct Result {
    std::string name;
    std::vector<double> ns;  // per round
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One timed pass: `lookups` addresses in bursts of kBurst, walking `addrs`.
template <typename Fn>
double time_pass(const Options& o, size_t n_addrs, Fn&& burst) {
    const size_t bursts = o.lookups / kBurst;
    const uint64_t t0 = rte_rdtsc_precise();
    size_t at = 0;
    for (size_t b = 0; b < bursts; ++b) {
        burst(at);
        at += kBurst;
        if (at + kBurst > n_addrs) at = 0;
    }
    const uint64_t t1 = rte_rdtsc_precise();
    return tsc_to_ns(t1 - t0) / double(bursts * kBurst);
}

// Fills `addrs` with the flows (repeated) or with addresses in random routes.
std::vector<uint32_t> v4_addresses(bool flows, uint32_t routes, std::mt19937& rng) {
    std::vector<uint32_t> a;
    if (flows) {
        for (unsigned rep = 0; rep < kSpreadAddrs / kFlows; ++rep)
            for (uint32_t n = 0; n < kFlows; ++n) a.push_back(v4_route(n) | 1);
        // The capture's order within each pass of 256, shuffled per pass so
        // that no lookup can lean on the previous burst's order.
        for (size_t i = 0; i < a.size(); i += kFlows)
            std::shuffle(a.begin() + long(i), a.begin() + long(i + kFlows), rng);
        return a;
    }
    std::uniform_int_distribution<uint32_t> route(0, routes - 1), host(1, 254);
    for (uint32_t i = 0; i < kSpreadAddrs; ++i) a.push_back(v4_route(route(rng)) | host(rng));
    return a;
}

std::vector<std::array<uint8_t, 16>> v6_addresses(bool flows, uint32_t routes, std::mt19937& rng) {
    std::vector<std::array<uint8_t, 16>> a(kSpreadAddrs);
    std::uniform_int_distribution<uint32_t> route(0, routes - 1), host(1, 0xffff);
    for (uint32_t i = 0; i < kSpreadAddrs; ++i) {
        v6_route(flows ? i % kFlows : route(rng), a[i].data());
        const uint32_t h = flows ? 1 : host(rng);
        a[i][14] = uint8_t(h >> 8), a[i][15] = uint8_t(h);
    }
    if (flows)
        for (size_t i = 0; i < a.size(); i += kFlows)
            std::shuffle(a.begin() + long(i), a.begin() + long(i + kFlows), rng);
    return a;
}

// Both tables must answer alike (every address has a route: next hop 1-4)
// before either is timed.
bool same_v4(rte_fib* fib, rte_lpm* lpm, const std::vector<uint32_t>& addrs) {
    for (size_t at = 0; at + kBurst <= addrs.size(); at += kBurst) {
        uint64_t a[kBurst];
        uint32_t b[kBurst];
        rte_fib_lookup_bulk(fib, const_cast<uint32_t*>(&addrs[at]), a, kBurst);
        rte_lpm_lookup_bulk(lpm, &addrs[at], b, kBurst);
        for (unsigned i = 0; i < kBurst; ++i)
            if (a[i] == 0 || a[i] != (b[i] & 0xffffff) || !(b[i] & RTE_LPM_LOOKUP_SUCCESS)) {
                std::fprintf(stderr, "fib_lookup_bench: address %zu: rte_fib %llu, rte_lpm %#x\n",
                             at + i, static_cast<unsigned long long>(a[i]), b[i]);
                return false;
            }
    }
    return true;
}

bool same_v6(rte_fib6* fib, rte_lpm6* lpm, const std::vector<std::array<uint8_t, 16>>& addrs) {
    for (size_t at = 0; at + kBurst <= addrs.size(); at += kBurst) {
        uint64_t a[kBurst];
        int32_t b[kBurst];
        auto* ips = reinterpret_cast<uint8_t(*)[16]>(const_cast<uint8_t*>(addrs[at].data()));
        rte_fib6_lookup_bulk(fib, ips, a, kBurst);
        rte_lpm6_lookup_bulk_func(lpm, ips, b, kBurst);
        for (unsigned i = 0; i < kBurst; ++i)
            if (a[i] == 0 || int64_t(a[i]) != b[i]) {
                std::fprintf(stderr,
                             "fib_lookup_bench: IPv6 address %zu: rte_fib6 %llu, rte_lpm6 %d\n",
                             at + i, static_cast<unsigned long long>(a[i]), b[i]);
                return false;
            }
    }
    return true;
}

void print(const char* table, const char* addrs, const std::vector<Result>& rs) {
    const double base = median(rs.front().ns);
    for (const auto& r : rs) {
        const auto [lo, hi] = std::minmax_element(r.ns.begin(), r.ns.end());
        std::printf("%-7s %-7s %-26s %6.2f ns/lookup (%5.2f-%5.2f)  x%.2f of %s\n", table, addrs,
                    r.name.c_str(), median(r.ns), *lo, *hi, base / median(r.ns),
                    rs.front().name.c_str());
    }
}

int bench_v4(const Options& o, uint32_t routes, const char* label, std::mt19937& rng) {
    rte_fib_conf fc{};
    fc.type = RTE_FIB_DIR24_8;
    fc.default_nh = 0;
    fc.max_routes = int(routes + 16);
    fc.dir24_8.nh_sz = RTE_FIB_DIR24_8_2B;
    fc.dir24_8.num_tbl8 = kTbl8v4;
    rte_fib* fib = rte_fib_create((std::string("bench_fib_") + label).c_str(), SOCKET_ID_ANY, &fc);
    rte_lpm_config lc{};
    lc.max_rules = routes + 16;
    lc.number_tbl8s = 256;  // l3fwd's
    rte_lpm* lpm = rte_lpm_create((std::string("bench_lpm_") + label).c_str(), SOCKET_ID_ANY, &lc);
    if (!fib || !lpm) {
        std::fprintf(stderr, "fib_lookup_bench: creating the %s IPv4 tables failed\n", label);
        return 1;
    }
    for (uint32_t n = 0; n < routes; ++n) {
        const uint32_t next_hop = 1 + n % 4;  // four neighbours, as in the bench
        if (rte_fib_add(fib, v4_route(n), 24, next_hop) != 0 ||
            rte_lpm_add(lpm, v4_route(n), 24, next_hop) != 0) {
            std::fprintf(stderr, "fib_lookup_bench: adding route %u failed\n", n);
            return 1;
        }
    }
    // AVX-512 needs EAL's --force-max-simd-bitwidth=512 and a CPU with it;
    // without them the default is the scalar lookup, which pmdfwd gets.
    const bool avx512 = rte_fib_select_lookup(fib, RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512) == 0;
    constexpr auto kScalar = RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO;
    rte_fib_select_lookup(fib, kScalar);

    for (const bool flows : {true, false}) {
        const auto addrs = v4_addresses(flows, routes, rng);
        if (!same_v4(fib, lpm, addrs)) return 1;
        std::vector<Result> rs = {{"rte_fib_lookup_bulk scalar", {}},
                                  {"rte_lpm_lookup_bulk", {}},
                                  {"rte_lpm_lookupx4 (x8)", {}}};
        if (avx512) rs.push_back({"rte_fib_lookup_bulk avx512", {}});
        uint64_t sink = 0;
        for (unsigned round = 0; round < o.rounds; ++round) {
            rte_fib_select_lookup(fib, kScalar);
            rs[0].ns.push_back(time_pass(o, addrs.size(), [&](size_t at) {
                uint64_t nh[kBurst];
                rte_fib_lookup_bulk(fib, const_cast<uint32_t*>(&addrs[at]), nh, kBurst);
                sink += nh[0] + nh[kBurst - 1];
            }));
            rs[1].ns.push_back(time_pass(o, addrs.size(), [&](size_t at) {
                uint32_t nh[kBurst];
                rte_lpm_lookup_bulk(lpm, &addrs[at], nh, kBurst);
                sink += nh[0] + nh[kBurst - 1];
            }));
            // l3fwd's form: four addresses in an SSE register, a default hop.
            rs[2].ns.push_back(time_pass(o, addrs.size(), [&](size_t at) {
                uint32_t nh[kBurst];
                for (unsigned i = 0; i < kBurst; i += 4) {
                    const xmm_t ip =
                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(&addrs[at + i]));
                    rte_lpm_lookupx4(lpm, ip, &nh[i], 0);
                }
                sink += nh[0] + nh[kBurst - 1];
            }));
            if (avx512) {
                rte_fib_select_lookup(fib, RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512);
                rs[3].ns.push_back(time_pass(o, addrs.size(), [&](size_t at) {
                    uint64_t nh[kBurst];
                    rte_fib_lookup_bulk(fib, const_cast<uint32_t*>(&addrs[at]), nh, kBurst);
                    sink += nh[0] + nh[kBurst - 1];
                }));
            }
        }
        if (sink == 0) std::printf("(no route found)\n");
        print(label, flows ? "flows" : "spread", rs);
    }
    rte_fib_free(fib);
    rte_lpm_free(lpm);
    return 0;
}

int bench_v6(const Options& o, uint32_t routes, const char* label, std::mt19937& rng) {
    rte_fib6_conf fc{};
    fc.type = RTE_FIB6_TRIE;
    fc.default_nh = 0;
    fc.max_routes = int(routes + 16);
    fc.trie.nh_sz = RTE_FIB6_TRIE_2B;
    fc.trie.num_tbl8 = std::min(kMaxTbl8v6, std::max(kTbl8v6, kTbl8PerV6Route * routes + 64));
    rte_fib6* fib =
        rte_fib6_create((std::string("bench_fib6_") + label).c_str(), SOCKET_ID_ANY, &fc);
    rte_lpm6_config lc{};
    lc.max_rules = routes + 16;
    lc.number_tbl8s = 1 << 16;  // l3fwd's
    rte_lpm6* lpm =
        rte_lpm6_create((std::string("bench_lpm6_") + label).c_str(), SOCKET_ID_ANY, &lc);
    auto own = pmdfwd::Ipv6Fib::create(std::string("own6_") + label, routes + 16, kOwnGroupsV6,
                                       nullptr, SOCKET_ID_ANY);
    if (!fib || !lpm || !own) {
        std::fprintf(stderr, "fib_lookup_bench: creating the %s IPv6 tables failed\n", label);
        return 1;
    }
    for (uint32_t n = 0; n < routes; ++n) {
        uint8_t p[16];
        v6_route(n, p);
        const uint32_t next_hop = 1 + n % 4;
        const int rc_fib = rte_fib6_add(fib, p, 64, next_hop);
        const int rc_lpm = rte_lpm6_add(lpm, p, 64, next_hop);
        const int rc_own = own.value()->add(p, 64, next_hop);
        if (rc_fib != 0 || rc_lpm != 0 || rc_own != 0) {
            std::fprintf(
                stderr,
                "fib_lookup_bench: adding IPv6 route %u: rte_fib6_add %d, rte_lpm6_add %d, "
                "Ipv6Fib::add %d\n",
                n, rc_fib, rc_lpm, rc_own);
            return 1;
        }
    }
    const bool avx512 = rte_fib6_select_lookup(fib, RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512) == 0;
    rte_fib6_select_lookup(fib, RTE_FIB6_LOOKUP_TRIE_SCALAR);
    Options o6 = o;
    o6.lookups = std::max<uint64_t>(kBurst, o.lookups / o.lookups_v6_div);
    for (const bool flows : {true, false}) {
        const auto addrs = v6_addresses(flows, routes, rng);
        if (!same_v6(fib, lpm, addrs)) return 1;
        const pmdfwd::Ipv6Tables t = own.value()->tables();
        for (size_t i = 0; i < addrs.size(); ++i) {
            uint64_t want = 0;
            rte_fib6_lookup_bulk(
                fib, reinterpret_cast<uint8_t(*)[16]>(const_cast<uint8_t*>(addrs[i].data())), &want,
                1);
            if (pmdfwd::ipv6_lookup(t, addrs[i].data()) != want) {
                std::fprintf(stderr, "fib_lookup_bench: IPv6 address %zu: Ipv6Fib differs\n", i);
                return 1;
            }
        }
        std::vector<Result> rs = {{"rte_fib6_lookup_bulk scalar", {}},
                                  {"rte_lpm6_lookup_bulk_func", {}},
                                  {"pmdfwd ipv6_lookup inline", {}}};
        if (avx512) rs.push_back({"rte_fib6_lookup_bulk avx512", {}});
        uint64_t sink = 0;
        for (unsigned round = 0; round < o.rounds; ++round) {
            rte_fib6_select_lookup(fib, RTE_FIB6_LOOKUP_TRIE_SCALAR);
            rs[0].ns.push_back(time_pass(o6, addrs.size(), [&](size_t at) {
                uint64_t nh[kBurst];
                rte_fib6_lookup_bulk(
                    fib, reinterpret_cast<uint8_t(*)[16]>(const_cast<uint8_t*>(addrs[at].data())),
                    nh, kBurst);
                sink += nh[0] + nh[kBurst - 1];
            }));
            rs[1].ns.push_back(time_pass(o6, addrs.size(), [&](size_t at) {
                int32_t nh[kBurst];
                rte_lpm6_lookup_bulk_func(
                    lpm, reinterpret_cast<uint8_t(*)[16]>(const_cast<uint8_t*>(addrs[at].data())),
                    nh, kBurst);
                sink += uint64_t(nh[0] + nh[kBurst - 1]);
            }));
            rs[2].ns.push_back(time_pass(o6, addrs.size(), [&](size_t at) {
                uint32_t nh[kBurst];
                for (unsigned i = 0; i < kBurst; ++i)
                    nh[i] = pmdfwd::ipv6_lookup(t, addrs[at + i].data());
                sink += nh[0] + nh[kBurst - 1];
            }));
            if (avx512) {
                rte_fib6_select_lookup(fib, RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512);
                rs[3].ns.push_back(time_pass(o6, addrs.size(), [&](size_t at) {
                    uint64_t nh[kBurst];
                    rte_fib6_lookup_bulk(
                        fib,
                        reinterpret_cast<uint8_t(*)[16]>(const_cast<uint8_t*>(addrs[at].data())),
                        nh, kBurst);
                    sink += nh[0] + nh[kBurst - 1];
                }));
            }
        }
        if (sink == 0) std::printf("(no route found)\n");
        print(label, flows ? "flows" : "spread", rs);
    }
    rte_fib6_free(fib);
    rte_lpm6_free(lpm);
    return 0;
}

int usage() {
    std::fprintf(stderr,
                 "usage: fib_lookup_bench [--rounds N] [--lookups N] [--big ROUTES] -- EAL args\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::vector<char*> eal;
    const auto option = [&o](const std::string& opt, unsigned long long v) {
        if (opt == "--rounds" && v > 0)
            o.rounds = unsigned(v);
        else if (opt == "--lookups" && v >= kBurst)
            o.lookups = v;
        else if (opt == "--big" && v >= kBaseRoutes && v <= (1u << 20))
            o.big = uint32_t(v);
        else
            return false;
        return true;
    };
    if (!bench::parse_args(argc, argv, {}, option, eal)) return usage();
    if (rte_eal_init(int(eal.size()), eal.data()) < 0) {
        std::fprintf(stderr, "fib_lookup_bench: rte_eal_init failed\n");
        return 1;
    }
    std::mt19937 rng(12345);
    // (rte_vect_get_max_simd_bitwidth has no C linkage in 22.11's header:
    // the AVX-512 rows appear when selecting that lookup succeeds.)
    std::printf(
        "ns per looked-up address, bursts of %u, median of %u rounds of %llu lookups "
        "(range); tsc %.2f GHz\n",
        kBurst, o.rounds, static_cast<unsigned long long>(o.lookups),
        double(rte_get_tsc_hz()) / 1e9);
    std::printf(
        "tables: %u (scripts/bench's) or %u routes (IPv6: %u); addresses: the bench's "
        "%u flows, or %u in random routes\n",
        kBaseRoutes, o.big, std::min(o.big, kBigV6Routes), kFlows, kSpreadAddrs);
    const std::string big = std::to_string(o.big);
    int rc = bench_v4(o, kBaseRoutes, "512", rng);
    if (rc == 0) rc = bench_v4(o, o.big, big.c_str(), rng);
    if (rc == 0) rc = bench_v6(o, kBaseRoutes, "v6-512", rng);
    const uint32_t big6 = std::min(o.big, kBigV6Routes);
    if (rc == 0) rc = bench_v6(o, big6, ("v6-" + std::to_string(big6)).c_str(), rng);
    rte_eal_cleanup();
    return rc;
}
