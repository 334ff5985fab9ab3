// Next hops and RCU under load: two real workers forward while the control
// path deletes and adds routes and two neighbours flip between MACs, so that
// each next hop index is freed and reused many times; every frame that
// leaves is checked, and no freed or poisoned next hop is ever used.
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

namespace {

// The stress test's neighbours, learnt and then flipping between two MACs
// each: 10.3.0.77 on c, which 10.50.0.0/16 goes through, and 10.2.0.77 on
// b, 10.60.0.0/16's. Their next hops share one table, so an index reused too
// early would send one's packets the other's way.
struct StressNeighbour {
    size_t port;
    Ipv4Addr address;
    MacAddr macs[2];
    uint8_t net;  // 10.<net>.0.0/16 goes through it
};
const StressNeighbour kStressNbr[2] = {
    {kC, ip4("10.3.0.77"), {mac("02:00:00:00:0c:71"), mac("02:00:00:00:0c:72")}, 50},
    {kB, ip4("10.2.0.77"), {mac("02:00:00:00:0b:71"), mac("02:00:00:00:0b:72")}, 60},
};
// Frames come in on b (worker 0) and c (worker 1), from a host on each.
constexpr size_t kStressIn[2] = {kB, kC};
const MacAddr kStressHost[2] = {mac("02:00:00:00:0b:09"), mac("02:00:00:00:0c:09")};
const char* const kStressHostIp[2] = {"10.2.0.9", "10.3.0.9"};
const MacAddr kPortMac[3] = {kMacA, kMacB, kMacC};

// Frame seq: in on kStressIn[seq % 2], to 10.50.x.y or 10.60.x.y by turns.
Bytes stress_frame(uint32_t seq) {
    const size_t in = seq % 2;
    V4 p{ip4(kStressHostIp[in]), ip4("10.0.0.0"), 64, 0, 0, uint16_t(seq), 18, seq};
    p.dst.host_order |= uint32_t(kStressNbr[seq / 2 % 2].net) << 16 | (seq & 0xffff);
    return frame({kPortMac[kStressIn[in]], kStressHost[in], {}}, 0x0800, ipv4_udp(p));
}

// What leaves the router's ports while the stress test runs, each frame
// checked as it is taken off its ring.
struct StressChecker {
    uint64_t data_from_workers = 0, data_from_control = 0, arp = 0, icmp = 0;
    uint64_t poisoned = 0, bad = 0;
    std::string first_bad{};

    void take(RouterRig& rig, unsigned control_queue) {
        for (const size_t port : {kA, kB, kC})
            for (unsigned q = 0; q <= control_queue; ++q)
                for (const Bytes& f : rig.out(port, q)) check(f, port, q == control_queue);
    }

    void check(const Bytes& f, size_t port, bool control) {
        const auto fail = [&](const char* why) {
            if (bad++ == 0)
                first_bad = std::string(why) + " on port " + char('a' + port) + ": " + hex(f);
        };
        if (f.size() < 60) return fail("short");
        MacAddr dst, src;
        std::copy(f.begin(), f.begin() + 6, dst.bytes.begin());
        std::copy(f.begin() + 6, f.begin() + 12, src.bytes.begin());
        if (dst == kPoison) poisoned++;
        if (src != kPortMac[port]) return fail("source MAC");
        const uint16_t type = packet_bytes::be16(f, 12);
        if (type == 0x0806) {  // the router asking for a neighbour
            arp++;
            if (!control || port == kA) fail("ARP");
            return;
        }
        if (type != 0x0800) return fail("ethertype");
        if (f[14 + 9] == 1) {  // host unreachable for packets that waited in vain
            icmp++;
            if (!control || port == kA) fail("ICMP");
            return;
        }
        if (f[14 + 9] != 17 || f.size() < 14 + 20 + 8 + 4) return fail("not ours");
        const uint32_t seq = uint32_t(f[42]) << 24 | uint32_t(f[43]) << 16 | f[44] << 8 | f[45];
        // Through its neighbour, by either MAC, or by the default route on a
        // while its route is deleted: nothing else is a valid next hop.
        const StressNeighbour& n = kStressNbr[seq / 2 % 2];
        const bool valid =
            port == kA ? dst == kGwA : port == n.port && (dst == n.macs[0] || dst == n.macs[1]);
        if (!valid) return fail("next hop");
        if (f != routed(stress_frame(seq), dst, src)) return fail("bytes");
        (control ? data_from_control : data_from_workers)++;
    }
};

}  // namespace

