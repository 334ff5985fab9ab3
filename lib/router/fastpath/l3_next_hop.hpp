// What a route lookup gives a worker: an index into the next-hop table,
// whose 16-byte entries say what to do with the packet. Entries are written
// by the control path before a route points at them and never changed while
// one might: a changed next hop is a new entry, the old one freed only after
// every worker has passed an RCU quiescent point (route_tables.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "ipv4_lookup.hpp"
#include "ipv6_lookup.hpp"

struct rte_rcu_qsbr;
struct rte_ring;

namespace pmdfwd {

class OwnAddresses;

enum class NextHopKind : uint8_t {
    unreachable,  // no route: dropped as no_route (ICMP unreachable goes back)
    forward,      // rewrite the MACs and send on `port`
    local,        // one of this router's addresses: to the control path
    resolve,      // a neighbour without a MAC yet: to the control path, which resolves it
    group,        // an equal-cost route: the packet's flow hash picks a bucket of the group,
                  // whose entry is the next hop to take (forward or resolve)
};

struct alignas(16) NextHop {
    uint8_t dst_src[12] = {};  // forward: the frame's new destination and source MACs
    uint8_t port = 0;          // forward, resolve: index of the output port in the config
    NextHopKind kind = NextHopKind::unreachable;
    // forward: the longest frame `port` sends (max_routed_frame_bytes), so
    // that the workers' common case reads one line; 0 for the other kinds.
    uint16_t max_frame = 0;

    // group: which group's buckets, kept in dst_src's first four bytes.
    static NextHop of_group(uint32_t slot) {
        NextHop nh;
        nh.kind = NextHopKind::group;
        std::memcpy(nh.dst_src, &slot, sizeof slot);
        return nh;
    }
    uint32_t group_slot() const {
        uint32_t slot;
        std::memcpy(&slot, dst_src, sizeof slot);
        return slot;
    }
};
static_assert(sizeof(NextHop) == 16);

// Index 0 is every table's default: what a lookup without a route gives.
constexpr uint32_t kUnreachableNextHop = 0;

// The router's tables as a worker reads them (all shared, read-only).
struct RouterView {
    Ipv4Tables v4;
    Ipv6Tables v6;
    const NextHop* next_hops = nullptr;
    // kEcmpBuckets next-hop indexes per group, group slot after slot; a
    // bucket changes in place (one store) when its path's neighbour does.
    const std::atomic<uint16_t>* group_buckets = nullptr;
    rte_rcu_qsbr* rcu = nullptr;
    // The router's addresses and subnets, for the source and destination
    // checks (fixed at start: ports' addresses come from the config).
    const OwnAddresses* own = nullptr;
};

}  // namespace pmdfwd
