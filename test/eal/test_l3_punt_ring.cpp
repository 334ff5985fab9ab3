// The punt ring between a worker and the control path: when full it drops
// punt_full and never blocks, and packets that wait for a neighbour leave
// room in it for the neighbour's answer.
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

TEST_CASE("l3: a full punt ring drops punt_full and never blocks", "[l3]") {
    // A ring of 64 slots takes 63.
    RouterRig rig([](Config& c) { c.l3.punt_ring = 64; });
    std::vector<Bytes> burst;
    for (uint32_t i = 0; i < 100; ++i)
        burst.push_back(arp({kBroadcast, kHost, {}}, 1, kHost, Ipv4Addr{0x0a010002 + i}, MacAddr{},
                            ip4("10.1.0.1")));
    // And errors that find no room: counted as their drop only.
    burst.push_back(
        frame({kMacA, kHost, {}}, 0x0800, ipv4_udp({ip4("10.1.0.2"), ip4("10.20.1.1"), 1})));
    const BurstOutcome o = rig.route(burst);
    CHECK(o.punted == 63);
    CHECK(o.drops[idx(DropReason::punt_full)] == 37);
    CHECK(o.drops[idx(DropReason::ttl_expired)] == 1);
    CHECK(total_drops(o) == 38);
    CHECK(rig.punts().size() == 63);
    rig.check_pools_full();
}

TEST_CASE("l3: packets waiting for a neighbour leave room in the punt ring for its answer",
          "[l3]") {
    RouterRig rig;  // a punt ring of 1024 slots takes 1023
    const auto to77 = [](uint32_t seq) {
        return frame({kMacA, kHost, {}}, 0x0800,
                     ipv4_udp({ip4("10.1.0.2"), ip4("10.3.0.77"), 64, 0, 0, 1, 18, seq}));
    };
    // A flow to an unresolved neighbour, faster than the control path polls.
    uint64_t punted = 0, punt_full = 0;
    for (uint32_t b = 0; b < 64; ++b) {
        std::vector<Bytes> burst;
        for (uint32_t i = 0; i < 32; ++i) burst.push_back(to77(b * 32 + i));
        const BurstOutcome o = rig.route(burst);
        CHECK(o.punted + o.drops[idx(DropReason::punt_full)] == 32);
        punted += o.punted;
        punt_full += o.drops[idx(DropReason::punt_full)];
    }
    CHECK(punted == 1023 / 2);
    CHECK(punt_full == 64 * 32 - 1023 / 2);
    // The neighbour's answer still finds room.
    const MacAddr learnt = mac("02:00:00:00:0c:77");
    const BurstOutcome answer = rig.route(
        {arp({kMacC, learnt, {}}, 2, learnt, ip4("10.3.0.77"), kMacC, ip4("10.3.0.1"))}, kC);
    CHECK(answer.punted == 1);
    rig.poll();
    // The first waiting packet asked; the answer released the newest 16
    // (l3.neighbour_queue) of the 511 punted, oldest first.
    std::vector<Bytes> want = {
        arp({kBroadcast, kMacC, {}}, 1, kMacC, ip4("10.3.0.1"), MacAddr{}, ip4("10.3.0.77"))};
    for (uint32_t seq = 511 - 16; seq < 511; ++seq)
        want.push_back(routed(to77(seq), learnt, kMacC));
    check_frames(rig.control_out(kC), want);
    const BurstOutcome later = rig.route({to77(9999)});
    CHECK(later.tx_pkts == 1);
    check_frames(rig.out(kC), {routed(to77(9999), learnt, kMacC)});
    rig.check_pools_full();
}
