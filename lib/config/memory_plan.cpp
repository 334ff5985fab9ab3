// EAL memory of a plan (see memory_plan.hpp). The sizes follow DPDK
// 22.11's structures; each constant says whose it is. An estimate a little
// above what EAL hands out, so that what passes here starts.
#include "memory_plan.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace pmdfwd {

namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kCacheLine = 64;

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

// rte_mempool: each object has a cache-aligned header before it
// (rte_mempool_objhdr) and, for mbufs, the rte_mbuf (2 lines) before the
// data room. No object crosses a page (DPDK's placement and the coloured
// one alike), so a page holds whole objects only: with 4 KiB pages (no
// hugepages) a 2176-byte room takes a page of its own, 4096 bytes, not
// 2368 (measured with /eal/heap_info: 4112 bytes an mbuf, ring included).
// The pool's ring and its RTE_MAX_LCORE caches (each room for 1024
// pointers, whatever pool.cache is) come on top.
uint64_t mbuf_pool_bytes(uint64_t mbufs, uint64_t data_room, uint64_t page_bytes) {
    constexpr uint64_t kObjHeader = kCacheLine, kMbufHeader = 128;
    constexpr uint64_t kLcoreCaches = 128 * (1024 * 8 + kCacheLine);
    const uint64_t object = kObjHeader + round_up(kMbufHeader + data_room, kCacheLine);
    const uint64_t objects = object <= page_bytes ? (mbufs + page_bytes / object - 1) /
                                                        (page_bytes / object) * page_bytes
                                                  : mbufs * round_up(object, page_bytes);
    const uint64_t ring = round_up(std::bit_ceil(mbufs + 1) * 8, kCacheLine);
    return objects + ring + kLcoreCaches;
}

// IPv4 (Ipv4Fib): 2^24 four-byte entries, a group of 256 of them per /24
// with longer prefixes and 1024 for groups in their grace period, and
// rte_rib's nodes, two a route at most. IPv6 (Ipv6Fib): the same, with
// its groups and grace period, and rte_rib6's nodes, two a route. A node of either family is an
// object of rte_rib's mempool: the node and its header padded to 192 bytes (the mempool spreads
// objects over memory channels), 16 more in its ring and cache; measured: 211 bytes a node
// (rte_malloc's heap before and after rte_rib_create of a million nodes).
constexpr uint64_t kRibNode = 211;

uint64_t route_table_bytes(const L3Config& l3) {
    const uint64_t v4 = (uint64_t(1) << 24) * 4 + (uint64_t(ipv4_groups(l3)) + 1024) * 256 * 4 +
                        2 * uint64_t(l3.max_routes) * kRibNode;
    const uint64_t v6 = (uint64_t(1) << 24) * 4 + (uint64_t(ipv6_groups(l3)) + 1024) * 256 * 4 +
                        2 * uint64_t(ipv6_routes(l3)) * kRibNode;
    return v4 + v6;
}

// EAL's own: memzones, telemetry, the ethdev queues of a few ports, the
// workers' contexts, and room for the heap's fragments. Measured with
// --no-huge and two net_null ports: under 1 MiB besides the pools.
constexpr uint64_t kEalOwnBytes = 16 * kMiB;

}  // namespace

