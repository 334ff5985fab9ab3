// The recycle driver's counters and free levels, declared once. The driver, the pool and worker
// records (record_schemas.hpp) and so pmdctl and docs/cli.md all read these lists. Pure: no DPDK.
#pragma once

#include <cstddef>
#include <cstdint>

#include "counter_list.hpp"

namespace pmdfwd {

// Modelled on the kernel's page_pool alloc/recycle stats:
// X(name, unit, kind, help); kind rare: a failure or a fallback that is
// normally 0. Each lcore writes its own set; a pool's figures are the sum.
#define PMDFWD_RECYCLE_COUNTS(X)                                                                  \
    X(alloc_fast, mbufs, counter, "owner: objects served from its store as it stood (cache hit)") \
    X(alloc_slow, mbufs, counter, "owner: objects served after a refill of its store")            \
    X(alloc_empty, calls, rare,                                                                   \
      "owner: allocations that failed: every object of the pool was in use")                      \
    X(refill_defer, mbufs, counter, "owner: objects pulled back from defer rings")                \
    X(refill_shared, mbufs, counter, "owner: objects pulled from the shared ring")                \
    X(recycled, mbufs, counter, "objects freed on the owner lcore, straight into its store")      \
    X(deferred, mbufs, counter,                                                                   \
      "objects freed on another worker lcore, pushed to the owner in batches")                    \
    X(defer_full, mbufs, counter,                                                                 \
      "of those, objects that found the defer ring full and took the shared ring")                \
    X(shared_put, mbufs, rare,                                                                    \
      "objects freed on the main lcore or a non-EAL thread (shared ring)")                        \
    X(foreign_alloc, mbufs, rare, "objects allocated on an lcore other than the owner")           \
    X(foreign_fail, calls, rare,                                                                  \
      "allocations on a non-owner lcore that the shared ring could not serve")

// Where a recycle pool's free objects lie now, X(name, unit, kind, help): levels, read while the
// workers run, so approximate; their sum plus DPDK's lcore caches is avail.
#define PMDFWD_RECYCLE_LEVELS(X)                                                                   \
    X(free_owner_store, mbufs, gauge, "free objects in the owner's store, what alloc_fast serves") \
    X(free_pending, mbufs, gauge, "free objects in batches on non-owner lcores, not pushed yet")   \
    X(free_defer_rings, mbufs, gauge,                                                              \
      "free objects pushed to the owner's defer rings, waiting (the owner leaves the newest half " \
      "of each ring to age)")                                                                      \
    X(free_shared_ring, mbufs, gauge, "free objects in the shared ring (at start, every object)")  \
    X(overflow, mbufs, gauge,                                                                      \
      "objects beyond the pool's size, which only a double free causes: it should be 0")

struct RecycleCounts {
    PMDFWD_RECYCLE_COUNTS(PMDFWD_LIST_U64)

    RecycleCounts& operator+=(const RecycleCounts& o);
    RecycleCounts minus(const RecycleCounts& base) const;  // counters only grow
};

// Calls fn(a.x, b.x) for every counter x, in declaration order.
template <class A, class B, class Fn>
void for_each_recycle_count(A& a, B& b, Fn&& fn) {
#define PMDFWD_RECYCLE_VISIT(name, unit, kind, help) fn(a.name, b.name);
    PMDFWD_RECYCLE_COUNTS(PMDFWD_RECYCLE_VISIT)
#undef PMDFWD_RECYCLE_VISIT
}

inline RecycleCounts& RecycleCounts::operator+=(const RecycleCounts& o) {
    for_each_recycle_count(*this, o, [](uint64_t& a, uint64_t b) { a += b; });
    return *this;
}

inline RecycleCounts RecycleCounts::minus(const RecycleCounts& base) const {
    RecycleCounts out = *this;
    for_each_recycle_count(out, base, [](uint64_t& a, uint64_t b) { a -= b; });
    return out;
}

struct RecycleLevels {
    PMDFWD_RECYCLE_LEVELS(PMDFWD_LIST_U64)
};

}  // namespace pmdfwd
