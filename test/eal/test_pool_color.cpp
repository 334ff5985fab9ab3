// Cache colouring of mbuf pools: without hugepages (as these tests run) every
// object stays within one 4 KB page, but the objects' page offsets differ, so
// the same line of neighbouring mbufs does not share an L1 set; with colour
// off, DPDK's own placement puts them all at one offset.
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>
#include <rte_memzone.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "mempool_color.hpp"
#include "ops_order.hpp"
#include "pool.hpp"
#include "recycle_mempool.hpp"

using namespace pmdfwd;

namespace {

constexpr uintptr_t kPage = 4096;

struct Layout {
    std::set<uintptr_t> offsets;  // page offsets of the objects' headers
    unsigned objects = 0;
    unsigned crossing = 0;  // objects whose bytes span two pages
};

Layout layout_of(rte_mempool* mp) {
    Layout l;
    rte_mempool_obj_iter(
        mp,
        [](rte_mempool* m, void* arg, void* obj, unsigned) {
            auto& out = *static_cast<Layout*>(arg);
            const auto first = uintptr_t(obj) - m->header_size;
            const auto last = uintptr_t(obj) + m->elt_size + m->trailer_size - 1;
            out.objects++;
            out.crossing += first / kPage != last / kPage;
            out.offsets.insert(first % kPage);
        },
        &l);
    return l;
}

// Every object can be taken and given back, and the audit sees them all.
void check_usable(const Pool& pool) {
    rte_mempool* mp = pool.mempool();
    std::vector<rte_mbuf*> all(mp->size);
    REQUIRE(rte_pktmbuf_alloc_bulk(mp, all.data(), unsigned(all.size())) == 0);
    for (rte_mbuf* m : all) {
        REQUIRE(m->buf_len == 2176);
        rte_pktmbuf_mtod(m, uint8_t*)[0] = 0xab;  // the data room is writable
    }
    CHECK(pool.audit().missing() == int64_t(mp->size));
    rte_pktmbuf_free_bulk(all.data(), unsigned(all.size()));
    CHECK(pool.audit().missing() == 0);
}

}  // namespace

TEST_CASE("colour count: the cache lines of slack a page leaves", "[pool][color]") {
    // A default mbuf: 64-byte header + 128-byte mbuf + 2176 bytes of data.
    CHECK(color_count(4096, 2368) == 28);  // 1728 bytes of slack: offsets 0 ... 27 lines
    CHECK(color_count(4096, 1024) == 1);   // four fill the page exactly
    CHECK(color_count(4096, 4096) == 1);
    CHECK(color_count(4096, 9000) == 1);  // larger than a page: no page limit applies
    CHECK(color_count(0, 2368) == 1);     // objects may cross pages: nothing to colour
    CHECK(color_count(2u << 20, 2368) == 24);
}

TEST_CASE("stock and recycle pools: coloured objects never cross a page", "[pool][color]") {
    for (const bool recycle : {false, true}) {
        INFO((recycle ? "recycle" : "stock"));
        auto pool = recycle ? Pool::create_recycle("color_rc", 1024, 32, 2176, SOCKET_ID_ANY,
                                                   rte_lcore_id(), true)
                            : Pool::create("color_stock", 1024, 32, 2176, SOCKET_ID_ANY, true);
        REQUIRE(pool.ok());
        rte_mempool* mp = pool.value()->mempool();
        const Layout l = layout_of(mp);
        CHECK(l.objects == 1024);
        CHECK(l.crossing == 0);
        // One object per page, as without colour, and every colour in use.
        CHECK(mp->populated_size == 1024);
        CHECK(l.offsets.size() == 28);
        for (const uintptr_t off : l.offsets) CHECK(off % RTE_CACHE_LINE_SIZE == 0);
        check_usable(*pool.value());
    }
}

TEST_CASE("colour off: DPDK's placement, one page offset for all", "[pool][color]") {
    for (const bool recycle : {false, true}) {
        INFO((recycle ? "recycle" : "stock"));
        auto pool = recycle ? Pool::create_recycle("nocolor_rc", 1024, 32, 2176, SOCKET_ID_ANY,
                                                   rte_lcore_id(), false)
                            : Pool::create("nocolor_stock", 1024, 32, 2176, SOCKET_ID_ANY, false);
        REQUIRE(pool.ok());
        const Layout l = layout_of(pool.value()->mempool());
        CHECK(l.objects == 1024);
        CHECK(l.crossing == 0);
        CHECK(l.offsets.size() == 1);
        check_usable(*pool.value());
    }
}

