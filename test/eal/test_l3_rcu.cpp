// Next hops and RCU, step by step with the test as the one reader: no next
// hop is reused before every reader passed a quiescent point, and a changed
// neighbour's old next hop stays whole until then (this build poisons the
// freed ones, PMDFWD_POISON_NEXT_HOPS).
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

TEST_CASE("l3: RouterTables reuses no next hop before every reader passed a quiescent point",
          "[l3][rcu]") {
    L3Config cfg;
    cfg.max_neighbours = 1;  // 130 next hops, with no equal-cost group
    cfg.max_ecmp_groups = 0;
    auto made = RouterTables::create("l3rcu_tables", cfg, 2, SOCKET_ID_ANY);
    if (!made) FAIL(made.error().message);
    RouterTables& t = *made.value();
    rte_rcu_qsbr* rcu = t.view().rcu;
    const uint32_t capacity = t.capacity();
    REQUIRE(capacity == 130);
    NextHop nh;
    nh.kind = NextHopKind::forward;
    std::vector<uint32_t> first;
    for (uint32_t i = 1; i < capacity; ++i) {  // index 0 is the unreachable default
        auto h = t.add_next_hop(nh);
        REQUIRE(h);
        first.push_back(h.value());
    }
    // Reader 1 stays offline; reader 0 is online and holds whatever it read.
    rte_rcu_qsbr_thread_online(rcu, 0);
    for (const uint32_t i : first) t.retire_next_hop(i);
    t.reclaim();
    CHECK(t.retired() == first.size());
    auto none = t.add_next_hop(nh);
    REQUIRE_FALSE(none);
    CHECK(none.error().message.find("waiting for the workers to pass a quiescent point") !=
          std::string::npos);
    const auto poisoned = [&] {
        size_t n = 0;
        for (const uint32_t i : first)
            n += std::memcmp(t.next_hop(i).dst_src, kPoisonedNextHop.dst_src, 12) == 0;
        return n;
    };
    CHECK(poisoned() == 0);
    rte_rcu_qsbr_quiescent(rcu, 0);
    auto again = t.add_next_hop(nh);  // reclaims first
    REQUIRE(again);
    CHECK(t.retired() == 0);
    CHECK(std::find(first.begin(), first.end(), again.value()) != first.end());
    // The freed ones were poisoned (this build) before they went back; one
    // of them is in use again.
    CHECK(poisoned() == first.size() - 1);
    rte_rcu_qsbr_thread_offline(rcu, 0);
}

TEST_CASE("l3: a changed neighbour's old next hop stays whole until the workers move on",
          "[l3][rcu]") {
    RouterRig rig;
    const RouterView v = rig.router->view();
    const auto hop_of = [&](const char* dst) { return ipv4_lookup(v.v4, ip4(dst).host_order); };
    const MacAddr m1 = mac("02:00:00:00:0c:71"), m2 = mac("02:00:00:00:0c:72");
    const auto claim = [&](const MacAddr& m) {  // 10.3.0.77 says where it is
        rig.route({arp({kBroadcast, m, {}}, 1, m, ip4("10.3.0.77"), MacAddr{}, ip4("10.3.0.1"))},
                  kC);
        rig.poll();
        rig.control_out(kC);  // the ARP replies
    };
    claim(m1);
    const uint32_t h1 = hop_of("10.3.0.77");
    REQUIRE(v.next_hops[h1].kind == NextHopKind::forward);
    // The test is worker 0 now: online, and between two quiescent points.
    rte_rcu_qsbr_thread_online(v.rcu, 0);
    claim(m2);
    const uint32_t h2 = hop_of("10.3.0.77");
    CHECK(h2 != h1);
    CHECK(std::memcmp(v.next_hops[h1].dst_src, m1.bytes.data(), 6) == 0);  // still whole
    CHECK(std::memcmp(v.next_hops[h2].dst_src, m2.bytes.data(), 6) == 0);
    claim(m1);
    const uint32_t h3 = hop_of("10.3.0.77");
    CHECK(h3 != h1);  // not reused while worker 0 may hold it
    CHECK(std::memcmp(v.next_hops[h1].dst_src, m1.bytes.data(), 6) == 0);
    rte_rcu_qsbr_quiescent(v.rcu, 0);
    rig.poll();
    CHECK(std::memcmp(v.next_hops[h1].dst_src, kPoisonedNextHop.dst_src, 12) == 0);
    CHECK(std::memcmp(v.next_hops[h2].dst_src, kPoisonedNextHop.dst_src, 12) == 0);
    CHECK(std::memcmp(v.next_hops[h3].dst_src, m1.bytes.data(), 6) == 0);
    rte_rcu_qsbr_thread_offline(v.rcu, 0);
    rig.check_pools_full();
}
