// The recycle mempool driver alone, on both worker lcores and a non-EAL
// thread: millions of alloc/free cycles with cross-core frees lose nothing,
// hand nothing out twice, and leave the pool full; non-owner allocation works.
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pool.hpp"
#include "recycle_mempool.hpp"

using namespace pmdfwd;

namespace {

constexpr unsigned kOwner = 1;
constexpr unsigned kOther = 2;
constexpr unsigned kPoolSize = 2048;
int g_pool = 0;

rte_mempool* make_pool(uint32_t dpdk_cache, uint32_t size = kPoolSize) {
    const std::string name = "rc" + std::to_string(++g_pool);
    auto mp =
        create_recycle_pktmbuf_pool(name.c_str(), size, dpdk_cache, 256, SOCKET_ID_ANY, kOwner);
    if (!mp) FAIL(mp.error().message);
    return mp.value();
}

// Every object of the pool, taken on the owner (which can reach all of them).
struct TakeAll {
    rte_mempool* mp;
    std::vector<void*> objs;
    int extra_rc = 0;  // what one more allocation returned
};

int take_all_on_owner(void* arg) {
    auto& t = *static_cast<TakeAll*>(arg);
    void* burst[32];
    while (rte_mempool_get_bulk(t.mp, burst, 32) == 0)
        t.objs.insert(t.objs.end(), burst, burst + 32);
    while (rte_mempool_get_bulk(t.mp, burst, 1) == 0) t.objs.push_back(burst[0]);
    t.extra_rc = rte_mempool_get_bulk(t.mp, burst, 1);
    return 0;
}

int put_all_on_owner(void* arg) {
    auto& t = *static_cast<TakeAll*>(arg);
    rte_mempool_put_bulk(t.mp, t.objs.data(), unsigned(t.objs.size()));
    t.objs.clear();
    return 0;
}

void run_on(unsigned lcore, lcore_function_t* fn, void* arg) {
    REQUIRE(rte_eal_remote_launch(fn, arg, lcore) == 0);
    REQUIRE(rte_eal_wait_lcore(lcore) == 0);
}

std::set<void*> pool_objects(rte_mempool* mp) {
    std::set<void*> all;
    rte_mempool_obj_iter(
        mp,
        [](rte_mempool*, void* set, void* obj, unsigned) {
            static_cast<std::set<void*>*>(set)->insert(obj);
        },
        &all);
    return all;
}

// The pool holds exactly its own objects, each once: the owner can take all
// of them, no more, and they are the pool's distinct addresses.
void check_whole(rte_mempool* mp) {
    CHECK(unclamped_object_count(mp) == int64_t(mp->size));
    TakeAll t{mp, {}, 0};
    t.objs.reserve(mp->size + 64);
    run_on(kOwner, take_all_on_owner, &t);
    CHECK(t.objs.size() == mp->size);
    CHECK(t.extra_rc == -ENOBUFS);
    const std::set<void*> got(t.objs.begin(), t.objs.end());
    CHECK(got.size() == t.objs.size());  // none handed out twice
    CHECK(got == pool_objects(mp));      // none foreign, none lost
    run_on(kOwner, put_all_on_owner, &t);
    CHECK(unclamped_object_count(mp) == int64_t(mp->size));
}

// Owner allocates bursts and passes most to the other lcore over an SPSC ring
// (the handoff), frees every fourth burst itself; the other lcore frees what
// it gets (cross-core), sometimes allocates a little itself (non-owner), and
// pushes its deferred frees at the end of each iteration, as a worker does.
struct Storm {
    rte_mempool* mp = nullptr;
    rte_ring* handoff = nullptr;
    rte_ring* to_thread = nullptr;  // to a non-EAL thread that frees
    uint64_t bursts = 0;
    std::atomic<bool> owner_done{false};
    std::atomic<bool> other_done{false};
    uint64_t allocated = 0;
    uint64_t alloc_failed = 0;
    uint64_t other_allocs = 0;
    std::atomic<uint64_t> handed_out_twice{0};  // a buffer allocated while already in use
};

// A tag in each mbuf, set while it is in use: an allocation that finds it set
// got a buffer someone else still holds.
constexpr uint32_t kInUse = 0x5a5a5a5a;
uint32_t& tag(rte_mbuf* m) { return m->dynfield1[0]; }

void take_tags(Storm& s, rte_mbuf** m, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
        if (tag(m[i]) == kInUse) s.handed_out_twice++;
        tag(m[i]) = kInUse;
    }
}

