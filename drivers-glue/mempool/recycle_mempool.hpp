// The recycling mempool driver ("pmdfwd_recycle", an rte_mempool_ops): a pool
// owned by one lcore. Frees on the owner go to the owner's store with no
// atomic; frees on other worker lcores are batched into an SPSC defer ring per
// (lcore, owner), which the owner drains when it refills; everything else
// (main lcore, non-EAL threads, full defer rings) goes to a shared MP/MC ring.
// Any thread may free; allocation on a non-owner is served by the shared ring.
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "error.hpp"
#include "recycle_counts.hpp"

namespace pmdfwd {

inline constexpr char kRecycleOpsName[] = "pmdfwd_recycle";

// Objects a non-owner lcore collects before pushing them as one batch: two
// bursts, so a worker that frees one burst per iteration pushes once per
// iteration at the flush, and a full batch never waits for it.
constexpr uint32_t kDeferBatch = 64;

// A pktmbuf pool on the recycle ops, owned by owner_lcore. dpdk_cache is
// DPDK's own per-lcore cache in front of the driver (0: every get and put
// reaches the driver, so every figure above is exact). color: objects
// cache-coloured within their pages (mempool_color.hpp).
Result<rte_mempool*> create_recycle_pktmbuf_pool(const char* name, uint32_t mbufs,
                                                 uint32_t dpdk_cache, uint16_t data_room,
                                                 int socket, unsigned owner_lcore,
                                                 bool color = true);

bool is_recycle_pool(const rte_mempool* mp);
unsigned recycle_owner(const rte_mempool* mp);
// The counts and levels of a recycle pool; zeros for any other pool.
RecycleCounts recycle_counts(const rte_mempool* mp);  // sum over lcores
RecycleCounts recycle_counts_of_lcore(const rte_mempool* mp, unsigned lcore);
RecycleLevels recycle_levels(const rte_mempool* mp);  // racy while live; exact when quiet

// On the owner lcore, when it stops polling: everything free that only the
// owner could reach (its DPDK cache, its store, the defer rings) moves to the
// shared ring, so the main lcore can allocate at shutdown (rx drains refill).
void recycle_owner_retire(rte_mempool* mp);

// What a worker lcore keeps to push its frees of one foreign pool at the end
// of every poll-loop iteration. The check is two loads of lines only this
// lcore writes; the push happens only when something is waiting.
struct DeferFlush {
    rte_mempool* mp = nullptr;
    rte_mempool_cache* cache = nullptr;              // DPDK's cache of this lcore, or null
    const std::atomic<uint32_t>* pending = nullptr;  // this lcore's batch length
};

DeferFlush make_defer_flush(rte_mempool* mp, unsigned lcore);
void push_deferred(const DeferFlush& f);  // on the lcore make_defer_flush named

inline void flush_deferred(const DeferFlush& f) {
    if ((f.cache && f.cache->len != 0) || f.pending->load(std::memory_order_relaxed) != 0)
        push_deferred(f);
}

}  // namespace pmdfwd
