// What router mode (forward.mode = "l3") reads from the config: the ports'
// addresses, static routes and neighbours, and the [l3] tunables. Plain
// structs, filled by config_loader and checked by l3_config_check.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ip_prefix.hpp"
#include "mac_addr.hpp"
#include "source_loc.hpp"

namespace pmdfwd {

// [[route]] prefix = "10.2.0.0/16", via = "10.1.0.254" (a neighbour on a
// connected subnet), port = "wan" (optional with via: the port whose subnet
// holds it; required without via: an on-link route, each destination
// resolved on that port).
struct RouteConfig {
    IpPrefix prefix;
    std::optional<IpAddress> via;
    std::string port;
    SourceLoc loc;  // the [[route]] table
    SourceLoc prefix_loc, via_loc, port_loc;
};

// [[neighbour]] address = "10.1.0.254", mac = "02:...", port = "wan": never
// resolved, never expires.
struct NeighbourConfig {
    IpAddress address;
    MacAddr mac;
    std::string port;
    SourceLoc loc;  // the [[neighbour]] table
    SourceLoc address_loc, mac_loc, port_loc;
};

// Next hops are 2-byte values in the IPv6 trie, which keeps one bit of each
// entry for itself, so 32767 is the largest index (the IPv4 table takes 31 bits).
constexpr uint32_t kMaxNextHops = 32767;

// [l3]: the router's tables and its control path.
struct L3Config {
    // IPv4 routes, connected and host routes included; IPv6 too unless
    // max_routes_v6 is set (non-zero).
    uint32_t max_routes = 65536;
    uint32_t max_routes_v6 = 0;
    uint32_t max_neighbours = 4096;  // resolved or resolving, both families
    // One port's entries; 0: three quarters of max_neighbours, so that one
    // port's hosts never take every entry from the others.
    uint32_t max_neighbours_per_port = 0;
    uint32_t max_resolving = 256;         // incomplete neighbours, all ports
    uint32_t neighbour_queue = 16;        // packets waiting per unresolved neighbour
    uint32_t max_waiting_packets = 1024;  // packets waiting, all neighbours: mbufs held
    uint32_t resolve_retries = 3;         // requests before a neighbour is given up
    uint32_t resolve_interval_ms = 1000;
    uint32_t reachable_s = 300;      // a resolved neighbour is asked again after this
    uint32_t icmp_rate_limit = 100;  // ICMP errors per second (token bucket); 0: none sent
    uint32_t icmp_rate_burst = 20;
    uint32_t punt_ring = 1024;  // slots of each worker's ring to the control path
    // Equal-cost groups (routes with several paths share one per set of
    // paths); 0: a multipath route takes its first path only.
    uint32_t max_ecmp_groups = 256;
    // Packets handed to the ports' kernel interfaces per second (token
    // bucket per port); 0: none.
    uint32_t kernel_rate_limit = 10000;
    uint32_t kernel_rate_burst = 1000;
    // kernel_routes = { table = N }: the kernel routing table mirrored into
    // the router's tables; 0: none.
    uint32_t kernel_routes_table = 0;
    uint32_t kernel_routes_buffer_kb = 32768;  // the change socket's buffer
    SourceLoc kernel_routes_loc;
    SourceLoc max_routes_loc, max_routes_v6_loc, max_neighbours_per_port_loc, max_resolving_loc,
        max_waiting_packets_loc;
};

// The router's next-hop table: every neighbour's next hop, one per port
// for its subnet and its own address, one per equal-cost group, and as
// many again waiting for reclamation after a change.
inline uint32_t next_hop_capacity(const L3Config& c) {
    const uint64_t wanted = 2 * (uint64_t(c.max_neighbours) + 64 + c.max_ecmp_groups);
    return uint32_t(wanted < kMaxNextHops ? wanted : kMaxNextHops);
}

// max_neighbours_per_port with its default applied.
inline uint32_t neighbours_per_port(const L3Config& c) {
    if (c.max_neighbours_per_port) return c.max_neighbours_per_port;
    return c.max_neighbours - c.max_neighbours / 4;
}

inline uint32_t ipv6_routes(const L3Config& c) {
    return c.max_routes_v6 ? c.max_routes_v6 : c.max_routes;
}

// Groups of 256 entries for prefixes longer than /24. IPv4 needs one per
// /24 that holds a longer prefix (a neighbour's host route, say): at most
// one per route, and full tables hold few. IPv6 needs one per path node:
// the first 3, 4, ... bytes of a route longer than them, shared by the
// routes that share those bytes (a /48 alone takes three, a /64 five, a
// /128 thirteen; routes inside one /48 share all but their last ones). Up
// to 65536 IPv6 routes: five a route, at most 32767; past that 2.5 a
// route, where the synthetic full table (scripts/full-table --stats) needs
// 0.95 (docs/config.md).
constexpr uint32_t kMinRouteGroups = 256;
constexpr uint32_t kMaxShortRouteGroups = 32767;
// What the IPv6 table can index (a group's first entry, below the sign
// bit, less its grace period's): the 2.5 a route stop there, at 3.3
// million routes, which would need that many groups only if nearly every
// one were a /48 from a different /40.
constexpr uint32_t kMaxIpv6Groups = (1u << 23) - 1024;
inline uint32_t ipv4_groups(const L3Config& c) {
    return std::clamp(c.max_routes, kMinRouteGroups, kMaxShortRouteGroups);
}
inline uint32_t ipv6_groups(const L3Config& c) {
    const uint64_t routes = ipv6_routes(c);
    if (routes > 65536) return uint32_t(std::min<uint64_t>(routes * 5 / 2, kMaxIpv6Groups));
    return uint32_t(std::clamp<uint64_t>(routes * 5, kMinRouteGroups, kMaxShortRouteGroups));
}

}  // namespace pmdfwd