void drop_tags(rte_mbuf** m, unsigned n) {
    for (unsigned i = 0; i < n; ++i) tag(m[i]) = 0;
}

int storm_owner(void* arg) {
    auto& s = *static_cast<Storm*>(arg);
    rte_mbuf* burst[32];
    for (uint64_t i = 0; i < s.bursts; ++i) {
        if (rte_pktmbuf_alloc_bulk(s.mp, burst, 32) != 0) {
            s.alloc_failed++;
            continue;
        }
        s.allocated += 32;
        take_tags(s, burst, 32);
        rte_ring* dest = i % 4 == 3 ? nullptr : (i % 16 == 1 ? s.to_thread : s.handoff);
        unsigned passed =
            dest ? rte_ring_enqueue_burst(dest, reinterpret_cast<void**>(burst), 32, nullptr) : 0;
        if (passed < 32) {
            drop_tags(burst + passed, 32 - passed);
            rte_pktmbuf_free_bulk(burst + passed, 32 - passed);
        }
    }
    s.owner_done = true;
    return 0;
}

int storm_other(void* arg) {
    auto& s = *static_cast<Storm*>(arg);
    const DeferFlush flush = make_defer_flush(s.mp, rte_lcore_id());
    void* burst[64];
    uint64_t iteration = 0;
    for (;;) {
        const bool last = s.owner_done.load();
        const unsigned n = rte_ring_dequeue_burst(s.handoff, burst, 64, nullptr);
        drop_tags(reinterpret_cast<rte_mbuf**>(burst), n);
        rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(burst), n);
        if (++iteration % 64 == 0) {
            // With DPDK's cache in front, an empty cache makes this reach the driver.
            flush_deferred(flush);
            rte_mbuf* mine[4];
            if (rte_pktmbuf_alloc_bulk(s.mp, mine, 4) == 0) {
                s.other_allocs += 4;
                take_tags(s, mine, 4);
                drop_tags(mine, 4);
                rte_pktmbuf_free_bulk(mine, 4);
            }
        }
        flush_deferred(flush);
        if (last && n == 0 && rte_ring_empty(s.handoff)) break;
    }
    s.other_done = true;
    return 0;
}

void run_storm(rte_mempool* mp, uint64_t bursts) {
    Storm s;
    s.mp = mp;
    s.bursts = bursts;
    const std::string tag = std::to_string(g_pool);
    s.handoff =
        rte_ring_create(("rch" + tag).c_str(), 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    s.to_thread =
        rte_ring_create(("rct" + tag).c_str(), 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    REQUIRE(s.handoff);
    REQUIRE(s.to_thread);
    std::thread non_eal([&] {
        void* burst[32];
        for (;;) {
            const bool last = s.owner_done.load();
            const unsigned n = rte_ring_dequeue_burst(s.to_thread, burst, 32, nullptr);
            drop_tags(reinterpret_cast<rte_mbuf**>(burst), n);
            rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(burst), n);
            if (n == 0) {
                if (last && rte_ring_empty(s.to_thread)) break;
                std::this_thread::yield();
            }
        }
    });
    REQUIRE(rte_eal_remote_launch(storm_other, &s, kOther) == 0);
    REQUIRE(rte_eal_remote_launch(storm_owner, &s, kOwner) == 0);
    rte_eal_wait_lcore(kOwner);
    rte_eal_wait_lcore(kOther);
    non_eal.join();
    rte_ring_free(s.handoff);
    rte_ring_free(s.to_thread);

    INFO("allocated " << s.allocated << ", failed bursts " << s.alloc_failed);
    CHECK(s.allocated >= bursts * 32 / 2);  // most bursts found buffers
    CHECK(s.handed_out_twice == 0);
    const RecycleCounts c = recycle_counts(mp);
    // The owner's own frees: DPDK's cache, when there is one, keeps them
    // before the driver sees them.
    if (mp->cache_size == 0) CHECK(c.recycled > 0);
    CHECK(c.deferred > 0);       // the other lcore's frees, batched
    CHECK(c.refill_defer > 0);   // and pulled back by the owner
    CHECK(c.shared_put > 0);     // the non-EAL thread's frees
    CHECK(c.foreign_alloc > 0);  // the other lcore's allocations
    // Every object that left the pool came back through exactly one door.
    const RecycleLevels l = recycle_levels(mp);
    CHECK(l.overflow == 0);
    CHECK(l.free_pending == 0);  // the other lcore pushed its last batch
    check_whole(mp);
}

}  // namespace

