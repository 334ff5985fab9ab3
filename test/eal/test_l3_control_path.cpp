// What the control path makes of the packets punted to it: ARP requests,
// neighbour solicitations and pings to the router answered, UDP to it
// refused, packets to an unknown neighbour held until ARP or ND resolves
// it; and a claim from off the port's subnets moves no route.
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

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
    SECTION("an ARP packet of an operation neither request nor reply is counted by why") {
        rig.route(
            {arp({kBroadcast, kHost, {}}, 3, kHost, ip4("10.1.0.2"), MacAddr{}, ip4("10.1.0.1"))});
        rig.poll();
        CHECK(rig.control_out(kA).empty());
        const RouterCounters c = rig.router->counters();
        CHECK(c.arp_ignored == 1);
        CHECK(c.arp_rejected.by_reason[size_t(ArpReject::bad_op) - 1] == 1);
        uint64_t rejected = 0;
        for (const uint64_t n : c.arp_rejected.by_reason) rejected += n;
        CHECK(rejected == 1);
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
        // Not an echo request: counted by why it got no echo reply.
        CHECK(rig.router->counters()
                  .echo_rejected.by_reason[size_t(EchoReject::not_echo_request) - 1] == 1);
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
