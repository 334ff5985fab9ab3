// Router mode's data path on net_ring ports, in-process: a real Router and
// its RouterTables, worker contexts wired as Appliance::wire_workers wires
// them for l3, and forward_burst<l3> called on crafted frames; what leaves
// on the output rings and the punt rings is checked byte for byte, with the
// counters and the pool audits. Router::poll drives the control path; the
// last tests run two real workers while routes and next hops change (RCU).
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

TEST_CASE("l3: routed IPv4 leaves with TTL - 1, a good checksum and the next hop's MACs", "[l3]") {
    // 64 is route_burst's chunk: 65 and 130 cross it, 512 is kMaxBurst.
    for (const size_t n :
         {size_t(1), size_t(32), size_t(33), size_t(64), size_t(65), size_t(130), size_t(512)}) {
        DYNAMIC_SECTION("burst of " << n) {
            RouterRig rig;
            auto in = v4_frames(n, "10.20.0.0");
            // One whose checksum comes out 0x0000, one at TTL 2 (leaves at 1).
            V4 edge{ip4("10.1.0.2"), ip4("10.20.7.7"), 64};
            edge.id = id_for_zero_checksum(edge);
            in[n / 2] = frame({kMacA, kHost, {}}, 0x0800, ipv4_udp(edge));
            if (n > 1) {
                Bytes last_ip = packet_bytes::slice(in[n - 1], 14, in[n - 1].size() - 14);
                last_ip[8] = 2;
                store_v4_checksum(last_ip);
                in[n - 1] = frame({kMacA, kHost, {}}, 0x0800, last_ip);
            }

            const BurstOutcome o = rig.route(in);
            const auto got = rig.out(kB);
            check_frames(got, routed_all(in, kNbB, kMacB));
            CHECK(packet_bytes::be16(routed(in[n / 2], kNbB, kMacB), 14 + 10) == 0);
            CHECK(o.tx_pkts == n);
            CHECK(o.rx_bytes == bytes_of(in));
            CHECK(o.tx_bytes == bytes_of(in));
            CHECK(o.punted == 0);
            CHECK(total_drops(o) == 0);
            CHECK(rig.queued_out() == 0);
            CHECK(rig.punts().empty());
            rig.check_pools_full();
        }
    }
}

TEST_CASE("l3: one odd packet in a chunk of plain IPv4: another port, to us, oversize", "[l3]") {
    // Plain IPv4 chunks take the workers' shortest path; one packet that it
    // does not send to the chunk's one port, first, in the middle or last.
    for (const size_t n : {size_t(32), size_t(64)})
        for (const size_t at : {size_t(0), n / 2, n - 1})
            for (const int odd : {0, 1, 2}) {
                DYNAMIC_SECTION("burst " << n << ", packet " << at << ", odd one "
                                         << (odd == 0   ? "to port c"
                                             : odd == 1 ? "to us"
                                                        : "oversize")) {
                    RouterRig rig([](Config& c) { c.ports[1].mtu = 1400; });
                    auto in = v4_frames(n, "10.20.0.0");
                    V4 p{ip4("10.1.0.2"), ip4("10.20.30.9"), 64, 0, 0, 7, 18, 99};
                    if (odd == 1) p.dst = ip4("10.1.0.1");
                    if (odd == 2) {
                        p.dst = ip4("10.20.7.9");  // to b, one byte over its mtu
                        p.payload = 1400 - 28 + 1;
                    }
                    in[at] = frame({kMacA, kHost, {}}, 0x0800, ipv4_udp(p));
                    std::vector<Bytes> to_b;
                    for (size_t i = 0; i < n; ++i)
                        if (i != at) to_b.push_back(routed(in[i], kNbB, kMacB));
                    const BurstOutcome o = rig.route(in);
                    check_frames(rig.out(kB), to_b);
                    const auto to_c = rig.out(kC);
                    const auto punts = rig.punts();
                    uint64_t sent_bytes = bytes_of(to_b);
                    if (odd == 0) {
                        check_frames(to_c, {routed(in[at], kNbC, kMacC)});
                        sent_bytes += in[at].size();
                    } else {
                        CHECK(to_c.empty());
                    }
                    CHECK(o.tx_pkts == (odd == 0 ? n : n - 1));
                    CHECK(o.punted == (odd == 1 ? 1u : 0u));
                    REQUIRE(punts.size() == (odd == 1 ? 1u : 0u));
                    if (odd == 1) {
                        CHECK(punts[0].why == PuntReason::local);
                        CHECK(punts[0].frame == in[at]);
                    }
                    CHECK(o.drops[idx(DropReason::oversize)] == (odd == 2 ? 1u : 0u));
                    CHECK(total_drops(o) == (odd == 2 ? 1u : 0u));
                    CHECK(o.rx_bytes == bytes_of(in));
                    CHECK(o.tx_bytes == sent_bytes);
                    CHECK(rig.queued_out() == 0);
                    rig.check_pools_full();
                }
            }
}

