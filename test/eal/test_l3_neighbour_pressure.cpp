// The neighbour table under pressure: a flood of ARP from made-up senders
// never keeps a wanted neighbour from resolving, and packets to unused
// addresses hold no more mbufs than max_waiting_packets allows.
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

TEST_CASE("l3: ARP from made-up senders never stops a new neighbour from resolving", "[l3]") {
    // 64 entries, 4 of them static; a port's share is 48.
    RouterRig rig;
    const Ipv4Addr ours = ip4("10.1.0.1");
    for (uint32_t first = 2; first < 250; first += 31) {
        std::vector<Bytes> burst;
        for (uint32_t h = first; h < std::min(first + 31, 250u); ++h) {
            MacAddr m = mac("02:00:00:00:ee:00");
            m.bytes[5] = uint8_t(h);
            burst.push_back(
                arp({kBroadcast, m, {}}, 1, m, Ipv4Addr{ours.host_order - 1 + h}, MacAddr{}, ours));
        }
        rig.route(burst);
        rig.poll();
    }
    (void)rig.control_out(kA);  // the replies
    const NeighbourCounters flooded = rig.router->neighbour_counters();
    CHECK(flooded.learned_unsolicited == 248);
    CHECK(flooded.evicted > 0);
    CHECK(rig.router->neighbours().size() <= 64);

    // A host on the flooded port and one on another: each asked for at
    // once, each resolves with its answer.
    const struct {
        size_t port;
        const char* host;
        const char* ours;
        MacAddr mac;
    } wanted[] = {{kA, "10.1.0.250", "10.1.0.1", mac("02:00:00:00:0a:fa")},
                  {kC, "10.3.0.77", "10.3.0.1", mac("02:00:00:00:0c:77")}};
    for (const auto& w : wanted) {
        INFO(w.host);
        const Bytes to = frame({kMacB, kNbB, {}}, 0x0800,
                               ipv4_udp({ip4("10.2.0.2"), ip4(w.host), 64, 0, 0, 1, 18, 1}));
        CHECK(rig.route({to}, kB).punted == 1);
        rig.poll();
        const MacAddr port_mac = rig.macs[w.port];
        check_frames(rig.control_out(w.port), {arp({kBroadcast, port_mac, {}}, 1, port_mac,
                                                   ip4(w.ours), MacAddr{}, ip4(w.host))});
        rig.route({arp({port_mac, w.mac, {}}, 2, w.mac, ip4(w.host), port_mac, ip4(w.ours))},
                  w.port);
        rig.poll();
        check_frames(rig.control_out(w.port), {routed(to, w.mac, port_mac)});
    }
    CHECK(rig.router->neighbour_counters().table_full_drops == 0);
    CHECK(rig.queued_out() == 0);
    rig.check_pools_full();
}

TEST_CASE("l3: packets to unused addresses hold at most max_waiting_packets mbufs", "[l3]") {
    RouterRig rig([](Config& c) {
        c.l3.max_resolving = 16;
        c.l3.max_waiting_packets = 40;
    });
    // 10.3.0.0/24's unused addresses, four packets each, 1,000 in all.
    uint64_t sent = 0;
    for (int round = 0; round < 4; ++round)
        for (uint32_t first = 10; first < 260; first += 32) {
            std::vector<Bytes> burst;
            for (uint32_t h = first; h < first + 32 && h < 260; ++h) {
                const Ipv4Addr dst{ip4("10.3.0.0").host_order + h % 250 + 3};
                burst.push_back(frame({kMacA, kHost, {}}, 0x0800,
                                      ipv4_udp({ip4("10.1.0.2"), dst, 64, 0, 0, 1, 18, h})));
            }
            sent += burst.size();
            rig.route(burst);
            rig.poll();
            const RouterTableSizes s = rig.router->sizes();
            REQUIRE(s.waiting <= 40);
            REQUIRE(s.neighbours_resolving <= 16);
            // An unrelated flow still goes straight through.
            const Bytes to_b = frame({kMacA, kHost, {}}, 0x0800,
                                     ipv4_udp({ip4("10.1.0.2"), ip4("10.2.0.2"), 64, 0, 0, 1, 18}));
            CHECK(rig.route({to_b}).tx_pkts == 1);
            CHECK(rig.out(kB).size() == 1);
        }
    (void)rig.control_out(kC);  // the requests
    const NeighbourCounters n = rig.router->neighbour_counters();
    CHECK(rig.router->sizes().waiting_peak == 40);
    CHECK(n.resolving_full_drops > 0);
    CHECK(n.waiting_full_drops > 0);
    // Every packet accounted for: waiting, or dropped by its reason.
    CHECK(n.queued + n.resolving_full_drops + n.table_full_drops == sent);
    CHECK(n.queue_drops + n.waiting_full_drops + rig.router->sizes().waiting == n.queued);
    rig.router.reset();  // frees what still waits
    rig.check_pools_full();
}
