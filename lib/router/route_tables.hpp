// The router's forwarding tables: Ipv4Fib (IPv4, DIR-24-8 over rte_rib)
// and Ipv6Fib (IPv6, a trie of the same design over rte_rib6) mapping
// prefixes to next-hop indexes, the next-hop table the workers read, and the RCU variable that
// tells when a next hop no worker can still hold may be reused. Workers only read (RouterView);
// every change is made by one control thread at a time, under the Router's lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ecmp_paths.hpp"
#include "error.hpp"
#include "ip_prefix.hpp"
#include "ipv4_fib.hpp"
#include "ipv6_fib.hpp"
#include "l3_config.hpp"
#include "l3_next_hop.hpp"

namespace pmdfwd {

// What a freed next hop holds in a build with PMDFWD_POISON_NEXT_HOPS (the
// EAL tests): forward on port 0 to 02:de:ad:00:00:00 from 02:de:ad:00:00:01.
constexpr NextHop kPoisonedNextHop{
    {0x02, 0xde, 0xad, 0, 0, 0, 0x02, 0xde, 0xad, 0, 0, 1}, 0, NextHopKind::forward, 0};

class RouterTables {
  public:
    // `workers`: the RCU thread ids 0..workers-1 the workers report on.
    static Result<std::unique_ptr<RouterTables>> create(const std::string& name,
                                                        const L3Config& cfg, unsigned workers,
                                                        int socket);
    ~RouterTables();
    RouterTables(const RouterTables&) = delete;
    RouterTables& operator=(const RouterTables&) = delete;

    RouterView view() const {
        return {fib4_->tables(), fib6_->tables(), next_hops_, group_buckets_, rcu_};
    }

    // A new next hop, written before any route can point at it; an error
    // when all capacity() entries are in use or waiting to be reclaimed.
    Result<uint32_t> add_next_hop(const NextHop& nh);
    // No route points at `index` any more: it is reused once every worker
    // has passed a quiescent point (reclaim()).
    void retire_next_hop(uint32_t index);
    // Frees the retired next hops (and groups of both tables) no worker can hold
    // now; never waits.
    void reclaim();
    const NextHop& next_hop(uint32_t index) const { return next_hops_[index]; }
    uint32_t capacity() const { return capacity_; }
    uint32_t in_use() const { return capacity_ - uint32_t(free_.size()); }
    size_t retired() const { return retired_.size(); }

    // An equal-cost group: a next hop of kind group whose kEcmpBuckets
    // buckets hold `members` (next-hop indexes), written before the group's
    // index is returned. An error when l3.max_ecmp_groups groups are in
    // use or waiting to be reclaimed. Retired as any next hop is, its
    // buckets freed with it.
    Result<uint32_t> add_group(const std::array<uint32_t, kEcmpBuckets>& members);
    // One bucket to another next hop (a member's neighbour changed): one
    // store, so a worker takes the old next hop or the new one.
    void set_group_bucket(uint32_t group_hop, unsigned bucket, uint32_t next_hop);
    uint32_t group_member(uint32_t group_hop, unsigned bucket) const;
    uint32_t groups_in_use() const { return group_capacity_ - uint32_t(free_groups_.size()); }

    // Adds the prefix, or points it at another next hop (one store per
    // table entry, so a lookup sees the old next hop or the new one).
    Status set_route(const IpPrefix& prefix, uint32_t next_hop);
    Status delete_route(const IpPrefix& prefix);
    // The next hop a lookup of `address` gives now (control side: show, ping).
    uint32_t lookup(const IpAddress& address) const;

  private:
    RouterTables() = default;

    std::unique_ptr<Ipv4Fib> fib4_;
    std::unique_ptr<Ipv6Fib> fib6_;
    NextHop* next_hops_ = nullptr;
    std::atomic<uint16_t>* group_buckets_ = nullptr;
    rte_rcu_qsbr* rcu_ = nullptr;
    uint32_t capacity_ = 0;
    std::vector<uint32_t> free_;  // indexes to hand out, last first
    uint32_t group_capacity_ = 0;
    std::vector<uint32_t> free_groups_;  // group slots to hand out, last first
    struct Retired {
        uint64_t token;
        uint32_t index;
    };
    std::deque<Retired> retired_;  // in retirement order, so tokens only grow
};

}  // namespace pmdfwd
