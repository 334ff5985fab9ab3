// The exact pool audit: counts every lcore cache and does not clamp, so a
// leak shows as missing > 0 and a double free as missing < 0.
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <catch2/catch.hpp>

#include "pool.hpp"

using namespace pmdfwd;

TEST_CASE("a fresh pool audits full", "[pool]") {
    auto pool = Pool::create("audit_fresh", 1024, 32, 2176, SOCKET_ID_ANY);
    REQUIRE(pool.ok());
    const auto a = pool.value()->audit();
    CHECK(a.size == 1024);
    CHECK(a.missing() == 0);
}

TEST_CASE("mbufs held or sitting in the main lcore cache are counted exactly", "[pool]") {
    auto pool = Pool::create("audit_held", 1024, 32, 2176, SOCKET_ID_ANY);
    REQUIRE(pool.ok());
    rte_mempool* mp = pool.value()->mempool();
    rte_mbuf* held[100];
    REQUIRE(rte_pktmbuf_alloc_bulk(mp, held, 100) == 0);
    CHECK(pool.value()->audit().missing() == 100);
    rte_pktmbuf_free_bulk(held, 60);  // some land in this lcore's cache
    CHECK(pool.value()->audit().missing() == 40);
    rte_pktmbuf_free_bulk(held + 60, 40);
    CHECK(pool.value()->audit().missing() == 0);
}

TEST_CASE("a double free shows as more objects than the pool size", "[pool]") {
    auto pool = Pool::create("audit_double", 1024, 32, 2176, SOCKET_ID_ANY);
    REQUIRE(pool.ok());
    rte_mempool* mp = pool.value()->mempool();
    rte_mbuf* m = rte_pktmbuf_alloc(mp);
    REQUIRE(m != nullptr);
    rte_pktmbuf_free(m);
    rte_mempool_put(mp, m);                      // the second free of the same buffer
    CHECK(rte_mempool_avail_count(mp) == 1024);  // the stock count clamps and hides it
    CHECK(pool.value()->audit().missing() == -1);
    void* again = nullptr;
    REQUIRE(rte_mempool_get(mp, &again) == 0);  // take the duplicate back out
    CHECK(pool.value()->audit().missing() == 0);
}
