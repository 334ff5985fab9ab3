// The recycling mempool driver (see recycle_mempool.hpp). enqueue/dequeue run
// on whatever thread frees or allocates (workers, PMDs inside tx_burst, the
// main lcore, non-EAL threads); alloc/free/create run on the main lcore.
// An object that fits nowhere is counted as overflow, which only a double
// free can cause (the pool then holds more than its size; which copy is
// kept is arbitrary).
#include "recycle_mempool.hpp"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "mempool_color.hpp"

namespace pmdfwd {

namespace {

// A defer ring holds what one lcore frees between two refills of the owner
// plus the half that is left to age (see refill_store): 1024 buffers of age
// and 1024 of slack, many bursts before a sender falls back to the shared ring.
constexpr uint32_t kDeferRingSize = 2048;
// When the defer rings are dry the owner takes at least this much from the
// shared ring, so one refill serves several bursts.
constexpr uint32_t kSharedRefill = 128;

struct SlotCounts {
#define PMDFWD_RECYCLE_ATOMIC(name, unit, kind, help) std::atomic<uint64_t> name{0};
    PMDFWD_RECYCLE_COUNTS(PMDFWD_RECYCLE_ATOMIC)
#undef PMDFWD_RECYCLE_ATOMIC
};

// One per EAL lcore, written only by that lcore; one more for every other
// thread, whose counters are then updated atomically.
struct alignas(64) Slot {
    SlotCounts counts;
    bool many_writers = false;
    rte_ring* defer = nullptr;  // towards the owner; null on the owner and the main lcore
    alignas(64) std::atomic<uint32_t> pending_len{0};
    void* pending[kDeferBatch];
};

struct Recycler {
    unsigned owner = 0;
    uint32_t size = 0;
    rte_ring* shared = nullptr;
    Slot* slots[RTE_MAX_LCORE] = {};
    Slot* other_threads = nullptr;
    rte_ring* defer_rings[RTE_MAX_LCORE] = {};  // the owner's inbound rings, packed
    unsigned defer_ring_count = 0;
    uint32_t defer_age = 0;   // objects left in each defer ring to age (half its size)
    uint32_t dpdk_cache = 0;  // the size of DPDK's lcore caches in front
    bool color = true;        // objects cache-coloured when populated
    std::atomic<uint64_t> overflow{0};

