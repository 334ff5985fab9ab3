// The router's IPv4 table (see ipv4_fib.hpp). A prefix's change rewrites
// the addresses it covers and no longer prefix covers, range by range: a
// whole /24 is one tbl24 entry, part of one is entries of its group. As in
// DPDK's dir24_8 (rte_fib), whose layout this shares; unlike it, a group
// left uniform folds back into its tbl24 entry and is reused only after the
// workers' next quiescent point, so a worker that read the old tbl24 entry
// never reads a group that already serves another /24.
#include "ipv4_fib.hpp"

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rib.h>

#include <algorithm>
#include <atomic>

namespace pmdfwd {

namespace {

constexpr uint64_t kTbl24Entries = uint64_t(1) << 24;
// rte_rib makes at most one node besides the prefix's own (where two
// prefixes part), so twice the prefixes.
uint32_t rib_nodes(uint32_t max_routes) { return 2 * max_routes; }

uint64_t block_base(uint32_t block) { return uint64_t(block) << 8; }

}  // namespace

Result<std::unique_ptr<Ipv4Fib>> Ipv4Fib::create(const std::string& name, uint32_t max_routes,
                                                 uint32_t groups, rte_rcu_qsbr* rcu, int socket) {
    std::unique_ptr<Ipv4Fib> f(new Ipv4Fib());
    f->max_routes_ = max_routes;
    f->groups_ = groups;
    const std::string more = " (the IPv4 table: raise eal.memory_mb)";
    rte_rib_conf rc{};
    rc.max_nodes = int(rib_nodes(max_routes));
    f->rib_ = rte_rib_create((name + "_rib4").c_str(), socket, &rc);
    if (!f->rib_)
        return make_error("l3: rte_rib_create failed: " + std::string(rte_strerror(rte_errno)) +
                          more);
    f->tbl24_ = static_cast<uint32_t*>(
        rte_zmalloc_socket((name + "_tbl24").c_str(), kTbl24Entries * 4, 64, socket));
    f->tbl8_ = static_cast<uint32_t*>(
        rte_zmalloc_socket((name + "_tbl8").c_str(),
                           uint64_t(groups + kFibGraceGroups) * kIpv4GroupEntries * 4, 64, socket));
    if (!f->tbl24_ || !f->tbl8_) return make_error("l3: cannot allocate the IPv4 table" + more);
    f->pool_.emplace(groups + kFibGraceGroups, rcu);
    return f;
}

Ipv4Fib::~Ipv4Fib() {
    rte_free(tbl8_);
    rte_free(tbl24_);
    if (rib_) rte_rib_free(rib_);
}

// One aligned 4-byte store, released: what an entry points at (a group's
// entries, a next hop) is written before the entry.
void Ipv4Fib::store(uint32_t* entry, uint32_t value) {
    __atomic_store_n(entry, value, __ATOMIC_RELEASE);
}

int Ipv4Fib::add(uint32_t ip, uint8_t depth, uint32_t next_hop) {
    if (depth > 32 || next_hop > (UINT32_MAX >> 1)) return -EINVAL;
    reclaim();
    ip &= rte_rib_depth_to_mask(depth);
    if (rte_rib_node* node = rte_rib_lookup_exact(rib_, ip, depth)) {
        uint64_t held = 0;
        rte_rib_get_nh(node, &held);
        if (held == next_hop) return 0;
        const int rc = cover(ip, depth, next_hop);
        if (rc == 0) rte_rib_set_nh(node, next_hop);
        return rc;
    }
    if (routes_ >= max_routes_) return -ENOSPC;
    const uint32_t block = ip >> 8;
    if (depth > 24 && !long_prefixes_.contains(block) && long_prefixes_.size() >= groups_)
        return -ENOSPC;
    rte_rib_node* node = rte_rib_insert(rib_, ip, depth);
    if (!node) return -ENOSPC;  // no node left in rte_rib's pool
    rte_rib_set_nh(node, next_hop);
    uint64_t parent_hop = 0;
    if (rte_rib_node* parent = rte_rib_lookup_parent(node)) rte_rib_get_nh(parent, &parent_hop);
    if (parent_hop != next_hop) {
        if (const int rc = cover(ip, depth, next_hop); rc != 0) {
            rte_rib_remove(rib_, ip, depth);
            return rc;
        }
    }
    routes_++;
    if (depth > 24) long_prefixes_[block]++;
    return 0;
}

int Ipv4Fib::remove(uint32_t ip, uint8_t depth) {
    if (depth > 32) return -EINVAL;
    reclaim();
    ip &= rte_rib_depth_to_mask(depth);
    rte_rib_node* node = rte_rib_lookup_exact(rib_, ip, depth);
    if (!node) return -ENOENT;
    uint64_t held = 0, parent_hop = 0;
    rte_rib_get_nh(node, &held);
    if (rte_rib_node* parent = rte_rib_lookup_parent(node)) rte_rib_get_nh(parent, &parent_hop);
    if (parent_hop != held)
        if (const int rc = cover(ip, depth, uint32_t(parent_hop)); rc != 0) return rc;
    rte_rib_remove(rib_, ip, depth);
    routes_--;
    if (depth > 24) {
        const auto it = long_prefixes_.find(ip >> 8);
        if (--it->second == 0) long_prefixes_.erase(it);
    }
    return 0;
}

// The gaps between the longer prefixes under ip/depth: rte_rib gives the
// outermost of them in address order.
int Ipv4Fib::cover(uint32_t ip, uint8_t depth, uint32_t next_hop) {
    uint64_t from = ip;
    const uint64_t end = uint64_t(ip) + (uint64_t(1) << (32 - depth));
    rte_rib_node* inner = nullptr;
    while ((inner = rte_rib_get_nxt(rib_, ip, depth, inner, RTE_RIB_GET_NXT_COVER))) {
        uint32_t inner_ip = 0;
        uint8_t inner_depth = 0;
        rte_rib_get_ip(inner, &inner_ip);
        rte_rib_get_depth(inner, &inner_depth);
        if (const int rc = fill(from, inner_ip, next_hop); rc != 0) return rc;
        from = uint64_t(inner_ip) + (uint64_t(1) << (32 - inner_depth));
    }
    return fill(from, end, next_hop);
}

int Ipv4Fib::fill(uint64_t from, uint64_t to, uint32_t next_hop) {
    while (from < to) {
        const uint32_t block = uint32_t(from >> 8);
        const uint64_t block_end = block_base(block) + kIpv4GroupEntries;
        if ((from & 0xff) == 0 && block_end <= to) {
            // Whole /24s: their tbl24 entries. One that still has a group
            // (left by a longer prefix gone in this change) drops it.
            const uint32_t last = uint32_t(to >> 8);
            for (uint32_t b = block; b < last; ++b) {
                const uint32_t was = tbl24_[b];
                store(&tbl24_[b], next_hop << 1);
                if (was & kIpv4Extended) pool_->retire(was >> 1);
            }
            from = block_base(last);
            continue;
        }
        const uint64_t end = std::min(to, block_end);
        const int group = group_of(block);
        if (group < 0) return group;
        uint32_t* entries = tbl8_ + uint64_t(group) * kIpv4GroupEntries;
        for (uint64_t a = from; a < end; ++a) store(&entries[a & 0xff], next_hop);
        collapse_if_uniform(block, uint32_t(group));
        from = end;
    }
    return 0;
}

int Ipv4Fib::group_of(uint32_t block) {
    const uint32_t entry = tbl24_[block];
    if (entry & kIpv4Extended) return int(entry >> 1);
    const std::optional<uint32_t> taken = pool_->take();
    if (!taken) return -ENOSPC;
    const uint32_t group = *taken;
    uint32_t* entries = tbl8_ + uint64_t(group) * kIpv4GroupEntries;
    std::fill_n(entries, kIpv4GroupEntries, entry >> 1);
    store(&tbl24_[block], (group << 1) | kIpv4Extended);
    return int(group);
}

void Ipv4Fib::collapse_if_uniform(uint32_t block, uint32_t group) {
    const uint32_t* entries = tbl8_ + uint64_t(group) * kIpv4GroupEntries;
    if (!std::all_of(entries + 1, entries + kIpv4GroupEntries,
                     [first = entries[0]](uint32_t e) { return e == first; }))
        return;
    store(&tbl24_[block], entries[0] << 1);
    pool_->retire(group);
}

}  // namespace pmdfwd