TEST_CASE("the coloured ops are registered once and keep the stock ops' name", "[pool][color]") {
    auto a = Pool::create("color_once_a", 512, 0, 2176, SOCKET_ID_ANY, true);
    auto b = Pool::create("color_once_b", 512, 0, 2176, SOCKET_ID_ANY, true);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const rte_mempool* ma = a.value()->mempool();
    CHECK(ma->ops_index == b.value()->mempool()->ops_index);
    CHECK(std::string(rte_mempool_get_ops(ma->ops_index)->name) ==
          std::string(rte_mbuf_best_mempool_ops()) + "_colored");
}

TEST_CASE("coloured pools of any size fill, wherever the EAL heap stands", "[pool][color]") {
    // A zone of another size first moves where the pool's memory starts
    // within a page: a cache-aligned chunk sized for DPDK's own placement
    // then may have no room for the colour of its last page.
    unsigned k = 0;
    for (const unsigned shim_lines : {1u, 5u, 13u, 27u, 40u, 63u})
        for (const unsigned n : {1u, 28u, 29u, 300u})
            for (const bool recycle : {false, true}) {
                INFO(n << (recycle ? " recycle" : " stock") << ", shim " << shim_lines << " lines");
                const std::string tag = "cfill" + std::to_string(k++);
                const rte_memzone* shim = rte_memzone_reserve(
                    (tag + "_shim").c_str(), shim_lines * RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY, 0);
                REQUIRE(shim != nullptr);
                auto pool = recycle ? Pool::create_recycle(tag, n, 0, 2176, SOCKET_ID_ANY,
                                                           rte_lcore_id(), true)
                                    : Pool::create(tag, n, 0, 2176, SOCKET_ID_ANY, true);
                REQUIRE(pool.ok());
                rte_mempool* mp = pool.value()->mempool();
                CHECK(mp->populated_size == n);
                const Layout l = layout_of(mp);
                CHECK(l.objects == n);
                CHECK(l.crossing == 0);
                check_usable(*pool.value());
                pool.value().reset();
                rte_memzone_free(shim);
            }
}

TEST_CASE("colour sizing: whole pages, room for the last page's colour", "[pool][color]") {
    auto pool = Pool::create("csize", 512, 0, 2176, SOCKET_ID_ANY, true);
    REQUIRE(pool.ok());
    const rte_mempool* mp = pool.value()->mempool();
    size_t min_chunk = 0, align = 0;
    CHECK(calc_mem_size_for(mp, true, 1, 12, &min_chunk, &align) == 27 * 64 + 2368);
    CHECK(align == 4096);
    CHECK(min_chunk == 4096);
    CHECK(calc_mem_size_for(mp, true, 28, 12, &min_chunk, &align) == 27 * 4096 + 27 * 64 + 2368);
    size_t dflt_chunk = 0, dflt_align = 0;
    CHECK(calc_mem_size_for(mp, false, 28, 12, &min_chunk, &align) ==
          rte_mempool_op_calc_mem_size_default(mp, 28, 12, &dflt_chunk, &dflt_align));
}

TEST_CASE("mempool ops: pmdfwd's own come after every driver's, as a secondary's table has them",
          "[pool][color]") {
    auto recycle =
        Pool::create_recycle("t_order_r", 1024, 0, 2176, SOCKET_ID_ANY, rte_get_main_lcore(), true);
    REQUIRE(recycle);
    auto stock = Pool::create("t_order_s", 1024, 0, 2176, SOCKET_ID_ANY, true);
    REQUIRE(stock);
    unsigned own = 0;
    for (unsigned k = 0; k < rte_mempool_ops_table.num_ops; ++k)
        own += is_pmdfwd_mempool_ops(rte_mempool_ops_table.ops[k].name) ? 1 : 0;
    CHECK(own >= 2);
    CHECK(mempool_ops_order_problem().empty());
    CHECK(is_pmdfwd_mempool_ops("pmdfwd_recycle"));
    CHECK(is_pmdfwd_mempool_ops("ring_mp_mc_colored"));
    CHECK_FALSE(is_pmdfwd_mempool_ops("ring_mp_mc"));
    CHECK_FALSE(is_pmdfwd_mempool_ops("_colored"));
}