TEST_CASE("l3: the longest prefix wins; deleted routes fall to the shorter one, added ones return",
          "[l3]") {
    RouterRig rig;
    const auto burst = [] {
        std::vector<Bytes> v;
        uint32_t seq = 0;
        for (const char* dst :
             {"10.20.30.5", "10.20.99.5", "8.8.8.8", "10.20.30.255", "10.21.0.1", "10.20.31.1"})
            v.push_back(frame({kMacA, kHost, {}}, 0x0800,
                              ipv4_udp({ip4("10.1.0.2"), ip4(dst), 64, 0, 0, 1, 18, seq++})));
        return v;
    }();
    const auto expect = [&](std::initializer_list<size_t> to_a, std::initializer_list<size_t> to_b,
                            std::initializer_list<size_t> to_c) {
        std::vector<Bytes> a, b, c;
        for (size_t i : to_a) a.push_back(routed(burst[i], kGwA, kMacA));
        for (size_t i : to_b) b.push_back(routed(burst[i], kNbB, kMacB));
        for (size_t i : to_c) c.push_back(routed(burst[i], kNbC, kMacC));
        const BurstOutcome o = rig.route(burst);
        check_frames(rig.out(kA), a);
        check_frames(rig.out(kB), b);
        check_frames(rig.out(kC), c);
        CHECK(o.tx_pkts == a.size() + b.size() + c.size());
        return o;
    };
    SECTION("/24 over /16 over the default") { expect({2, 4}, {1, 5}, {0, 3}); }
    SECTION("deletes fall through to no_route, adds bring the routes back") {
        REQUIRE(rig.router->delete_route(prefix("10.20.30.0/24")));
        expect({2, 4}, {0, 1, 3, 5}, {});
        REQUIRE(rig.router->delete_route(prefix("10.20.0.0/16")));
        expect({0, 1, 2, 3, 4, 5}, {}, {});
        REQUIRE(rig.router->delete_route(prefix("0.0.0.0/0")));
        const BurstOutcome none = expect({}, {}, {});
        CHECK(none.drops[idx(DropReason::no_route)] == burst.size());
        CHECK(total_drops(none) == burst.size());
        const auto punts = rig.punts();  // each with its ICMP unreachable to come
        REQUIRE(punts.size() == burst.size());
        for (size_t i = 0; i < punts.size(); ++i) {
            CHECK(punts[i].why == PuntReason::unreachable);
            CHECK(punts[i].frame == burst[i]);  // as received
        }
        REQUIRE(rig.router->add_route(prefix("0.0.0.0/0"), ip("10.1.0.254"), ""));
        expect({0, 1, 2, 3, 4, 5}, {}, {});
        REQUIRE(rig.router->add_route(prefix("10.20.30.0/24"), ip("10.3.0.2"), "c"));
        expect({1, 2, 4, 5}, {}, {0, 3});
        REQUIRE(rig.router->add_route(prefix("10.20.0.0/16"), ip("10.2.0.2"), ""));
        expect({2, 4}, {1, 5}, {0, 3});
        // An add over an existing route moves it.
        REQUIRE(rig.router->add_route(prefix("10.20.0.0/16"), ip("10.3.0.2"), ""));
        expect({2, 4}, {}, {0, 1, 3, 5});
        bool found = false;
        for (const auto& r : rig.router->routes())
            if (r.prefix == prefix("10.20.0.0/16")) {
                found = true;
                CHECK(r.origin == "runtime");
                CHECK(r.port == "c");
                CHECK(r.state == "forward");
            }
        CHECK(found);
    }
    rig.check_pools_full();
}