TEST_CASE("l3: next hops changed under two running workers are never seen freed or reused early",
          "[l3][rcu]") {
    RouterRig rig(
        [](Config& c) {
            // 144 next hops, 4 neighbours static: the flips below reuse each
            // index many times.
            c.l3.max_neighbours = 8;
            c.l3.reachable_s = 1;
            c.l3.resolve_interval_ms = 10;
            c.l3.resolve_retries = 1;
            for (const auto& n : kStressNbr)
                c.routes.push_back({prefix(("10." + std::to_string(n.net) + ".0.0/16").c_str()),
                                    ip(n.address.to_string().c_str()),
                                    "",
                                    {},
                                    {},
                                    {},
                                    {}});
        },
        2, {kStressIn[0], kStressIn[1]});
    StressChecker checker;
    const unsigned control_queue = rig.worker_count;
    // "n.address is at n.macs[k % 2]", on n's port: the only producer of that
    // rx ring calls it.
    const auto neighbour_arp = [&](const StressNeighbour& n, uint64_t k) {
        const MacAddr& m = n.macs[k % 2];
        const Ipv4Addr ours{(n.address.host_order & 0xffffff00) | 1};
        rte_mbuf* a = rte_pktmbuf_alloc(rig.pool->mempool());
        if (!a) return false;
        const Bytes f = arp({kPortMac[n.port], m, {}}, 2, m, n.address, kPortMac[n.port], ours);
        std::memcpy(rte_pktmbuf_append(a, uint16_t(f.size())), f.data(), f.size());
        a->port = rig.ports[n.port].id;
        if (rte_ring_enqueue(rig.ports[n.port].rx, a) == 0) return true;
        rte_pktmbuf_free(a);
        return false;
    };

    // The sender: the only producer of both rx rings, each kept a few
    // bursts deep. After every 16 frames one neighbour or the other says it
    // moved to its other MAC: the control path makes a next hop for the new
    // MAC and retires the old one, thousands of times a second.
    std::atomic<bool> sending{true};
    uint64_t sent_data = 0, sent_arp = 0;
    std::thread sender([&] {
        uint32_t seq = 0;
        while (sending.load()) {
            bool room = false;
            for (int k = 0; k < 16; ++k) {
                const size_t in = kStressIn[seq % 2];
                if (rte_ring_count(rig.ports[in].rx) >= 256) continue;
                room = true;
                rte_mbuf* m = rte_pktmbuf_alloc(rig.pool->mempool());
                if (!m) break;
                const Bytes f = stress_frame(seq);
                std::memcpy(rte_pktmbuf_append(m, uint16_t(f.size())), f.data(), f.size());
                m->port = rig.ports[in].id;
                if (rte_ring_enqueue(rig.ports[in].rx, m) != 0) {
                    rte_pktmbuf_free(m);
                    break;
                }
                sent_data++;
                seq++;
            }
            if (room && neighbour_arp(kStressNbr[sent_arp % 2], sent_arp / 2)) sent_arp++;
            if (!room) std::this_thread::yield();
        }
    });
    // The checker: the only consumer of every TX ring.
    std::atomic<bool> checking{true};
    std::thread taker([&] {
        while (checking.load()) {
            checker.take(rig, control_queue);
            std::this_thread::yield();
        }
    });
    for (auto& w : rig.workers) REQUIRE(rte_eal_remote_launch(worker_main, w.get(), w->lcore) == 0);

    // The main thread is the control path, on a clock of its own (a
    // millisecond a poll), and deletes and adds the routes meanwhile.
    uint64_t t = steady_ms(), polls = 0, route_changes = 0, expiries = 0;
    const auto poll = [&] {
        rig.router->poll(++t);
        polls++;
    };
    // A second, and long enough for every index to have been reused a few
    // times and the neighbours to have gone twice, however slow the host.
    const auto made = [&] {
        const NeighbourCounters c = rig.router->neighbour_counters();
        return c.mac_changes + c.resolved + c.learned_unsolicited;
    };
    const auto began = std::chrono::steady_clock::now();
    const auto running = [&] {
        const auto elapsed = std::chrono::steady_clock::now() - began;
        return elapsed < std::chrono::seconds(1) ||
               ((made() < 10 * 144 || expiries < 2) && elapsed < std::chrono::seconds(30));
    };
    while (running()) {
        poll();
        // A route goes (its packets to the default route on a) and returns.
        const StressNeighbour& n = kStressNbr[route_changes % 2];
        const IpPrefix p = prefix(("10." + std::to_string(n.net) + ".0.0/16").c_str());
        REQUIRE(rig.router->delete_route(p));
        poll();
        REQUIRE(rig.router->add_route(p, ip(n.address.to_string().c_str()), ""));
        route_changes++;
        if (route_changes % 64 == 0) {  // their probes go unanswered: the neighbours go
            t += 1000;
            poll();
            t += 10;
            poll();
            expiries++;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    sending.store(false);
    sender.join();
    // It ends resolved: the last word on b and c is the neighbours'. The
    // clock stops, so that they do not expire while the rings drain.
    for (const auto& n : kStressNbr) sent_arp += neighbour_arp(n, 0);
    const auto drained = [&] {
        for (const size_t in : kStressIn)
            if (rte_ring_count(rig.ports[in].rx) != 0) return false;
        return true;
    };
    while (!drained()) {
        rig.router->poll(t);
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    rig.stop.store(true);
    for (auto& w : rig.workers) rte_eal_wait_lcore(w->lcore);
    rig.router->poll(t);  // every punt left
    checking.store(false);
    taker.join();
    checker.take(rig, control_queue);

    WorkerSnapshot sum;
    for (auto& w : rig.workers) {
        const WorkerSnapshot s = w->stats.read();
        CHECK(s.rx_pkts == s.tx_pkts + s.total_drops() + s.punted);
        sum += s;
    }
    const NeighbourCounters nc = rig.router->neighbour_counters();
    const RouterCounters rc = rig.router->counters();
    std::ostringstream stats;
    stats << "sent " << sent_data << " + " << sent_arp << " ARP; tx " << sum.tx_pkts << ", punted "
          << sum.punted << ", punt_full " << sum.drops[idx(DropReason::punt_full)] << ", tx_full "
          << sum.drops[idx(DropReason::tx_full)] << "; " << polls << " polls, " << route_changes
          << " route changes, " << expiries << " expiries, " << nc.mac_changes << " MAC changes, "
          << nc.resolved << " resolved, " << nc.learned_unsolicited << " learnt; sent "
          << checker.data_from_control << " that waited, " << checker.arp << " ARP, "
          << checker.icmp << " ICMP";
    INFO(stats.str());
    CHECK(checker.first_bad == "");
    CHECK(checker.bad == 0);
    CHECK(checker.poisoned == 0);
    // Every packet is accounted for: sent by a worker, dropped by name, or
    // handed to the control path, which took them all.
    CHECK(sum.rx_pkts == sent_data + sent_arp);
    CHECK(sum.tx_pkts == checker.data_from_workers);
    for (const DropReason r : {DropReason::no_route, DropReason::bad_header, DropReason::not_ip,
                               DropReason::ttl_expired, DropReason::oversize})
        CHECK(sum.drops[idx(r)] == 0);
    CHECK(rc.punts == sum.punted);
    CHECK(rc.resolved_sent == checker.data_from_control);
    CHECK(sum.tx_pkts > sent_data / 4);  // most went straight through
    // Far more next hops were made than the table holds (144): each index
    // went back to the free list and out again many times.
    CHECK(nc.mac_changes + nc.resolved + nc.learned_unsolicited > 10 * 144);
    CHECK(expiries >= 2);
    size_t forward = 0;
    for (const auto& r : rig.router->routes())
        for (const auto& n : kStressNbr)
            if (r.prefix == prefix(("10." + std::to_string(n.net) + ".0.0/16").c_str()))
                forward += r.state == "forward";
    CHECK(forward == 2);

    rig.router->stop();  // frees what still waits for a neighbour
    checker.take(rig, control_queue);
    rig.check_pools_full();
}
