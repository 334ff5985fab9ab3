// The router's forwarding tables (see route_tables.hpp). Control side:
// created on the main lcore before the workers start; changed by one thread
// at a time under the Router's lock.
#include "route_tables.hpp"

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include <algorithm>
#include <atomic>

namespace pmdfwd {

namespace {

std::string dpdk_error(const char* what) {
    return std::string(what) + " failed: " + rte_strerror(rte_errno);
}

}  // namespace

Result<std::unique_ptr<RouterTables>> RouterTables::create(const std::string& name,
                                                           const L3Config& cfg, unsigned workers,
                                                           int socket) {
    std::unique_ptr<RouterTables> t(new RouterTables());
    t->capacity_ = next_hop_capacity(cfg);
    static_assert(kEcmpBuckets == 256 && kMaxNextHops <= UINT16_MAX, "a bucket holds an index");
    t->next_hops_ = static_cast<NextHop*>(
        rte_zmalloc_socket((name + "_nh").c_str(), sizeof(NextHop) * t->capacity_, 64, socket));
    if (!t->next_hops_)
        return make_error("l3: cannot allocate " + std::to_string(t->capacity_) +
                          " next hops: raise eal.memory_mb");
    t->next_hops_[kUnreachableNextHop] = NextHop{};
    for (uint32_t i = t->capacity_ - 1; i > kUnreachableNextHop; --i) t->free_.push_back(i);
    // Slot 0 stays unused, so that a table without groups still has one
    // (the workers' pointer is never null).
    t->group_capacity_ = cfg.max_ecmp_groups;
    const size_t bucket_bytes =
        sizeof(std::atomic<uint16_t>) * kEcmpBuckets * (cfg.max_ecmp_groups + 1);
    t->group_buckets_ = static_cast<std::atomic<uint16_t>*>(
        rte_zmalloc_socket((name + "_ecmp").c_str(), bucket_bytes, 64, socket));
    if (!t->group_buckets_)
        return make_error("l3: cannot allocate " + std::to_string(cfg.max_ecmp_groups) +
                          " equal-cost groups: raise eal.memory_mb");
    for (uint32_t g = cfg.max_ecmp_groups; g > 0; --g) t->free_groups_.push_back(g);

    const size_t rcu_size = rte_rcu_qsbr_get_memsize(workers);
    t->rcu_ = static_cast<rte_rcu_qsbr*>(
        rte_zmalloc_socket((name + "_rcu").c_str(), rcu_size, RTE_CACHE_LINE_SIZE, socket));
    if (!t->rcu_ || rte_rcu_qsbr_init(t->rcu_, workers) != 0)
        return make_error("l3: " + dpdk_error("rte_rcu_qsbr_init"));
    for (unsigned id = 0; id < workers; ++id)
        if (rte_rcu_qsbr_thread_register(t->rcu_, id) != 0)
            return make_error("l3: " + dpdk_error("rte_rcu_qsbr_thread_register"));
    // IPv4: DIR-24-8 of our own over rte_rib (ipv4_fib.hpp), whose groups
    // go back only after every worker passed a quiescent point.
    auto fib4 = Ipv4Fib::create(name, cfg.max_routes, ipv4_groups(cfg), t->rcu_, socket);
    if (!fib4) return fib4.error();
    t->fib4_ = std::move(fib4.value());
    // IPv6: the same design, one level a byte past the first 24 bits
    // (ipv6_fib.hpp).
    auto fib6 = Ipv6Fib::create(name, ipv6_routes(cfg), ipv6_groups(cfg), t->rcu_, socket);
    if (!fib6) return fib6.error();
    t->fib6_ = std::move(fib6.value());

    return t;
}

RouterTables::~RouterTables() {
    fib6_.reset();
    fib4_.reset();
    rte_free(rcu_);
    rte_free(group_buckets_);
    rte_free(next_hops_);
}

Result<uint32_t> RouterTables::add_next_hop(const NextHop& nh) {
    if (free_.empty()) {
        reclaim();
        if (free_.empty())
            return make_error("l3: all " + std::to_string(capacity_) + " next hops are in use (" +
                              std::to_string(retired_.size()) +
                              " waiting for the workers to pass a quiescent point)");
    }
    const uint32_t index = free_.back();
    free_.pop_back();
    next_hops_[index] = nh;
    // The entry is complete in memory before set_route publishes its index.
    std::atomic_thread_fence(std::memory_order_release);
    return index;
}

void RouterTables::retire_next_hop(uint32_t index) {
    if (index == kUnreachableNextHop) return;
    retired_.push_back({rte_rcu_qsbr_start(rcu_), index});
}

Result<uint32_t> RouterTables::add_group(const std::array<uint32_t, kEcmpBuckets>& members) {
    if (free_groups_.empty()) reclaim();
    if (free_groups_.empty())
        return make_error("l3: all " + std::to_string(group_capacity_) +
                          " equal-cost groups are in use (l3.max_ecmp_groups)");
    const uint32_t slot = free_groups_.back();
    std::atomic<uint16_t>* buckets = group_buckets_ + size_t(slot) * kEcmpBuckets;
    for (unsigned b = 0; b < kEcmpBuckets; ++b)
        buckets[b].store(uint16_t(members[b]), std::memory_order_relaxed);
    // add_next_hop's fence publishes the buckets with the group's entry.
    auto hop = add_next_hop(NextHop::of_group(slot));
    if (!hop) return hop;
    free_groups_.pop_back();
    return hop;
}

void RouterTables::set_group_bucket(uint32_t group_hop, unsigned bucket, uint32_t next_hop) {
    const uint32_t slot = next_hops_[group_hop].group_slot();
    // Release: the next hop's entry is complete before a worker reads its index.
    group_buckets_[size_t(slot) * kEcmpBuckets + bucket].store(uint16_t(next_hop),
                                                               std::memory_order_release);
}

uint32_t RouterTables::group_member(uint32_t group_hop, unsigned bucket) const {
    const uint32_t slot = next_hops_[group_hop].group_slot();
    return group_buckets_[size_t(slot) * kEcmpBuckets + bucket].load(std::memory_order_relaxed);
}

void RouterTables::reclaim() {
    fib4_->reclaim();
    fib6_->reclaim();
    while (!retired_.empty() && rte_rcu_qsbr_check(rcu_, retired_.front().token, false) == 1) {
        const uint32_t index = retired_.front().index;
        // A group's buckets go with it: no worker can read them any more.
        if (next_hops_[index].kind == NextHopKind::group)
            free_groups_.push_back(next_hops_[index].group_slot());
#ifdef PMDFWD_POISON_NEXT_HOPS
        // Test builds (test/eal_tests): a freed entry sends to a MAC no
        // neighbour has, so a worker that still reads one shows in its output.
        next_hops_[index] = kPoisonedNextHop;
#endif
        free_.push_back(index);
        retired_.pop_front();
    }
}

Status RouterTables::set_route(const IpPrefix& prefix, uint32_t next_hop) {
    const int rc = prefix.address.family == IpFamily::v4
                       ? fib4_->add(prefix.address.v4_host_order(), prefix.length, next_hop)
                       : fib6_->add(prefix.address.bytes.data(), prefix.length, next_hop);
    if (rc != 0)
        return make_error(
            "l3: cannot add route " + prefix.to_string() + ": " +
                (rc == -ENOSPC ? std::string("the table is full: l3.max_routes, or its groups "
                                             "for prefixes longer than /24 (docs/config.md)")
                               : std::string(rte_strerror(-rc))),
            rc);
    return Ok{};
}

Status RouterTables::delete_route(const IpPrefix& prefix) {
    const int rc = prefix.address.family == IpFamily::v4
                       ? fib4_->remove(prefix.address.v4_host_order(), prefix.length)
                       : fib6_->remove(prefix.address.bytes.data(), prefix.length);
    if (rc != 0)
        return make_error(
            "l3: cannot delete route " + prefix.to_string() + ": " + rte_strerror(-rc), rc);
    return Ok{};
}

uint32_t RouterTables::lookup(const IpAddress& address) const {
    if (address.family == IpFamily::v4) return fib4_->lookup(address.v4_host_order());
    return fib6_->lookup(address.bytes.data());
}

}  // namespace pmdfwd