TEST_CASE("l3: TTL 0 and 1 drop as ttl_expired with a time exceeded punt, but to us are ours",
          "[l3]") {
    const auto v4 = [](const char* dst, uint8_t ttl, uint32_t seq) {
        return frame({kMacA, kHost, {}}, 0x0800,
                     ipv4_udp({ip4("10.1.0.2"), ip4(dst), ttl, 0, 0, 1, 18, seq}));
    };
    const auto v6 = [](const char* dst, uint8_t hops, uint32_t seq) {
        return frame({kMacA, kHost, {}}, 0x86dd,
                     ipv6_udp({ip("2001:db8:1::2"), ip(dst), hops, 18, seq}));
    };
    const std::vector<Bytes> expired = {
        v4("10.20.1.1", 1, 0),      v4("10.20.1.1", 0, 1),       // routed
        v4("8.8.8.8", 1, 2),        v4("10.3.0.77", 1, 3),       // default; unresolved
        v6("2001:db8:20::5", 1, 4), v6("2001:db8:20::5", 0, 5),  // IPv6 hop limit
        v6("2001:db8:3::77", 1, 6),                              // IPv6 unresolved
    };
    const std::vector<Bytes> ours = {v4("10.1.0.1", 1, 10), v4("10.3.0.1", 1, 11),
                                     v4("10.2.0.1", 0, 12), v6("2001:db8:1::1", 1, 13),
                                     v6("2001:db8:2::1", 0, 14)};
    SECTION("the ICMP rate allows") {
        RouterRig rig;
        std::vector<Bytes> burst = expired;
        burst.insert(burst.end(), ours.begin(), ours.end());
        const BurstOutcome o = rig.route(burst);
        CHECK(o.drops[idx(DropReason::ttl_expired)] == expired.size());
        CHECK(total_drops(o) == expired.size());
        CHECK(o.punted == ours.size());
        CHECK(o.tx_pkts == 0);
        CHECK(rig.queued_out() == 0);
        const auto punts = rig.punts();
        REQUIRE(punts.size() == burst.size());
        for (size_t i = 0; i < burst.size(); ++i) {
            INFO("frame " << i);
            CHECK(punts[i].why ==
                  (i < expired.size() ? PuntReason::time_exceeded : PuntReason::local));
            CHECK(hex(punts[i].frame) == hex(burst[i]));  // untouched
        }
        rig.check_pools_full();
    }
    SECTION("no ICMP errors: dropped and freed") {
        RouterRig rig([](Config& c) { c.l3.icmp_rate_limit = 0; });
        const BurstOutcome o = rig.route(expired);
        CHECK(o.drops[idx(DropReason::ttl_expired)] == expired.size());
        CHECK(rig.punts().empty());
        rig.check_pools_full();
    }
    SECTION(
        "one error a second, a burst of one: the worker passes one, the control path sends it") {
        RouterRig rig([](Config& c) {
            c.l3.icmp_rate_limit = 1;
            c.l3.icmp_rate_burst = 1;
        });
        std::vector<Bytes> ten;
        for (uint32_t i = 0; i < 10; ++i) ten.push_back(v4("10.20.1.1", 1, i));
        const BurstOutcome o = rig.route(ten);
        CHECK(o.drops[idx(DropReason::ttl_expired)] == 10);
        // The worker passes its burst (one) at once, the rest of the ten
        // wait for the next second; the control path sends that one.
        CHECK(rte_ring_count(rig.router->punt_ring(0)) == 1);
        rig.poll();
        CHECK(rig.control_out(kA).size() == 1);
        const RouterCounters c = rig.router->counters();
        CHECK(c.icmp_errors_sent == 1);
        CHECK(c.icmp_errors_rate_limited == 0);
        rig.check_pools_full();
    }
}

TEST_CASE("l3: the control path answers TTL 1 with time exceeded from the ingress port's address",
          "[l3]") {
    RouterRig rig;
    const Bytes in = frame({kMacA, kHost, {}}, 0x0800,
                           ipv4_udp({ip4("10.1.0.2"), ip4("10.20.1.1"), 1, 0, 0, 0x4242, 30, 7}));
    const Bytes in6 = frame({kMacA, kHost, {}}, 0x86dd,
                            ipv6_udp({ip("2001:db8:1::2"), ip("2001:db8:20::9"), 1, 30, 8}));
    rig.route({in, in6});
    rig.poll();
    const Bytes quote = packet_bytes::slice(in, 14, in.size() - 14);
    Bytes icmp_msg = {11, 0, 0, 0, 0, 0, 0, 0};
    Bytes ip_err =
        packet_bytes::ipv4(ip4("10.1.0.1"), ip4("10.1.0.2"), 1,
                           packet_bytes::icmp(packet_bytes::concat(icmp_msg, quote)), 64);
    ip_err[1] = 0xc0;                        // internetwork control
    packet_bytes::put16(ip_err, 4, 0);       // id 0
    packet_bytes::put16(ip_err, 6, 0x4000);  // DF
    store_v4_checksum(ip_err);
    const Bytes quote6 = packet_bytes::slice(in6, 14, in6.size() - 14);
    const Bytes msg6 = packet_bytes::icmpv6(ip("2001:db8:1::1"), ip("2001:db8:1::2"),
                                            packet_bytes::concat({3, 0, 0, 0, 0, 0, 0, 0}, quote6));
    check_frames(rig.control_out(kA),
                 {frame({kHost, kMacA, {}}, 0x0800, ip_err),
                  frame({kHost, kMacA, {}}, 0x86dd,
                        packet_bytes::ipv6(ip("2001:db8:1::1"), ip("2001:db8:1::2"), 58, msg6))});
    CHECK(rig.router->counters().icmp_errors_sent == 2);
    rig.check_pools_full();
}

