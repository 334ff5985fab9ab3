// The router's IPv6 table: the trie the workers read (ipv6_lookup.hpp),
// the prefixes in DPDK's rte_rib6, and groups of 256 entries made where a
// range of addresses holds longer prefixes, reused only after every worker
// passed a quiescent point. Ipv4Fib's design (ipv4_fib.hpp), one level per
// byte past the first 24 bits. Control side only: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "error.hpp"
#include "fib_groups.hpp"
#include "ipv6_lookup.hpp"

struct rte_rib6;
struct rte_rcu_qsbr;

namespace pmdfwd {

class Ipv6Fib {
  public:
    // `max_routes` prefixes; `groups`: how many groups the routes may
    // need at once (ipv6_fib.cpp). A miss gives next hop 0.
    static Result<std::unique_ptr<Ipv6Fib>> create(const std::string& name, uint32_t max_routes,
                                                   uint32_t groups, rte_rcu_qsbr* rcu, int socket);
    ~Ipv6Fib();
    Ipv6Fib(const Ipv6Fib&) = delete;
    Ipv6Fib& operator=(const Ipv6Fib&) = delete;

    Ipv6Tables tables() const;

    // 0, -ENOSPC (routes or groups used up: nothing changed) or -EINVAL;
    // `ip`: 16 bytes in network order, host bits ignored. Adding a prefix
    // held already points it at `next_hop`.
    int add(const uint8_t* ip, uint8_t depth, uint32_t next_hop);
    // 0 or -ENOENT: a delete never needs more groups than the adds took.
    int remove(const uint8_t* ip, uint8_t depth);
    uint32_t lookup(const uint8_t* ip) const { return ipv6_lookup(tables(), ip); }

    // Frees the retired groups no worker can hold now; never waits.
    void reclaim() { pool_->reclaim(); }
    uint32_t routes() const { return routes_; }
    // Groups in use or waiting for the workers' next quiescent point.
    uint32_t groups_in_use() const { return pool_->in_use(); }

  private:
    using Address = unsigned __int128;
    Ipv6Fib() = default;
    // Gives every address of ip/depth that no longer prefix covers
    // `next_hop`.
    void cover(Address ip, uint8_t depth, uint32_t next_hop);
    // The gaps of ip/depth between its longer prefixes, in address order.
    template <typename Fn>
    void for_each_gap(Address ip, uint8_t depth, Fn&& fn);
    // Addresses [first, last] under `entries` (a level of `shift`) take
    // the entry `value`.
    void fill(uint32_t* entries, unsigned shift, Address first, Address last, uint32_t value);
    uint32_t* group_of(uint32_t* entry);  // the entry's group, made if it has none
    void collapse_if_uniform(uint32_t* entry);
    void replace(uint32_t* entry, uint32_t value);
    void retire_tree(uint32_t group_entry);
    uint32_t* entries_of(uint32_t group_entry) const;
    void store(uint32_t* entry, uint32_t value);

    // Where a route's groups would be: its prefixes of /24, /32, ... up
    // to below its own length.
    struct PathNode {
        Address prefix;
        uint8_t length;
        bool operator==(const PathNode&) const = default;
    };
    struct PathNodeHash {
        size_t operator()(const PathNode& n) const;
    };
    template <typename Fn>
    void for_each_path_node(Address ip, uint8_t depth, Fn&& fn) const;

    rte_rib6* rib_ = nullptr;
    uint32_t* tbl24_ = nullptr;
    uint32_t* tbl8_ = nullptr;
    uint32_t max_routes_ = 0, routes_ = 0;
    uint32_t groups_ = 0;            // path nodes at once
    std::optional<FibGroups> pool_;  // groups_, and the slack for their grace period
    // Routes through each path node: at most `groups_` nodes.
    std::unordered_map<PathNode, uint32_t, PathNodeHash> path_nodes_;
};

}  // namespace pmdfwd