    // The owner's store: a LIFO that holds the whole pool, so the owner never
    // has to give objects away and its next allocation gets the warmest ones.
    alignas(64) std::atomic<uint32_t> store_len{0};
    void** store = nullptr;
};

struct RecycleParams {
    unsigned owner_lcore = 0;
    bool color = true;
};

void add(const Slot& s, std::atomic<uint64_t>& c, uint64_t n) {
    if (s.many_writers)
        c.fetch_add(n, std::memory_order_relaxed);
    else
        c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

Recycler& recycler(const rte_mempool* mp) { return *static_cast<Recycler*>(mp->pool_data); }

Slot& slot_for(Recycler& r, unsigned lcore) {
    return lcore < RTE_MAX_LCORE && r.slots[lcore] ? *r.slots[lcore] : *r.other_threads;
}

// Objects always fit unless the pool holds more than its size: a double free.
void put_shared(Recycler& r, void* const* objs, unsigned n) {
    const unsigned done = rte_ring_mp_enqueue_burst(r.shared, objs, n, nullptr);
    if (done < n) r.overflow.fetch_add(n - done, std::memory_order_relaxed);
}

void put_owner(Recycler& r, void* const* objs, unsigned n) {
    const uint32_t len = r.store_len.load(std::memory_order_relaxed);
    const unsigned fit = std::min(n, r.size - len);
    std::memcpy(r.store + len, objs, fit * sizeof(void*));
    r.store_len.store(len + fit, std::memory_order_relaxed);
    add(*r.slots[r.owner], r.slots[r.owner]->counts.recycled, fit);
    if (fit < n) r.overflow.fetch_add(n - fit, std::memory_order_relaxed);
}

void push_to_owner(Recycler& r, Slot& s, void* const* objs, unsigned n) {
    const unsigned done = rte_ring_sp_enqueue_burst(s.defer, objs, n, nullptr);
    add(s, s.counts.deferred, n);
    if (done < n) {
        add(s, s.counts.defer_full, n - done);
        put_shared(r, objs + done, n - done);
    }
}

// The length drops to zero before the push so that a concurrent count may
// miss the batch for a moment but never counts it twice.
void push_pending(Recycler& r, Slot& s) {
    const uint32_t len = s.pending_len.load(std::memory_order_relaxed);
    if (len == 0) return;
    s.pending_len.store(0, std::memory_order_relaxed);
    push_to_owner(r, s, s.pending, len);
}

void put_deferred(Recycler& r, Slot& s, void* const* objs, unsigned n) {
    const uint32_t len = s.pending_len.load(std::memory_order_relaxed);
    if (len + n <= kDeferBatch) {
        std::memcpy(s.pending + len, objs, n * sizeof(void*));
        s.pending_len.store(len + n, std::memory_order_relaxed);
        return;
    }
    push_pending(r, s);
    if (n < kDeferBatch) {
        std::memcpy(s.pending, objs, n * sizeof(void*));
        s.pending_len.store(n, std::memory_order_relaxed);
    } else {
        push_to_owner(r, s, objs, n);
    }
}

int recycle_enqueue(rte_mempool* mp, void* const* objs, unsigned n) {
    Recycler& r = recycler(mp);
    const unsigned lcore = rte_lcore_id();
    if (lcore == r.owner) {
        put_owner(r, objs, n);
        return 0;
    }
    Slot& s = slot_for(r, lcore);
    if (s.defer) {
        put_deferred(r, s, objs, n);
        return 0;
    }
    add(s, s.counts.shared_put, n);
    put_shared(r, objs, n);
    return 0;
}

// A defer ring is a delay line: the owner takes only what lies beyond its
// newest half. Those newest buffers were freed moments ago on the other core
// and their lines still sit in its cache; writing them now would pull each
// line back across (measured: ~25% of handoff throughput on net_null, see
// docs/performance.md). The shared ring tops up what this request still
// lacks, plus a batch; only when both fall short are young buffers taken, so
// an allocation fails only when the pool is truly empty.
uint32_t take_from_defer_rings(Recycler& r, Slot& s, uint32_t len, uint32_t keep) {
    for (unsigned i = 0; i < r.defer_ring_count && len < r.size; ++i) {
        const unsigned have = rte_ring_count(r.defer_rings[i]);
        if (have <= keep) continue;
        const unsigned got = rte_ring_sc_dequeue_burst(
            r.defer_rings[i], r.store + len, std::min(have - keep, r.size - len), nullptr);
        len += got;
        add(s, s.counts.refill_defer, got);
    }
    return len;
}

uint32_t refill_store(Recycler& r, Slot& s, uint32_t len, unsigned n) {
    len = take_from_defer_rings(r, s, len, r.defer_age);
    if (len < n + kSharedRefill) {
        const unsigned want = std::min(n + kSharedRefill - len, r.size - len);
        const unsigned got = rte_ring_mc_dequeue_burst(r.shared, r.store + len, want, nullptr);
        len += got;
        add(s, s.counts.refill_shared, got);
    }
    if (len < n) len = take_from_defer_rings(r, s, len, 0);
    return len;
}

bool is_cache_fill(const Recycler& r, unsigned n) { return r.dpdk_cache != 0 && n > r.dpdk_cache; }

int get_owner(Recycler& r, void** objs, unsigned n) {
    Slot& s = *r.slots[r.owner];
    uint32_t len = r.store_len.load(std::memory_order_relaxed);
    if (likely(len >= n)) {
        add(s, s.counts.alloc_fast, n);
    } else {
        len = refill_store(r, s, len, n);
        r.store_len.store(len, std::memory_order_relaxed);
        if (len < n) {
            // DPDK asks for a cache-full plus the request first and, when that
            // fails, for the request alone: only the latter is a failure.
            if (!is_cache_fill(r, n)) add(s, s.counts.alloc_empty, 1);
            return -ENOBUFS;
        }
        add(s, s.counts.alloc_slow, n);
    }
    for (unsigned i = 0; i < n; ++i) objs[i] = r.store[len - 1 - i];
    r.store_len.store(len - n, std::memory_order_relaxed);
    return 0;
}

int recycle_dequeue(rte_mempool* mp, void** objs, unsigned n) {
    Recycler& r = recycler(mp);
    const unsigned lcore = rte_lcore_id();
    if (lcore == r.owner) return get_owner(r, objs, n);
    Slot& s = slot_for(r, lcore);
    // A worker's own unpushed batch is free objects that only it touches.
    const uint32_t len = s.pending_len.load(std::memory_order_relaxed);
    if (len >= n) {
        std::memcpy(objs, s.pending + (len - n), n * sizeof(void*));
        s.pending_len.store(len - n, std::memory_order_relaxed);
    } else if (rte_ring_mc_dequeue_bulk(r.shared, objs, n, nullptr) != n) {
        if (!is_cache_fill(r, n)) add(s, s.counts.foreign_fail, 1);
        return -ENOBUFS;
    }
    add(s, s.counts.foreign_alloc, n);
    return 0;
}

// Rings before batches: a batch is emptied before it is pushed, so in this
// order an object on its way is missed for a moment, never counted twice.
RecycleLevels levels_of(const Recycler& r) {
    RecycleLevels l;
    for (unsigned i = 0; i < RTE_MAX_LCORE; ++i)
        if (r.slots[i] && r.slots[i]->defer)
            l.free_defer_rings += rte_ring_count(r.slots[i]->defer);
    l.free_shared_ring = rte_ring_count(r.shared);
    for (unsigned i = 0; i < RTE_MAX_LCORE; ++i)
        if (r.slots[i]) l.free_pending += r.slots[i]->pending_len.load(std::memory_order_relaxed);
    l.free_owner_store = r.store_len.load(std::memory_order_relaxed);
    l.overflow = r.overflow.load(std::memory_order_relaxed);
    return l;
}

unsigned recycle_get_count(const rte_mempool* mp) {
    const RecycleLevels l = levels_of(recycler(mp));
    return unsigned(l.free_owner_store + l.free_pending + l.free_defer_rings + l.free_shared_ring +
                    l.overflow);
}

rte_ring* make_ring(uint32_t count, unsigned flags, int socket) {
    const unsigned ring_flags = flags | RING_F_EXACT_SZ;
    const ssize_t bytes = rte_ring_get_memsize(rte_align32pow2(count + 1));
    if (bytes < 0) return nullptr;
    auto* ring = static_cast<rte_ring*>(
        rte_zmalloc_socket("pmdfwd_ring", size_t(bytes), RTE_CACHE_LINE_SIZE, socket));
    if (ring && rte_ring_init(ring, "pmdfwd_recycle", count, ring_flags) != 0) {
        rte_free(ring);
        return nullptr;
    }
    return ring;
}

Slot* make_slot(int socket) {
    void* mem = rte_zmalloc_socket("pmdfwd_slot", sizeof(Slot), alignof(Slot), socket);
    return mem ? new (mem) Slot : nullptr;
}

void destroy(Recycler* r) {
    if (!r) return;
    for (Slot* s : r->slots)
        if (s) {
            rte_free(s->defer);
            s->~Slot();
            rte_free(s);
        }
    if (r->other_threads) {
        r->other_threads->~Slot();
        rte_free(r->other_threads);
    }
    rte_free(r->shared);
    rte_free(r->store);
    r->~Recycler();
    rte_free(r);
}

int recycle_alloc(rte_mempool* mp) {
    const auto* params = static_cast<const RecycleParams*>(mp->pool_config);
    if (!params || params->owner_lcore >= RTE_MAX_LCORE ||
        !rte_lcore_is_enabled(params->owner_lcore))
        return -EINVAL;
    const int socket = mp->socket_id;
    void* mem = rte_zmalloc_socket("pmdfwd_recycler", sizeof(Recycler), alignof(Recycler), socket);
    if (!mem) return -ENOMEM;
    auto* r = new (mem) Recycler;
    r->owner = params->owner_lcore;
    r->size = mp->size;
    r->dpdk_cache = mp->cache_size;
    r->color = params->color;
    r->store = static_cast<void**>(
        rte_zmalloc_socket("pmdfwd_store", sizeof(void*) * mp->size, RTE_CACHE_LINE_SIZE, socket));
    r->shared = make_ring(mp->size, 0, socket);  // multi-producer, multi-consumer
    r->other_threads = make_slot(socket);
    bool ok = r->store && r->shared && r->other_threads;
    if (ok) r->other_threads->many_writers = true;
    const unsigned main_lcore = rte_get_main_lcore();
    const uint32_t defer_size = std::min(kDeferRingSize, mp->size);
    r->defer_age = defer_size / 2;
    for (unsigned lcore = 0; ok && lcore < RTE_MAX_LCORE; ++lcore) {
        if (!rte_lcore_is_enabled(lcore)) continue;
        Slot* s = r->slots[lcore] = make_slot(socket);
        if (!s) {
            ok = false;
            break;
        }
        if (lcore == r->owner || lcore == main_lcore) continue;
        s->defer = make_ring(defer_size, RING_F_SP_ENQ | RING_F_SC_DEQ, socket);
        ok = s->defer != nullptr;
        r->defer_rings[r->defer_ring_count++] = s->defer;
    }
    if (!ok) {
        destroy(r);
        return -ENOMEM;
    }
    mp->pool_data = r;
    return 0;
}

void recycle_free(rte_mempool* mp) {
    destroy(static_cast<Recycler*>(mp->pool_data));
    mp->pool_data = nullptr;
}

ssize_t recycle_calc_mem_size(const rte_mempool* mp, uint32_t obj_num, uint32_t pg_shift,
                              size_t* min_chunk_size, size_t* align) {
    return calc_mem_size_for(mp, recycler(mp).color, obj_num, pg_shift, min_chunk_size, align);
}

int recycle_populate(rte_mempool* mp, unsigned max_objs, void* vaddr, rte_iova_t iova, size_t len,
                     rte_mempool_populate_obj_cb_t* obj_cb, void* obj_cb_arg) {
    return populate_objects(mp, recycler(mp).color, max_objs, vaddr, iova, len, obj_cb, obj_cb_arg);
}

const rte_mempool_ops kRecycleOps = {
    .name = "pmdfwd_recycle",
    .alloc = recycle_alloc,
    .free = recycle_free,
    .enqueue = recycle_enqueue,
    .dequeue = recycle_dequeue,
    .get_count = recycle_get_count,
    .calc_mem_size = recycle_calc_mem_size,
    .populate = recycle_populate,
    .get_info = nullptr,
    .dequeue_contig_blocks = nullptr,
};

// Registered on first use, once EAL has loaded its driver plugins, rather
// than by a constructor: every index below ours then names the ops it names
// in a DPDK secondary process (dpdk-dumpcap, which registers only the
// plugins'), and a capture's pool, which our workers fill, carries its
// process's index.
int recycle_ops_index() {
    static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
    static int index = -1;
    rte_spinlock_lock(&lock);
    if (index < 0) index = rte_mempool_register_ops(&kRecycleOps);
    rte_spinlock_unlock(&lock);
    return index;
}

RecycleCounts read_slot(const Slot& s) {
    RecycleCounts out;
    for_each_recycle_count(out, s.counts, [](uint64_t& o, const std::atomic<uint64_t>& c) {
        o = c.load(std::memory_order_relaxed);
    });
    return out;
}

}  // namespace

Result<rte_mempool*> create_recycle_pktmbuf_pool(const char* name, uint32_t mbufs,
                                                 uint32_t dpdk_cache, uint16_t data_room,
                                                 int socket, unsigned owner_lcore, bool color) {
    const std::string who = std::string("pool '") + name + "'";
    rte_pktmbuf_pool_private priv{};
    priv.mbuf_data_room_size = data_room;
    priv.mbuf_priv_size = 0;
    rte_mempool* mp = rte_mempool_create_empty(name, mbufs, unsigned(sizeof(rte_mbuf)) + data_room,
                                               dpdk_cache, sizeof(priv), socket, 0);
    if (!mp) {
        const int err = rte_errno;
        return make_error(who + ": rte_mempool_create_empty(" + std::to_string(mbufs) +
                              " mbufs) failed: " + rte_strerror(err),
                          -err);
    }
    // The params are read once, by recycle_alloc during the first populate.
    RecycleParams params{owner_lcore, color};
    int rc = recycle_ops_index();
    if (rc >= 0) rc = rte_mempool_set_ops_byname(mp, kRecycleOpsName, &params);
    if (rc == 0) {
        rte_pktmbuf_pool_init(mp, &priv);
        rc = rte_mempool_populate_default(mp);
        mp->pool_config = nullptr;
    }
    if (rc < 0) {
        rte_mempool_free(mp);
        return make_error(who + ": populating " + std::to_string(mbufs) + " mbufs owned by lcore " +
                              std::to_string(owner_lcore) + " failed: " + rte_strerror(-rc) +
                              (rc == -ENOMEM ? " (raise eal.memory_mb or lower pool.mbufs)" : ""),
                          rc);
    }
    rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
    // Populating put every object through this lcore: that is no free.
    for_each_recycle_count(slot_for(recycler(mp), rte_lcore_id()).counts,
                           slot_for(recycler(mp), rte_lcore_id()).counts,
                           [](std::atomic<uint64_t>& c, std::atomic<uint64_t>&) {
                               c.store(0, std::memory_order_relaxed);
                           });
    return mp;
}

bool is_recycle_pool(const rte_mempool* mp) {
    return std::strcmp(rte_mempool_get_ops(mp->ops_index)->name, kRecycleOpsName) == 0;
}

unsigned recycle_owner(const rte_mempool* mp) { return recycler(mp).owner; }

RecycleCounts recycle_counts(const rte_mempool* mp) {
    if (!is_recycle_pool(mp)) return {};
    const Recycler& r = recycler(mp);
    RecycleCounts sum = read_slot(*r.other_threads);
    for (const Slot* s : r.slots)
        if (s) sum += read_slot(*s);
    return sum;
}

RecycleCounts recycle_counts_of_lcore(const rte_mempool* mp, unsigned lcore) {
    if (!is_recycle_pool(mp)) return {};
    const Recycler& r = recycler(mp);
    return lcore < RTE_MAX_LCORE && r.slots[lcore] ? read_slot(*r.slots[lcore]) : RecycleCounts{};
}

RecycleLevels recycle_levels(const rte_mempool* mp) {
    return is_recycle_pool(mp) ? levels_of(recycler(mp)) : RecycleLevels{};
}

void recycle_owner_retire(rte_mempool* mp) {
    Recycler& r = recycler(mp);
    if (rte_lcore_id() != r.owner) return;
    rte_mempool_cache_flush(nullptr, mp);  // into the store
    uint32_t len = take_from_defer_rings(r, *r.slots[r.owner], r.store_len.load(), 0);
    r.store_len.store(0, std::memory_order_relaxed);
    put_shared(r, r.store, len);
}

DeferFlush make_defer_flush(rte_mempool* mp, unsigned lcore) {
    static const std::atomic<uint32_t> kNothingPending{0};
    Recycler& r = recycler(mp);
    DeferFlush f;
    f.mp = mp;
    f.cache = rte_mempool_default_cache(mp, lcore);
    f.pending =
        lcore < RTE_MAX_LCORE && r.slots[lcore] ? &r.slots[lcore]->pending_len : &kNothingPending;
    return f;
}

void push_deferred(const DeferFlush& f) {
    if (f.cache) rte_mempool_cache_flush(f.cache, f.mp);
    Recycler& r = recycler(f.mp);
    Slot& s = slot_for(r, rte_lcore_id());
    if (s.defer) push_pending(r, s);
}

}  // namespace pmdfwd