TEST_CASE("l3: fragments, IPv4 options and one VLAN tag are routed; two tags are not_ip", "[l3]") {
    RouterRig rig;
    const auto v4 = [](const L2& l2, V4 p) {
        p.src = ip4("10.1.0.2");
        p.dst = ip4("10.20.1.1");
        return frame(l2, 0x0800, ipv4_udp(p));
    };
    const L2 plain{kMacA, kHost, {}};
    std::vector<Bytes> routed_in = {
        v4(plain, {.frag = 0x2000, .seq = 1}),                       // first fragment (MF)
        v4(plain, {.frag = 0x0010, .seq = 2}),                       // last fragment, offset 128
        v4(plain, {.frag = 0x2010, .seq = 3}),                       // a middle one
        v4(plain, {.frag = 0x4000, .seq = 4}),                       // DF
        v4(plain, {.options = 4, .seq = 5}),                         // IHL 6
        v4(plain, {.options = 20, .seq = 6}),                        // IHL 10
        v4(plain, {.options = 40, .frag = 0x2000, .seq = 7}),        // IHL 15, a fragment
        v4({kMacA, kHost, {0x81000064}}, {.seq = 8}),                // 802.1Q, VID 100
        v4({kMacA, kHost, {0x88a8e00a}}, {.options = 8, .seq = 9}),  // 802.1ad, PCP 7
        v4(plain, {.payload = 1500 - 28, .seq = 10}),                // IP 1500 bytes: b's mtu
        v4({kMacA, kHost, {0x81000001}}, {.payload = 1500 - 28, .seq = 11}),  // and a tag
    };
    // Ethernet padding after the IP packet goes along, as received.
    Bytes padded = v4(plain, {.payload = 2, .seq = 12});
    padded.resize(60, 0xee);
    routed_in.push_back(padded);
    const std::vector<Bytes> not_ip = {
        v4({kMacA, kHost, {0x81000064, 0x81000065}}, {.seq = 20}),
        v4({kMacA, kHost, {0x88a80064, 0x81000065}}, {.seq = 21}),
    };
    // One byte over the mtu: routed frames leave untagged, so the 4 bytes
    // a tag would take are no room for a longer IP packet.
    const Bytes oversize = v4(plain, {.payload = 1500 - 28 + 1, .seq = 30});
    std::vector<Bytes> burst = routed_in;
    burst.insert(burst.begin() + 3, not_ip[0]);
    burst.insert(burst.begin() + 7, oversize);
    burst.push_back(not_ip[1]);
    const BurstOutcome o = rig.route(burst);
    const auto want = routed_all(routed_in, kNbB, kMacB);
    check_frames(rig.out(kB), want);
    CHECK(want[7].size() == routed_in[7].size() - 4);  // the tag is gone
    CHECK(o.tx_pkts == routed_in.size());
    CHECK(o.drops[idx(DropReason::not_ip)] == 2);
    CHECK(o.drops[idx(DropReason::oversize)] == 1);
    CHECK(total_drops(o) == 3);
    CHECK(o.rx_bytes == bytes_of(burst));
    CHECK(o.tx_bytes == bytes_of(want));
    CHECK(rig.punts().empty());
    rig.check_pools_full();
}

