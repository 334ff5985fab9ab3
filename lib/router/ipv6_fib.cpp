// The router's IPv6 table (see ipv6_fib.hpp). A prefix's change rewrites
// the addresses it covers and no longer prefix covers, gap by gap: an
// entry the gap covers whole takes the next hop (its groups, if it had
// any, retired with it), one it covers in part gets a group and the gap's
// part of it is filled there, a level down. A group left uniform folds
// back into its entry.
//
// Groups are counted by where they may be needed, not where they are: a
// group exists only at a path node (the bits before a byte that some
// route longer than them runs through), so an add that would make the
// path nodes more than `groups` is refused before anything changes, and
// no later change, a delete that splits a folded group included, can run
// out (rte_fib6 reserves per route instead, and more: a /48 three groups
// though it shares most of them).
#include "ipv6_fib.hpp"

#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rib6.h>

#include <algorithm>

#include "l3_config.hpp"

namespace pmdfwd {

namespace {

using Address = unsigned __int128;

constexpr uint64_t kV6Tbl24Entries = uint64_t(1) << 24;
// The first level's entries each hold the addresses that share 24 bits:
// the rest, 104, are below them.
constexpr unsigned kTbl24Shift = 104;
constexpr unsigned kStride = 8;  // bits a group takes
// A group is found by the index of its first entry, kept below kIpv6Group.
constexpr uint64_t kMaxGroups = kIpv6Group / kIpv6GroupEntries;
static_assert(kMaxIpv6Groups + kFibGraceGroups <= kMaxGroups, "l3_config.hpp's cap fits");

Address from_bytes(const uint8_t* b) {
    Address a = 0;
    for (int i = 0; i < 16; ++i) a = a << 8 | b[i];
    return a;
}

void to_bytes(Address a, uint8_t* b) {
    for (int i = 15; i >= 0; --i, a >>= 8) b[i] = uint8_t(a);
}

// The host bits of a /depth.
Address host_mask(uint8_t depth) {
    return depth == 0 ? ~Address(0) : (Address(1) << (128 - depth)) - 1;
}

// Calls fn(index, first, last, whole) for each entry of a level of
// `shift` (its entries each hold 2^shift addresses) that [first, last]
// reaches, with the part of the range in it and whether that is all of it.
template <typename Fn>
void for_each_entry(unsigned shift, Address first, Address last, Fn&& fn) {
    const Address span = (Address(1) << shift) - 1;
    const unsigned index_mask = shift == kTbl24Shift ? kV6Tbl24Entries - 1 : kIpv6GroupEntries - 1;
    for (Address a = first;;) {
        const Address to = std::min(last, a | span);
        fn(size_t(a >> shift) & index_mask, a, to, (a & span) == 0 && to == (a | span));
        if (to == last) return;
        a = to + 1;
    }
}

}  // namespace

Result<std::unique_ptr<Ipv6Fib>> Ipv6Fib::create(const std::string& name, uint32_t max_routes,
                                                 uint32_t groups, rte_rcu_qsbr* rcu, int socket) {
    std::unique_ptr<Ipv6Fib> f(new Ipv6Fib());
    f->max_routes_ = max_routes;
    f->groups_ = groups;
    const std::string more = " (the IPv6 table: raise eal.memory_mb)";
    if (uint64_t(groups) + kFibGraceGroups > kMaxGroups)
        return make_error("l3: at most " + std::to_string(kMaxGroups - kFibGraceGroups) +
                          " IPv6 groups");
    rte_rib6_conf rc{};
    // As rte_rib's: at most one node besides each prefix's own.
    rc.max_nodes = int(2 * uint64_t(max_routes));
    f->rib_ = rte_rib6_create((name + "_rib6").c_str(), socket, &rc);
    if (!f->rib_)
        return make_error("l3: rte_rib6_create failed: " + std::string(rte_strerror(rte_errno)) +
                          more);
    f->tbl24_ = static_cast<uint32_t*>(
        rte_zmalloc_socket((name + "_v6tbl24").c_str(), kV6Tbl24Entries * 4, 64, socket));
    f->tbl8_ = static_cast<uint32_t*>(
        rte_zmalloc_socket((name + "_v6tbl8").c_str(),
                           uint64_t(groups + kFibGraceGroups) * kIpv6GroupEntries * 4, 64, socket));
    if (!f->tbl24_ || !f->tbl8_) return make_error("l3: cannot allocate the IPv6 table" + more);
    f->pool_.emplace(groups + kFibGraceGroups, rcu);
    return f;
}

Ipv6Fib::~Ipv6Fib() {
    rte_free(tbl8_);
    rte_free(tbl24_);
    if (rib_) rte_rib6_free(rib_);
}

Ipv6Tables Ipv6Fib::tables() const {
    return {tbl24_, uintptr_t(tbl8_) - uintptr_t(kIpv6Group) * sizeof(uint32_t)};
}

// One aligned 4-byte store, released: what an entry points at (a group's
// entries, a next hop) is written before the entry.
void Ipv6Fib::store(uint32_t* entry, uint32_t value) {
    __atomic_store_n(entry, value, __ATOMIC_RELEASE);
}

uint32_t* Ipv6Fib::entries_of(uint32_t group_entry) const {
    return tbl8_ + (group_entry & ~kIpv6Group);
}

int Ipv6Fib::add(const uint8_t* ip_bytes, uint8_t depth, uint32_t next_hop) {
    if (depth > 128 || next_hop >= kIpv6Group >> 1) return -EINVAL;
    reclaim();
    const Address ip = from_bytes(ip_bytes) & ~host_mask(depth);
    uint8_t key[16];
    to_bytes(ip, key);
    if (rte_rib6_node* node = rte_rib6_lookup_exact(rib_, key, depth)) {
        uint64_t held = 0;
        rte_rib6_get_nh(node, &held);
        if (held == next_hop) return 0;
        cover(ip, depth, next_hop);
        rte_rib6_set_nh(node, next_hop);
        return 0;
    }
    if (routes_ >= max_routes_) return -ENOSPC;
    size_t new_nodes = 0;
    for_each_path_node(ip, depth,
                       [&](const PathNode& n) { new_nodes += !path_nodes_.contains(n); });
    if (path_nodes_.size() + new_nodes > groups_) return -ENOSPC;
    rte_rib6_node* node = rte_rib6_insert(rib_, key, depth);
    if (!node) return -ENOSPC;  // no node left in rte_rib6's pool
    rte_rib6_set_nh(node, next_hop);
    uint64_t parent_hop = 0;
    if (rte_rib6_node* parent = rte_rib6_lookup_parent(node)) rte_rib6_get_nh(parent, &parent_hop);
    for_each_path_node(ip, depth, [&](const PathNode& n) { path_nodes_[n]++; });
    if (parent_hop != next_hop) cover(ip, depth, next_hop);
    routes_++;
    return 0;
}

int Ipv6Fib::remove(const uint8_t* ip_bytes, uint8_t depth) {
    if (depth > 128) return -EINVAL;
    reclaim();
    const Address ip = from_bytes(ip_bytes) & ~host_mask(depth);
    uint8_t key[16];
    to_bytes(ip, key);
    rte_rib6_node* node = rte_rib6_lookup_exact(rib_, key, depth);
    if (!node) return -ENOENT;
    uint64_t held = 0, parent_hop = 0;
    rte_rib6_get_nh(node, &held);
    if (rte_rib6_node* parent = rte_rib6_lookup_parent(node)) rte_rib6_get_nh(parent, &parent_hop);
    if (parent_hop != held) cover(ip, depth, uint32_t(parent_hop));
    rte_rib6_remove(rib_, key, depth);
    for_each_path_node(ip, depth, [&](const PathNode& n) {
        const auto it = path_nodes_.find(n);
        if (--it->second == 0) path_nodes_.erase(it);
    });
    routes_--;
    return 0;
}

// rte_rib6 gives the outermost longer prefixes under ip/depth in address
// order.
template <typename Fn>
void Ipv6Fib::for_each_gap(Address ip, uint8_t depth, Fn&& fn) {
    uint8_t key[16];
    to_bytes(ip, key);
    const Address last = ip | host_mask(depth);
    Address from = ip;
    rte_rib6_node* inner = nullptr;
    while ((inner = rte_rib6_get_nxt(rib_, key, depth, inner, RTE_RIB6_GET_NXT_COVER))) {
        uint8_t inner_key[16];
        uint8_t inner_depth = 0;
        rte_rib6_get_ip(inner, inner_key);
        rte_rib6_get_depth(inner, &inner_depth);
        const Address inner_first = from_bytes(inner_key);
        const Address inner_last = inner_first | host_mask(inner_depth);
        if (inner_first > from) fn(from, inner_first - 1);
        if (inner_last == last) return;
        from = inner_last + 1;
    }
    fn(from, last);
}

void Ipv6Fib::cover(Address ip, uint8_t depth, uint32_t next_hop) {
    const uint32_t value = next_hop << 1;  // the entries' form (ipv6_lookup.hpp)
    for_each_gap(ip, depth, [&](Address first, Address last) {
        fill(tbl24_, kTbl24Shift, first, last, value);
    });
}

// A route of more than 24 bits needs a group a byte past the 24th up to
// its last: each at the prefix of the bits before that byte.
template <typename Fn>
void Ipv6Fib::for_each_path_node(Address ip, uint8_t depth, Fn&& fn) const {
    for (unsigned length = 128 - kTbl24Shift; length < depth; length += kStride)
        fn(PathNode{ip & ~host_mask(uint8_t(length)), uint8_t(length)});
}

size_t Ipv6Fib::PathNodeHash::operator()(const PathNode& n) const {
    const uint64_t mixed =
        (uint64_t(n.prefix >> 64) * 0x9e3779b97f4a7c15ull) ^ uint64_t(n.prefix) ^ n.length;
    return std::hash<uint64_t>{}(mixed);
}

void Ipv6Fib::fill(uint32_t* entries, unsigned shift, Address first, Address last, uint32_t value) {
    for_each_entry(shift, first, last, [&](size_t index, Address a, Address to, bool whole) {
        uint32_t* entry = &entries[index];
        if (whole) {
            replace(entry, value);
            return;
        }
        if (!(*entry & kIpv6Group) && *entry == value) return;
        fill(group_of(entry), shift - kStride, a, to, value);
        collapse_if_uniform(entry);
    });
}

void Ipv6Fib::replace(uint32_t* entry, uint32_t value) {
    const uint32_t was = *entry;
    if (was == value) return;
    store(entry, value);
    if (was & kIpv6Group) retire_tree(was);
}

// A group no entry points at any more, and every group below it: a worker
// that read the old entry may still walk them until its next quiescent
// point.
void Ipv6Fib::retire_tree(uint32_t group_entry) {
    const uint32_t* entries = entries_of(group_entry);
    for (unsigned i = 0; i < kIpv6GroupEntries; ++i)
        if (entries[i] & kIpv6Group) retire_tree(entries[i]);
    pool_->retire((group_entry & ~kIpv6Group) / kIpv6GroupEntries);
}

uint32_t* Ipv6Fib::group_of(uint32_t* entry) {
    if (*entry & kIpv6Group) return entries_of(*entry);
    // Every live group is at a path node, and add() keeps those to groups_:
    // once the retired ones are back, the grace slack is free.
    const std::optional<uint32_t> taken = pool_->take();
    RTE_VERIFY(taken.has_value());
    const uint32_t group = *taken;
    uint32_t* entries = tbl8_ + uint64_t(group) * kIpv6GroupEntries;
    std::fill_n(entries, kIpv6GroupEntries, *entry);
    store(entry, kIpv6Group | group * kIpv6GroupEntries);
    return entries;
}

void Ipv6Fib::collapse_if_uniform(uint32_t* entry) {
    const uint32_t* entries = entries_of(*entry);
    const uint32_t first = entries[0];
    if ((first & kIpv6Group) || !std::all_of(entries + 1, entries + kIpv6GroupEntries,
                                             [first](uint32_t e) { return e == first; }))
        return;
    replace(entry, first);
}

}  // namespace pmdfwd
