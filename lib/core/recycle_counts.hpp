// The recycle driver's counters, declared once: the driver, the records the
// control plane shows, and docs/cli.md all read this list. Pure: no DPDK.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmdfwd {

// Counters modelled on the kernel's page_pool alloc/recycle stats, declared
// once. Each lcore writes its own set; a pool's figures are the sum.
#define PMDFWD_RECYCLE_COUNTS(X)                                                               \
    X(alloc_fast, "owner: objects served from its store as it stood (cache hit)")              \
    X(alloc_slow, "owner: objects served after a refill of its store")                         \
    X(alloc_empty, "owner: allocations that failed: every object of the pool was in use")      \
    X(refill_defer, "owner: objects pulled back from defer rings")                             \
    X(refill_shared, "owner: objects pulled from the shared ring")                             \
    X(recycled, "objects freed on the owner lcore, straight into its store")                   \
    X(deferred, "objects freed on another worker lcore, pushed to the owner in batches")       \
    X(defer_full, "of those, objects that found the defer ring full and took the shared ring") \
    X(shared_put, "objects freed on the main lcore or a non-EAL thread (shared ring)")         \
    X(foreign_alloc, "objects allocated on an lcore other than the owner")                     \
    X(foreign_fail, "allocations on a non-owner lcore that the shared ring could not serve")

struct RecycleCounts {
#define PMDFWD_RECYCLE_FIELD(name, help) uint64_t name = 0;
    PMDFWD_RECYCLE_COUNTS(PMDFWD_RECYCLE_FIELD)
#undef PMDFWD_RECYCLE_FIELD

    RecycleCounts& operator+=(const RecycleCounts& o);
    RecycleCounts minus(const RecycleCounts& base) const;  // counters only grow
};

struct RecycleCountInfo {
    const char* name;
    const char* help;
};

inline constexpr RecycleCountInfo kRecycleCountInfo[] = {
#define PMDFWD_RECYCLE_INFO(name, help) {#name, help},
    PMDFWD_RECYCLE_COUNTS(PMDFWD_RECYCLE_INFO)
#undef PMDFWD_RECYCLE_INFO
};

// Calls fn(info, a.x, b.x) for every counter x, in declaration order.
template <class A, class B, class Fn>
void for_each_recycle_count(A& a, B& b, Fn&& fn) {
    size_t i = 0;
#define PMDFWD_RECYCLE_VISIT(name, help) fn(kRecycleCountInfo[i++], a.name, b.name);
    PMDFWD_RECYCLE_COUNTS(PMDFWD_RECYCLE_VISIT)
#undef PMDFWD_RECYCLE_VISIT
}

inline RecycleCounts& RecycleCounts::operator+=(const RecycleCounts& o) {
    for_each_recycle_count(*this, o,
                           [](const RecycleCountInfo&, uint64_t& a, uint64_t b) { a += b; });
    return *this;
}

inline RecycleCounts RecycleCounts::minus(const RecycleCounts& base) const {
    RecycleCounts out = *this;
    for_each_recycle_count(out, base,
                           [](const RecycleCountInfo&, uint64_t& a, uint64_t b) { a -= b; });
    return out;
}

struct RecycleLevels {
    uint64_t owner_store = 0;  // free objects in the owner's store
    uint64_t pending = 0;      // in non-owner batches, not yet pushed
    uint64_t defer_rings = 0;  // in defer rings, waiting for the owner
    uint64_t shared_ring = 0;
    uint64_t overflow = 0;  // objects beyond the pool's size: double frees
};

}  // namespace pmdfwd