TEST_CASE("l3: malformed frames are bad_header or not_ip; ARP and ND are punted; no route drops",
          "[l3]") {
    RouterRig rig;
    const L2 l2{kMacA, kHost, {}};
    const Bytes good = frame(l2, 0x0800, ipv4_udp({ip4("10.1.0.2"), ip4("10.20.1.1")}));
    const auto ip_with = [&](const std::function<void(Bytes&)>& change, bool fix_checksum) {
        Bytes ip = packet_bytes::slice(good, 14, good.size() - 14);
        change(ip);
        if (fix_checksum) store_v4_checksum(ip);
        return frame(l2, 0x0800, ip);
    };
    const Bytes good6 = frame(l2, 0x86dd, ipv6_udp({ip("2001:db8:1::2"), ip("2001:db8:20::1")}));
    Bytes bad6_version = good6;
    bad6_version[14] = 0x40;
    Bytes bad6_length = good6;
    packet_bytes::put16(bad6_length, 14 + 4, uint16_t(good6.size() - 14 - 40 + 1));
    Bytes v4_as_v6 = good;
    packet_bytes::put16(v4_as_v6, 12, 0x86dd);
    const std::vector<Bytes> bad = {
        Bytes(10, 0),                           // runt: no Ethernet header
        packet_bytes::slice(good, 0, 14),       // no IP header
        packet_bytes::slice(good, 0, 14 + 19),  // 19 bytes of it
        packet_bytes::slice(frame({kMacA, kHost, {0x81000064}}, 0x0800, {}), 0, 16),  // cut tag
        ip_with([](Bytes& ip) { ip[0] = 0x65; }, true),                               // version 6
        v4_as_v6,                                         // version 4 as IPv6
        ip_with([](Bytes& ip) { ip[0] = 0x44; }, true),   // IHL 4
        ip_with([](Bytes& ip) { ip[0] = 0x4f; }, false),  // IHL 15, 46 bytes
        ip_with([](Bytes& ip) { packet_bytes::put16(ip, 2, uint16_t(ip.size() + 1)); }, true),
        ip_with([](Bytes& ip) { packet_bytes::put16(ip, 2, 19); }, true),  // under its header
        ip_with([](Bytes& ip) { ip[10] ^= 0x01; }, false),                 // checksum
        ip_with([](Bytes& ip) { ip[12] ^= 0x80; }, false),                 // source, unsummed
        bad6_version,
        bad6_length,
    };
    const std::vector<Bytes> not_ip = {frame(l2, 0x88cc, Bytes(46, 0)),
                                       frame(l2, 0x8847, Bytes(46, 1))};
    const Bytes arp_req =
        arp({kBroadcast, kHost, {}}, 1, kHost, ip4("10.1.0.2"), MacAddr{}, ip4("10.1.0.1"));
    const IpAddress target = ip("2001:db8:1::1");
    const Bytes ns = frame({multicast_mac(solicited_node(target)), kHost, {}}, 0x86dd,
                           nd(135, 0, ip("2001:db8:1::2"), solicited_node(target), target, kHost));
    const Bytes tagged_arp = arp({kBroadcast, kHost, {0x81000064}}, 1, kHost, ip4("10.1.0.2"),
                                 MacAddr{}, ip4("10.1.0.1"));
    const std::vector<Bytes> control = {arp_req, ns, tagged_arp};
    const Bytes no_route6 =
        frame(l2, 0x86dd, ipv6_udp({ip("2001:db8:1::2"), ip("2001:db8:99::1")}));

    for (const size_t copies : {size_t(1), size_t(4)}) {  // 4: 84 frames, two chunks
        DYNAMIC_SECTION(copies << " of each") {
            std::vector<Bytes> burst;
            for (size_t k = 0; k < copies; ++k) {
                burst.insert(burst.end(), bad.begin(), bad.end());
                burst.insert(burst.end(), not_ip.begin(), not_ip.end());
                burst.insert(burst.end(), control.begin(), control.end());
                burst.push_back(no_route6);
                burst.push_back(good);
            }
            const BurstOutcome o = rig.route(burst);
            CHECK(o.drops[idx(DropReason::bad_header)] == bad.size() * copies);
            CHECK(o.drops[idx(DropReason::not_ip)] == not_ip.size() * copies);
            CHECK(o.drops[idx(DropReason::no_route)] == copies);
            CHECK(total_drops(o) == (bad.size() + not_ip.size() + 1) * copies);
            CHECK(o.punted == control.size() * copies);
            CHECK(o.tx_pkts == copies);
            CHECK(o.rx_bytes == bytes_of(burst));
            check_frames(rig.out(kB), std::vector<Bytes>(copies, routed(good, kNbB, kMacB)));
            const auto punts = rig.punts();
            REQUIRE(punts.size() == (control.size() + 1) * copies);
            for (size_t k = 0; k < copies; ++k) {
                for (size_t i = 0; i < control.size(); ++i) {
                    CHECK(punts[k * 4 + i].why == PuntReason::neighbour);
                    CHECK(punts[k * 4 + i].frame == control[i]);
                }
                CHECK(punts[k * 4 + 3].why == PuntReason::unreachable);
                CHECK(punts[k * 4 + 3].frame == no_route6);
            }
            rig.check_pools_full();
        }
    }
    SECTION("without the default route, IPv4 has no route either") {
        REQUIRE(rig.router->delete_route(prefix("0.0.0.0/0")));
        const Bytes lost = frame(l2, 0x0800, ipv4_udp({ip4("10.1.0.2"), ip4("8.8.8.8")}));
        const BurstOutcome o = rig.route({lost, good, lost});
        CHECK(o.drops[idx(DropReason::no_route)] == 2);
        CHECK(o.tx_pkts == 1);
        CHECK(rig.out(kB).size() == 1);
        const auto punts = rig.punts();
        REQUIRE(punts.size() == 2);
        CHECK(punts[0].why == PuntReason::unreachable);
        CHECK(punts[1].frame == lost);
        // The control path turns them into net unreachable.
        rig.route({lost});
        rig.poll();
        const auto errors = rig.control_out(kA);
        REQUIRE(errors.size() == 1);
        CHECK(errors[0][14 + 20] == 3);  // ICMP destination unreachable
        CHECK(errors[0][14 + 21] == 0);  // net
        rig.check_pools_full();
    }
}

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

