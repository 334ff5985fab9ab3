// A kernel routing table's messages as router mode mirrors them: a route
// (RTM_NEWROUTE, RTM_DELROUTE) with its next hops, given inline (one, or
// RTA_MULTIPATH's list) or as a kernel next-hop object (RTA_NH_ID), and
// the next-hop objects themselves (RTM_NEWNEXTHOP, RTM_DELNEXTHOP): one
// next hop, or a group of them. What router mode cannot mirror is a
// reason, which the caller counts. Pure: bytes in, values out.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "ip_prefix.hpp"
#include "router_counters.hpp"

struct nlmsghdr;

namespace pmdfwd {

struct KernelNextHop {
    std::optional<IpAddress> via;  // none: on-link, each destination its own neighbour
    unsigned ifindex = 0;
    uint16_t weight = 1;  // relative share of flows (rtnh_hops + 1, or a group's weight)
    auto operator<=>(const KernelNextHop&) const = default;
};

struct KernelRoute {
    IpPrefix prefix;
    uint32_t table = 0;
    uint32_t metric = 0;      // RTA_PRIORITY: the kernel keeps the lowest in use
    uint32_t nexthop_id = 0;  // a next-hop object's id; 0: hops given inline
    std::vector<KernelNextHop> hops;
};

struct KernelRouteChange {
    bool removed = false;  // RTM_DELROUTE
    KernelRoute route;
};

// A next-hop object: one hop, or a group of other objects' ids with their
// weights.
struct KernelNextHopObject {
    uint32_t id = 0;
    std::optional<KernelNextHop> hop;
    std::vector<std::pair<uint32_t, uint16_t>> group;  // (id, weight)
    bool blackhole = false;
};

struct KernelNextHopChange {
    bool removed = false;  // RTM_DELNEXTHOP
    KernelNextHopObject object;
};

// A route message of `table` as a change, or why it is skipped; nullopt
// for a message of another table or kind (not counted: not ours).
using ParsedRoute = std::variant<KernelRouteChange, KernelRouteSkip>;
std::optional<ParsedRoute> parse_route_message(const nlmsghdr* message, uint32_t table);

// A next-hop object message; nullopt for one router mode cannot read.
std::optional<KernelNextHopChange> parse_nexthop_message(const nlmsghdr* message);

}  // namespace pmdfwd