TEST_CASE("recycle pool: cross-core alloc/free storm loses and duplicates nothing", "[recycle]") {
    for (const uint32_t dpdk_cache : {0u, 64u}) {
        DYNAMIC_SECTION("DPDK cache " << dpdk_cache) {
            rte_mempool* mp = make_pool(dpdk_cache);
            CHECK(is_recycle_pool(mp));
            CHECK(recycle_owner(mp) == kOwner);
            run_storm(mp, 100000);  // 3.2 million buffers allocated and freed
            rte_mempool_free(mp);
        }
    }
}

TEST_CASE("recycle pool: the main lcore allocates before workers start", "[recycle]") {
    rte_mempool* mp = make_pool(0, 1024);
    // Populating is not a free: nothing is counted yet.
    CHECK(recycle_counts(mp).shared_put == 0);
    CHECK(recycle_levels(mp).free_shared_ring == 1024);
    // Port set-up allocates on the main lcore: all of the pool is reachable.
    std::vector<rte_mbuf*> all(1024);
    REQUIRE(rte_pktmbuf_alloc_bulk(mp, all.data(), 1024) == 0);
    rte_mbuf* one = nullptr;
    CHECK(rte_pktmbuf_alloc_bulk(mp, &one, 1) != 0);
    CHECK(std::set<rte_mbuf*>(all.begin(), all.end()).size() == 1024);
    const RecycleCounts c = recycle_counts(mp);
    CHECK(c.foreign_alloc == 1024);
    CHECK(c.foreign_fail == 1);
    rte_pktmbuf_free_bulk(all.data(), 1024);
    CHECK(recycle_counts(mp).shared_put == 1024);
    check_whole(mp);
    rte_mempool_free(mp);
}

TEST_CASE("recycle pool: a stock pool has no recycle counts or levels, and no crash", "[recycle]") {
    rte_mempool* mp = rte_pktmbuf_pool_create("rc_stock", 511, 0, 0, 2176, SOCKET_ID_ANY);
    REQUIRE(mp != nullptr);
    REQUIRE_FALSE(is_recycle_pool(mp));
    rte_mbuf* m = rte_pktmbuf_alloc(mp);
    REQUIRE(m != nullptr);
    rte_pktmbuf_free(m);
    uint64_t counted = 0;
    const RecycleCounts c = recycle_counts(mp), one = recycle_counts_of_lcore(mp, 0);
    for_each_recycle_count(c, one, [&](uint64_t a, uint64_t b) { counted += a + b; });
    CHECK(counted == 0);
    const RecycleLevels l = recycle_levels(mp);
    CHECK(l.free_shared_ring == 0);
    CHECK(l.free_owner_store == 0);
    rte_mempool_free(mp);
}

TEST_CASE("recycle pool: a double free shows as more objects than the pool holds", "[recycle]") {
    rte_mempool* mp = make_pool(0, 512);
    rte_mbuf* m = rte_pktmbuf_alloc(mp);
    REQUIRE(m != nullptr);
    rte_pktmbuf_free(m);
    rte_mempool_put(mp, m);  // the second free of the same buffer
    CHECK(unclamped_object_count(mp) == 513);
    rte_mbuf* back = rte_pktmbuf_alloc(mp);  // take one copy out again
    REQUIRE(back != nullptr);
    rte_mempool_free(mp);
}

TEST_CASE("recycle pool: creation names what is wrong", "[recycle]") {
    // The owner must be an enabled lcore.
    auto bad = create_recycle_pktmbuf_pool("rc_bad_owner", 512, 0, 256, SOCKET_ID_ANY, 77);
    REQUIRE(!bad);
    CHECK(bad.error().message.find("rc_bad_owner") != std::string::npos);
    CHECK(bad.error().message.find("lcore 77") != std::string::npos);
    CHECK(rte_mempool_lookup("rc_bad_owner") == nullptr);
}