TEST_CASE("l3: routed IPv6 leaves with hop limit - 1 and the next hop's MACs", "[l3]") {
    for (const size_t n : {size_t(1), size_t(32), size_t(33), size_t(100)}) {
        DYNAMIC_SECTION("burst of " << n) {
            RouterRig rig;
            std::vector<Bytes> in;
            for (size_t i = 0; i < n; ++i) {
                IpAddress dst = ip("2001:db8:20::");
                dst.bytes[15] = uint8_t(i);
                dst.bytes[6] = uint8_t(i * 7);  // still in the /48
                in.push_back(frame(
                    {kMacA, kHost,
                     i % 5 == 4 ? std::vector<uint32_t>{0x81000007} : std::vector<uint32_t>{}},
                    0x86dd,
                    ipv6_udp({ip("2001:db8:1::2"), dst, uint8_t(2 + i % 200), 18 + i * 31 % 300,
                              uint32_t(i)})));
            }
            const BurstOutcome o = rig.route(in);
            const auto want = routed_all(in, kNbB6, kMacB);
            check_frames(rig.out(kB), want);
            CHECK(o.tx_pkts == n);
            CHECK(o.rx_bytes == bytes_of(in));
            CHECK(o.tx_bytes == bytes_of(want));
            CHECK(total_drops(o) == 0);
            rig.check_pools_full();
        }
    }
}

TEST_CASE("l3: the control path answers ARP, ND and ping, and resolves waiting packets", "[l3]") {
    RouterRig rig;
    SECTION("an ARP request for our address gets a reply, and its sender is learnt") {
        rig.route(
            {arp({kBroadcast, kHost, {}}, 1, kHost, ip4("10.1.0.2"), MacAddr{}, ip4("10.1.0.1"))});
        rig.poll();
        check_frames(rig.control_out(kA),
                     {arp({kHost, kMacA, {}}, 2, kMacA, ip4("10.1.0.1"), kHost, ip4("10.1.0.2"))});
        CHECK(rig.router->counters().arp_requests_answered == 1);
        // Its host route goes straight through the worker.
        const Bytes to_host =
            frame({kMacB, kNbB, {}}, 0x0800, ipv4_udp({ip4("10.2.0.2"), ip4("10.1.0.2"), 9}));
        const BurstOutcome o = rig.route({to_host}, kB);
        CHECK(o.tx_pkts == 1);
        check_frames(rig.out(kA), {routed(to_host, kHost, kMacA)});
    }
    SECTION("an ARP request for another address is not answered") {
        rig.route(
            {arp({kBroadcast, kHost, {}}, 1, kHost, ip4("10.1.0.2"), MacAddr{}, ip4("10.1.0.9"))});
        rig.poll();
        CHECK(rig.control_out(kA).empty());
        CHECK(rig.router->counters().arp_ignored == 1);
        CHECK(rig.router->neighbours().size() == 4);  // the static ones
    }
    SECTION("an echo request to any of our addresses is answered on the port it came in by") {
        Bytes echo = {8, 0, 0, 0, 0x12, 0x34, 0, 1};
        for (uint8_t i = 0; i < 32; ++i) echo.push_back(i);
        const Bytes req = frame(
            {kMacA, kHost, {}}, 0x0800,
            packet_bytes::ipv4(ip4("10.1.0.2"), ip4("10.2.0.1"), 1, packet_bytes::icmp(echo), 3));
        Bytes reply = echo;
        reply[0] = 0;
        const BurstOutcome o = rig.route({req});
        CHECK(o.punted == 1);
        rig.poll();
        check_frames(rig.control_out(kA),
                     {frame({kHost, kMacA, {}}, 0x0800,
                            packet_bytes::ipv4(ip4("10.2.0.1"), ip4("10.1.0.2"), 1,
                                               packet_bytes::icmp(reply), 64))});
        CHECK(rig.router->counters().echo_replies == 1);
    }
    SECTION("UDP to our address gets port unreachable") {
        const Bytes udp_in = frame({kMacA, kHost, {}}, 0x0800,
                                   ipv4_udp({ip4("10.1.0.2"), ip4("10.1.0.1"), 64, 0, 0, 5, 10}));
        rig.route({udp_in});
        rig.poll();
        const auto errors = rig.control_out(kA);
        REQUIRE(errors.size() == 1);
        CHECK(errors[0][14 + 20] == 3);  // destination unreachable
        CHECK(errors[0][14 + 21] == 3);  // port
        CHECK(rig.router->counters().local_dropped == 1);
    }
    SECTION("a neighbour solicitation for our address gets an advertisement") {
        const IpAddress target = ip("2001:db8:1::1"), host = ip("2001:db8:1::2");
        rig.route({frame({multicast_mac(solicited_node(target)), kHost, {}}, 0x86dd,
                         nd(135, 0, host, solicited_node(target), target, kHost))});
        rig.poll();
        check_frames(rig.control_out(kA), {frame({kHost, kMacA, {}}, 0x86dd,
                                                 nd(136, 0xe0, target, host, target, kMacA))});
        CHECK(rig.router->counters().nd_solicitations_answered == 1);
    }
    SECTION("a packet to an unknown neighbour waits for ARP, then leaves; the next go direct") {
        const MacAddr learnt = mac("02:00:00:00:0c:77");
        const auto to77 = [](uint32_t seq) {
            return frame({kMacA, kHost, {}}, 0x0800,
                         ipv4_udp({ip4("10.1.0.2"), ip4("10.3.0.77"), 64, 0, 0, 1, 18, seq}));
        };
        const BurstOutcome first = rig.route({to77(1), to77(2)});
        CHECK(first.punted == 2);
        rig.poll();
        check_frames(rig.control_out(kC), {arp({kBroadcast, kMacC, {}}, 1, kMacC, ip4("10.3.0.1"),
                                               MacAddr{}, ip4("10.3.0.77"))});
        CHECK(rig.out(kC).empty());
        // The answer comes in on c, through c's worker path.
        const BurstOutcome answer = rig.route(
            {arp({kMacC, learnt, {}}, 2, learnt, ip4("10.3.0.77"), kMacC, ip4("10.3.0.1"))}, kC);
        CHECK(answer.punted == 1);
        rig.poll();
        check_frames(rig.control_out(kC),
                     {routed(to77(1), learnt, kMacC), routed(to77(2), learnt, kMacC)});
        CHECK(rig.router->counters().resolved_sent == 2);
        const BurstOutcome later = rig.route({to77(3)});
        CHECK(later.tx_pkts == 1);
        CHECK(later.punted == 0);
        check_frames(rig.out(kC), {routed(to77(3), learnt, kMacC)});
        bool host_route = false;
        for (const auto& r : rig.router->routes())
            if (r.prefix == prefix("10.3.0.77/32"))
                host_route = r.origin == "neighbour" && r.state == "forward" && r.port == "c";
        CHECK(host_route);
    }
    SECTION("IPv6: a packet to an unknown neighbour waits for ND, then leaves") {
        const MacAddr learnt = mac("02:00:00:00:0c:66");
        const IpAddress dst = ip("2001:db8:3::77"), ours = ip("2001:db8:3::1");
        const Bytes in =
            frame({kMacA, kHost, {}}, 0x86dd, ipv6_udp({ip("2001:db8:1::2"), dst, 64, 20, 3}));
        rig.route({in});
        rig.poll();
        check_frames(rig.control_out(kC),
                     {frame({multicast_mac(solicited_node(dst)), kMacC, {}}, 0x86dd,
                            nd(135, 0, ours, solicited_node(dst), dst, kMacC))});
        rig.route({frame({kMacC, learnt, {}}, 0x86dd, nd(136, 0x60, dst, ours, dst, learnt))}, kC);
        rig.poll();
        check_frames(rig.control_out(kC), {routed(in, learnt, kMacC)});
        const BurstOutcome later = rig.route({in});
        CHECK(later.tx_pkts == 1);
        check_frames(rig.out(kC), {routed(in, learnt, kMacC)});
    }
    CHECK(rig.queued_out() == 0);
    rig.check_pools_full();
}

