// The router's IPv4 table: DIR-24-8 entries the workers read
// (ipv4_lookup.hpp), the prefixes in DPDK's rte_rib (a path-compressed
// binary trie: an add or delete costs O(32) there, where rte_lpm's rule
// table in DPDK 22.11 costs a scan of every rule of the same length, hours
// for a full Internet table), and groups for the /24s that hold longer
// prefixes, reused only after every worker passed a quiescent point.
// Control side only: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "error.hpp"
#include "fib_groups.hpp"
#include "ipv4_lookup.hpp"

struct rte_rib;
struct rte_rcu_qsbr;

namespace pmdfwd {

class Ipv4Fib {
  public:
    // `max_routes` prefixes; `groups`: how many /24s may hold prefixes
    // longer than /24 at once. A miss gives next hop 0.
    static Result<std::unique_ptr<Ipv4Fib>> create(const std::string& name, uint32_t max_routes,
                                                   uint32_t groups, rte_rcu_qsbr* rcu, int socket);
    ~Ipv4Fib();
    Ipv4Fib(const Ipv4Fib&) = delete;
    Ipv4Fib& operator=(const Ipv4Fib&) = delete;

    Ipv4Tables tables() const { return {tbl24_, tbl8_}; }

    // 0, -ENOSPC (routes or groups used up) or -EINVAL; `ip` in host order.
    // Adding a prefix held already points it at `next_hop`.
    int add(uint32_t ip, uint8_t depth, uint32_t next_hop);
    // 0 or -ENOENT.
    int remove(uint32_t ip, uint8_t depth);
    uint32_t lookup(uint32_t ip) const { return ipv4_lookup(tables(), ip); }

    // Frees the retired groups no worker can hold now; never waits.
    void reclaim() { pool_->reclaim(); }
    uint32_t routes() const { return routes_; }
    uint32_t groups_in_use() const { return pool_->in_use(); }

  private:
    Ipv4Fib() = default;
    // Every address under ip/depth that no longer prefix covers takes
    // `next_hop`.
    int cover(uint32_t ip, uint8_t depth, uint32_t next_hop);
    // Addresses [from, to) take `next_hop`.
    int fill(uint64_t from, uint64_t to, uint32_t next_hop);
    int group_of(uint32_t block);  // the /24's group, made if it has none
    void collapse_if_uniform(uint32_t block, uint32_t group);
    void store(uint32_t* entry, uint32_t value);

    rte_rib* rib_ = nullptr;
    uint32_t* tbl24_ = nullptr;
    uint32_t* tbl8_ = nullptr;
    uint32_t max_routes_ = 0, routes_ = 0;
    uint32_t groups_ = 0;            // /24s with longer prefixes allowed at once
    std::optional<FibGroups> pool_;  // groups_, and the slack for their grace period
    // Prefixes longer than /24 per /24 that holds any: each such /24 needs
    // one group, so adds that would need more than groups_ are refused up
    // front rather than failing half-way.
    std::unordered_map<uint32_t, uint32_t> long_prefixes_;
};

}  // namespace pmdfwd
