// What router mode's workers do not route, each by its reason: malformed
// frames (bad_header), other ethertypes (not_ip), ARP and ND (punted to the
// control path), and destinations without a route (no_route, punted for
// their net unreachable).
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

TEST_CASE("l3: a port's checksum offload is trusted; without it every header is summed", "[l3]") {
    // A header whose checksum is wrong: where the port has the offload, a
    // GOOD flag is trusted and any other has the header summed in software;
    // where it has not, no flag counts.
    const L2 l2{kMacA, kHost, {}};
    Bytes ip = ipv4_udp({ip4("10.1.0.2"), ip4("10.20.1.1")});
    ip[10] ^= 0x01;
    const Bytes wrong = frame(l2, 0x0800, ip);
    const Bytes right = frame(l2, 0x0800, ipv4_udp({ip4("10.1.0.2"), ip4("10.20.1.2")}));
    struct Case {
        bool offload;
        uint64_t flag;
        bool wrong_routed;
    };
    for (const Case c : {Case{true, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true},
                         Case{true, RTE_MBUF_F_RX_IP_CKSUM_BAD, false},
                         Case{true, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, false},
                         Case{false, RTE_MBUF_F_RX_IP_CKSUM_GOOD, false},
                         Case{false, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, false}}) {
        DYNAMIC_SECTION("offload " << c.offload << ", flag " << c.flag) {
            RouterRig rig;
            rig.workers[0]->l3_rx_checksum = c.offload;
            const BurstOutcome o = rig.route({wrong, right, wrong}, kA, 0, c.flag);
            const auto got = rig.out(kB);
            // A right header routes whatever the flag says.
            CHECK(got.size() == (c.wrong_routed ? 3u : 1u));
            CHECK(o.drops[idx(DropReason::bad_header)] == (c.wrong_routed ? 0u : 2u));
            rig.check_pools_full();
        }
    }
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
        packet_bytes::slice(good6, 0, 14 + 39),  // 39 bytes of an IPv6 header
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
    // Unicast to our address: plain IPv6 whose route is ours, punted as ND.
    const Bytes ns_to_us =
        frame(l2, 0x86dd, nd(135, 0, ip("2001:db8:1::2"), target, target, kHost));
    const std::vector<Bytes> control = {arp_req, ns, tagged_arp, ns_to_us};
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
            const size_t each = control.size() + 1;
            for (size_t k = 0; k < copies; ++k) {
                for (size_t i = 0; i < control.size(); ++i) {
                    CAPTURE(k, i);
                    CHECK(punts[k * each + i].why == PuntReason::neighbour);
                    CHECK(punts[k * each + i].frame == control[i]);
                }
                CHECK(punts[k * each + control.size()].why == PuntReason::unreachable);
                CHECK(punts[k * each + control.size()].frame == no_route6);
            }
            rig.check_pools_full();
        }
    }
    SECTION("ND to another host's address is forwarded as any packet, its hop limit 254") {
        const IpAddress far = ip("2001:db8:20::1");
        const Bytes ns_far = frame(l2, 0x86dd, nd(135, 0, ip("2001:db8:1::2"), far, far, kHost));
        const Bytes na_far = frame(l2, 0x86dd, nd(136, 0x60, ip("2001:db8:1::2"), far, far, kHost));
        // Alone (the plain pass), and behind a frame the slow path takes.
        const BurstOutcome o = rig.route({ns_far, na_far, arp_req, ns_far, na_far});
        CHECK(o.tx_pkts == 4);
        CHECK(o.punted == 1);
        CHECK(total_drops(o) == 0);
        const Bytes ns_out = routed(ns_far, kNbB6, kMacB), na_out = routed(na_far, kNbB6, kMacB);
        CHECK(ns_out[14 + 7] == 254);
        check_frames(rig.out(kB), {ns_out, na_out, ns_out, na_out});
        const auto punts = rig.punts();
        REQUIRE(punts.size() == 1);
        CHECK(punts[0].frame == arp_req);
        rig.check_pools_full();
    }
    SECTION("ND to our address between plain packets is punted as ND") {
        // The plain pass stops at it (its route is ours); the rest of the
        // chunk, all plain, takes forward_plain, which hands it to to_us.
        const BurstOutcome o = rig.route({good6, ns_to_us, good6, good});
        CHECK(o.tx_pkts == 3);
        CHECK(rig.out(kB).size() == 3);
        CHECK(o.punted == 1);
        CHECK(total_drops(o) == 0);
        const auto punts = rig.punts();
        REQUIRE(punts.size() == 1);
        CHECK(punts[0].why == PuntReason::neighbour);
        CHECK(punts[0].frame == ns_to_us);
        rig.check_pools_full();
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