TEST_CASE("l3: with icmp_rate_limit 0 the control path sends no ICMP error", "[l3]") {
    RouterRig rig([](Config& c) { c.l3.icmp_rate_limit = 0; });
    const Bytes udp_in = frame({kMacA, kHost, {}}, 0x0800,
                               ipv4_udp({ip4("10.1.0.2"), ip4("10.1.0.1"), 64, 0, 0, 5, 10}));
    const Bytes udp6_in = frame({kMacA, kHost, {}}, 0x86dd,
                                ipv6_udp({ip("2001:db8:1::2"), ip("2001:db8:1::1"), 64, 10, 6}));
    CHECK(rig.route({udp_in, udp6_in}).punted == 2);
    rig.poll();
    CHECK(rig.control_out(kA).empty());
    const RouterCounters c = rig.router->counters();
    CHECK(c.local_dropped == 2);
    CHECK(c.icmp_errors_sent == 0);
    CHECK(c.icmp_errors_rate_limited == 2);
    rig.check_pools_full();
}

TEST_CASE("l3: an ARP or NS from an address off the port's subnets moves no route", "[l3]") {
    RouterRig rig;
    const MacAddr rogue = mac("02:00:00:00:0e:0e");
    // On a, claiming b's static neighbour, an address the default route
    // covers, and an IPv6 address of b's subnet; each asking for our
    // address on a, so each is answered.
    const IpAddress a6 = ip("2001:db8:1::1");
    rig.route({arp({kBroadcast, rogue, {}}, 1, rogue, ip4("10.2.0.2"), MacAddr{}, ip4("10.1.0.1")),
               arp({kBroadcast, rogue, {}}, 1, rogue, ip4("8.8.4.4"), MacAddr{}, ip4("10.1.0.1")),
               frame({multicast_mac(solicited_node(a6)), rogue, {}}, 0x86dd,
                     nd(135, 0, ip("2001:db8:2::2"), solicited_node(a6), a6, rogue))});
    rig.poll();
    CHECK(rig.control_out(kA).size() == 3);
    CHECK(rig.router->neighbours().size() == 4);  // the static ones only
    const auto to = [](const char* dst) {
        return frame({kMacC, kNbC, {}}, 0x0800, ipv4_udp({ip4("10.3.0.2"), ip4(dst)}));
    };
    const Bytes to6 =
        frame({kMacC, kNbC, {}}, 0x86dd, ipv6_udp({ip("2001:db8:3::2"), ip("2001:db8:2::2")}));
    CHECK(rig.route({to("10.2.0.2"), to("8.8.4.4"), to6}, kC).tx_pkts == 3);
    check_frames(rig.out(kB), {routed(to("10.2.0.2"), kNbB, kMacB), routed(to6, kNbB6, kMacB)});
    check_frames(rig.out(kA), {routed(to("8.8.4.4"), kGwA, kMacA)});
    rig.check_pools_full();
}