std::vector<MemoryPart> plan_memory(const Config& cfg, const Plan& plan) {
    std::vector<MemoryPart> parts;
    const PoolConfig& pc = cfg.pool;
    const uint64_t pools = plan.pools.size();
    // The key that makes the pools big: data_room when it is over the
    // default's, else mbufs.
    const bool big_rooms = pc.data_room > 2176;
    // The smallest hugepage size (2 MiB on x86) holds the most slack.
    const uint64_t page = cfg.eal.hugepages ? 2 * kMiB : 4096;
    parts.push_back(
        {"pools: " + std::to_string(pools) + " x " + std::to_string(pc.mbufs) +
             " mbufs (pool.mbufs) of " + std::to_string(pc.data_room) + " bytes (pool.data_room)",
         pools * mbuf_pool_bytes(pc.mbufs, pc.data_room, page),
         big_rooms ? "pool.data_room" : "pool.mbufs", big_rooms ? pc.data_room_loc : pc.mbufs_loc});
    // Every port's spare and log pools are small; the log channel's reserve.
    uint64_t small = 0;
    if (cfg.netlog.enabled) small += mbuf_pool_bytes(cfg.netlog.reserve, 2048, page);
    if (cfg.forward.mode == ForwardMode::l3) {
        small += mbuf_pool_bytes(1023, pc.data_room, page);  // the control path's (appliance.cpp)
        parts.push_back({"l3 route tables for " + std::to_string(cfg.l3.max_routes) + " IPv4 and " +
                             std::to_string(ipv6_routes(cfg.l3)) +
                             " IPv6 routes (l3.max_routes, l3.max_routes_v6)",
                         route_table_bytes(cfg.l3), "l3.max_routes", cfg.l3.max_routes_loc});
        // Each equal-cost group: 256 two-byte buckets (route_tables.cpp).
        const uint64_t groups = (uint64_t(cfg.l3.max_ecmp_groups) + 1) * 256 * 2;
        parts.push_back({"l3 punt rings (" + std::to_string(plan.workers.size()) + " x " +
                             std::to_string(cfg.l3.punt_ring) +
                             " slots, l3.punt_ring), next hops and equal-cost groups",
                         plan.workers.size() * round_up(cfg.l3.punt_ring * 8, kCacheLine) +
                             next_hop_capacity(cfg.l3) * 16 + groups,
                         "l3.punt_ring",
                         {}});
    }
    parts.push_back({"EAL's own and small pools", kEalOwnBytes + small, "eal.memory_mb", {}});
    return parts;
}

namespace {

uint64_t total_bytes(const std::vector<MemoryPart>& parts) {
    return std::accumulate(parts.begin(), parts.end(), uint64_t(0),
                           [](uint64_t n, const MemoryPart& p) { return n + p.bytes; });
}

std::string mib_text(uint64_t bytes) {
    return std::to_string(round_up(bytes, kMiB) / kMiB) + " MiB";
}

// "what X MiB, ..." of every part.
std::string parts_text(const std::vector<MemoryPart>& parts) {
    std::string list;
    for (const MemoryPart& p : parts)
        list += (list.empty() ? "" : ", ") + p.what + " " + mib_text(p.bytes);
    return list;
}

}  // namespace

std::string memory_line(const Config& cfg, const Plan& plan) {
    const auto parts = plan_memory(cfg, plan);
    return "memory: about " + mib_text(total_bytes(parts)) + " of eal.memory_mb " +
           std::to_string(cfg.eal.memory_mb) + " (" + parts_text(parts) + ")";
}

std::optional<ConfigError> check_memory_fits(const Config& cfg, const Plan& plan) {
    const auto parts = plan_memory(cfg, plan);
    const uint64_t need = total_bytes(parts);
    const uint64_t have = uint64_t(cfg.eal.memory_mb) * kMiB;
    if (need <= have) return std::nullopt;
    const MemoryPart& largest = *std::max_element(
        parts.begin(), parts.end(),
        [](const MemoryPart& a, const MemoryPart& b) { return a.bytes < b.bytes; });
    const bool at_key = largest.loc.line != 0;
    const SourceLoc loc = at_key                       ? largest.loc
                          : cfg.eal.memory_mb_loc.line ? cfg.eal.memory_mb_loc
                                                       : SourceLoc{1, 1};
    return ConfigError{
        cfg.source_name, loc.line, loc.column, at_key ? largest.key : "eal.memory_mb",
        "the plan needs about " + mib_text(need) + " of EAL memory (" + parts_text(parts) +
            ") and eal.memory_mb is " + std::to_string(cfg.eal.memory_mb) +
            "; raise eal.memory_mb" +
            (largest.key == "eal.memory_mb" ? std::string() : " or lower " + largest.key)};
}

}  // namespace pmdfwd
