// What a route lookup gives a worker: an index into the next-hop table,
// whose 16-byte entries say what to do with the packet. Entries are written
// by the control path before a route points at them and never changed while
// one might: a changed next hop is a new entry, the old one freed only after
// every worker has passed an RCU quiescent point (route_tables.hpp).
#pragma once

#include <atomic>
#include <cstdint>

struct rte_fib6;
struct rte_lpm;
struct rte_rcu_qsbr;
struct rte_ring;

namespace pmdfwd {

class OwnAddresses;

enum class NextHopKind : uint8_t {
    unreachable,  // no route: dropped as no_route (ICMP unreachable goes back)
    forward,      // rewrite the MACs and send on `port`
    local,        // one of this router's addresses: to the control path
    resolve,      // a neighbour without a MAC yet: to the control path, which resolves it
};

struct alignas(16) NextHop {
    uint8_t dst_src[12] = {};  // forward: the frame's new destination and source MACs
    uint8_t port = 0;          // forward, resolve: index of the output port in the config
    NextHopKind kind = NextHopKind::unreachable;
    // forward: the longest frame `port` sends (max_routed_frame_bytes), so
    // that the workers' common case reads one line; 0 for the other kinds.
    uint16_t max_frame = 0;
};
static_assert(sizeof(NextHop) == 16);

// Index 0 is every table's default: what a lookup without a route gives.
constexpr uint32_t kUnreachableNextHop = 0;

// The router's tables as a worker reads them (all shared, read-only).
struct RouterView {
    rte_lpm* lpm4 = nullptr;
    const std::atomic<uint32_t>* default4 = nullptr;  // IPv4's default route, lpm4's misses
    rte_fib6* fib6 = nullptr;
    const NextHop* next_hops = nullptr;
    rte_rcu_qsbr* rcu = nullptr;
    // The router's addresses and subnets, for the source and destination
    // checks (fixed at start: ports' addresses come from the config).
    const OwnAddresses* own = nullptr;
};

}  // namespace pmdfwd