TEST_CASE("l3: RouterTables reuses no next hop before every reader passed a quiescent point",
          "[l3][rcu]") {
    L3Config cfg;
    cfg.max_neighbours = 1;  // 130 next hops
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
    const auto hop_of = [&](const char* dst) {
        uint32_t nh = 0;
        return rte_lpm_lookup(v.lpm4, ip4(dst).host_order, &nh) == 0 ? nh : kUnreachableNextHop;
    };
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

TEST_CASE("l3: route add follows the config's rules; route del says what a route is", "[l3]") {
    RouterRig rig;
    const auto refusal = [&](const char* p, const char* via, const char* port = "") {
        const Status st =
            rig.router->add_route(prefix(p), via ? std::optional(ip(via)) : std::nullopt, port);
        REQUIRE_FALSE(st.ok());
        return st.error().message;
    };
    CHECK(refusal("10.9.0.0/16", "10.1.0.1") ==
          "'10.1.0.1' is one of this router's own addresses (port 'a')");
    CHECK(refusal("10.9.0.0/16", "10.1.0.255") ==
          "'10.1.0.255' is the broadcast address of subnet 10.1.0.0/24 (port 'a'), which names "
          "no neighbour");
    CHECK(refusal("10.9.0.0/16", "10.1.0.0") ==
          "'10.1.0.0' is the network address of subnet 10.1.0.0/24 (port 'a'), which names no "
          "neighbour");
    CHECK(refusal("224.0.0.0/4", "10.1.0.2") ==
          "'224.0.0.0/4' is multicast (224.0.0.0/4), which a router never forwards to");
    CHECK(refusal("127.0.0.0/8", "10.1.0.2").find("loopback") != std::string::npos);
    CHECK(refusal("fe80::/10", "2001:db8:1::2").find("link-local") != std::string::npos);
    CHECK(refusal("ff00::/8", nullptr, "a").find("multicast") != std::string::npos);
    CHECK(refusal("10.1.0.0/24", "10.2.0.2") ==
          "'10.1.0.0/24' is the connected subnet of port 'a' already");
    CHECK(refusal("10.9.0.0/16", "10.9.0.1").find("on no connected subnet") != std::string::npos);
    CHECK(refusal("10.9.0.0/16", "2001:db8:1::2") ==
          "'2001:db8:1::2' is not IPv4, as the prefix is");
    CHECK(refusal("10.9.0.0/16", "10.1.0.2", "x") == "no port 'x'");
    // What the rules allow still goes in.
    REQUIRE(rig.router->add_route(prefix("10.9.0.0/16"), ip("10.1.0.2"), ""));

    // A static neighbour's host route: its own words, not a subnet's.
    const auto del = [&](const char* p) {
        const Status st = rig.router->delete_route(prefix(p));
        REQUIRE_FALSE(st.ok());
        return st.error().message;
    };
    CHECK(del("10.2.0.2/32") ==
          "'10.2.0.2/32' is the host route of neighbour 10.2.0.2 of port 'b', learned by ARP or "
          "neighbour discovery; it goes when the neighbour does");
    CHECK(del("10.1.0.0/24") ==
          "'10.1.0.0/24' is the connected subnet of port 'a'; it goes with the port's address");
    CHECK(del("10.1.0.1/32").find("one of the router's own addresses of port 'a'") !=
          std::string::npos);
    CHECK(del("10.1.0.255/32").find("broadcast") != std::string::npos);
    rig.check_pools_full();
}

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