namespace {

struct FreeOn {
    rte_mempool* mp;
    std::vector<rte_mbuf*> bufs;
    unsigned got = 0;
};

// A worker lcore that is not the owner takes buffers and frees them, pushing
// its batches as a worker does at the end of an iteration.
int alloc_then_free_on_other(void* arg) {
    auto& f = *static_cast<FreeOn*>(arg);
    f.got = rte_pktmbuf_alloc_bulk(f.mp, f.bufs.data(), unsigned(f.bufs.size())) == 0
                ? unsigned(f.bufs.size())
                : 0;
    rte_pktmbuf_free_bulk(f.bufs.data(), f.got);
    flush_deferred(make_defer_flush(f.mp, rte_lcore_id()));
    return 0;
}

int owner_takes_64(void* arg) {
    auto& f = *static_cast<FreeOn*>(arg);
    f.got = rte_pktmbuf_alloc_bulk(f.mp, f.bufs.data(), 64) == 0 ? 64 : 0;
    return 0;
}

int owner_puts_64(void* arg) {
    auto& f = *static_cast<FreeOn*>(arg);
    rte_pktmbuf_free_bulk(f.bufs.data(), 64);
    return 0;
}

int owner_retires(void* arg) {
    recycle_owner_retire(static_cast<rte_mempool*>(arg));
    return 0;
}

}  // namespace

TEST_CASE(
    "recycle pool: a full defer ring falls back to the shared ring; the owner takes the "
    "aged half first",
    "[recycle]") {
    // 4096 buffers: more than a defer ring (2048) holds, so 3000 frees on
    // lcore 2 overflow it while the owner is not running.
    rte_mempool* mp = make_pool(0, 4096);
    FreeOn f{mp, std::vector<rte_mbuf*>(3000), 0};
    run_on(kOther, alloc_then_free_on_other, &f);
    REQUIRE(f.got == 3000);
    RecycleCounts c = recycle_counts(mp);
    CHECK(c.foreign_alloc == 3000);
    CHECK(c.deferred == 3000);
    CHECK(c.defer_full == 3000 - 2048);
    RecycleLevels l = recycle_levels(mp);
    CHECK(l.free_defer_rings == 2048);
    CHECK(l.free_shared_ring == 4096 - 2048);
    CHECK(unclamped_object_count(mp) == 4096);

    // The owner's first refill takes only the older half of the defer ring
    // (the newest buffers were just touched by lcore 2), then what it still
    // needs from the shared ring.
    FreeOn o{mp, std::vector<rte_mbuf*>(64), 0};
    run_on(kOwner, owner_takes_64, &o);
    REQUIRE(o.got == 64);
    c = recycle_counts(mp);
    CHECK(c.refill_defer == 1024);
    CHECK(c.refill_shared == 0);
    CHECK(c.alloc_slow == 64);
    CHECK(recycle_levels(mp).free_defer_rings == 1024);
    run_on(kOwner, owner_puts_64, &o);
    CHECK(recycle_counts(mp).recycled == 64);

    // A retired owner leaves every free buffer where the main lcore can take it.
    run_on(kOwner, owner_retires, mp);
    l = recycle_levels(mp);
    CHECK(l.free_shared_ring == 4096);
    CHECK(l.free_owner_store == 0);
    CHECK(l.free_defer_rings == 0);
    std::vector<rte_mbuf*> all(4096);
    CHECK(rte_pktmbuf_alloc_bulk(mp, all.data(), 4096) == 0);
    rte_pktmbuf_free_bulk(all.data(), 4096);
    check_whole(mp);
    rte_mempool_free(mp);
}

TEST_CASE("recycle pool: behind a DPDK cache, a cache-fill shortfall is not an empty pool",
          "[recycle]") {
    // 600 buffers, cache 256: the owner's first bulk alloc of 500 makes DPDK
    // ask for 256 + 500 (fails), then for 500 (succeeds). No failure counted.
    rte_mempool* mp = make_pool(256, 600);
    FreeOn o{mp, std::vector<rte_mbuf*>(500), 0};
    run_on(
        kOwner,
        [](void* arg) {
            auto& f = *static_cast<FreeOn*>(arg);
            f.got = rte_pktmbuf_alloc_bulk(f.mp, f.bufs.data(), 500) == 0 ? 500 : 0;
            return 0;
        },
        &o);
    CHECK(o.got == 500);
    CHECK(recycle_counts(mp).alloc_empty == 0);
    run_on(
        kOwner,
        [](void* arg) {
            auto& f = *static_cast<FreeOn*>(arg);
            rte_pktmbuf_free_bulk(f.bufs.data(), 500);
            rte_mbuf* more[200];
            // 600 - 500 + 500 freed: 200 fit; then a real shortfall is counted.
            f.got = rte_pktmbuf_alloc_bulk(f.mp, more, 200) == 0 ? 200 : 0;
            rte_pktmbuf_free_bulk(more, f.got);
            return 0;
        },
        &o);
    CHECK(o.got == 200);
    run_on(kOwner, owner_retires, mp);
    check_whole(mp);
    rte_mempool_free(mp);
}
