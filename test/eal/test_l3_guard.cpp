// What router mode refuses to route: frames not addressed to the port's
// MAC, martian sources and destinations, directed broadcasts, malformed
// IPv4 options (with their parameter problem), and how every ICMP error
// not sent is counted; the ICMP rate limit per port and family. Each case
// in bursts of 1, 32 and 33 among plain routed packets.
#include <optional>

#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

namespace {

const MacAddr kMulticastV4 = mac("01:00:5e:01:02:03");

// One frame and what a worker of port a must make of it.
struct GuardCase {
    const char* name;
    Bytes frame;
    DropReason drop = DropReason::count;  // count: not dropped
    std::optional<PuntReason> punt;
};

Bytes v4_from(const char* src, const char* dst, const MacAddr& to = kMacA, uint8_t ttl = 64) {
    return frame({to, kHost, {}}, 0x0800, ipv4_udp({ip4(src), ip4(dst), ttl, 0, 0, 1, 18, 5}));
}

Bytes v6_from(const char* src, const char* dst, const MacAddr& to = kMacA) {
    return frame({to, kHost, {}}, 0x86dd, ipv6_udp({ip(src), ip(dst), 64, 18, 6}));
}

// An IPv4 packet with four bytes of options, as given.
Bytes v4_options(std::initializer_list<uint8_t> options, uint8_t ttl = 64) {
    V4 p{ip4("10.1.0.2"), ip4("10.20.1.1"), ttl, 4, 0, 1, 18, 7};
    Bytes ip = ipv4_udp(p);
    size_t at = 20;
    for (const uint8_t b : options) ip[at++] = b;
    store_v4_checksum(ip);
    return frame({kMacA, kHost, {}}, 0x0800, ip);
}

std::vector<GuardCase> guard_cases() {
    const IpAddress a6 = ip("2001:db8:1::1");
    const MacAddr gw = mac("02:00:00:00:0a:fe");
    const auto drop = [](const char* name, Bytes f, DropReason why) {
        return GuardCase{name, std::move(f), why, std::nullopt};
    };
    return {
        drop("IPv4 to the broadcast MAC", v4_from("10.1.0.2", "10.20.1.1", kBroadcast),
             DropReason::not_our_mac),
        drop("IPv4 to a multicast MAC", v4_from("10.1.0.2", "10.20.1.1", kMulticastV4),
             DropReason::not_our_mac),
        drop("IPv4 to another host's MAC", v4_from("10.1.0.2", "10.20.1.1", gw),
             DropReason::not_our_mac),
        drop("IPv4 TTL 1 to another host's MAC", v4_from("10.1.0.2", "10.20.1.1", gw, 1),
             DropReason::not_our_mac),
        drop("IPv6 to another host's MAC", v6_from("2001:db8:1::2", "2001:db8:20::5", gw),
             DropReason::not_our_mac),
        drop("ARP to another host's MAC",
             arp({gw, kHost, {}}, 2, kHost, ip4("10.1.0.2"), gw, ip4("10.1.0.254")),
             DropReason::not_our_mac),
        {"ARP request to the broadcast MAC",
         arp({kBroadcast, kHost, {}}, 1, kHost, ip4("10.1.0.2"), MacAddr{}, ip4("10.1.0.1")),
         DropReason::count, PuntReason::neighbour},
        {"NS to its solicited-node MAC",
         frame({multicast_mac(solicited_node(a6)), kHost, {}}, 0x86dd,
               nd(135, 0, ip("2001:db8:1::2"), solicited_node(a6), a6, kHost)),
         DropReason::count, PuntReason::neighbour},
        drop("from 127.0.0.1", v4_from("127.0.0.1", "10.20.1.1"), DropReason::bad_source),
        drop("from 0.0.0.0", v4_from("0.0.0.0", "10.20.1.1"), DropReason::bad_source),
        drop("from multicast", v4_from("224.0.0.5", "10.20.1.1"), DropReason::bad_source),
        drop("from 255.255.255.255", v4_from("255.255.255.255", "10.20.1.1"),
             DropReason::bad_source),
        drop("from class E", v4_from("240.0.0.1", "10.20.1.1"), DropReason::bad_source),
        drop("from our address on a", v4_from("10.1.0.1", "10.20.1.1"), DropReason::bad_source),
        drop("from our address on c", v4_from("10.3.0.1", "10.20.1.1"), DropReason::bad_source),
        drop("from b's broadcast address", v4_from("10.2.0.255", "10.20.1.1"),
             DropReason::bad_source),
        drop("from a's network address, TTL 1", v4_from("10.1.0.0", "10.20.1.1", kMacA, 1),
             DropReason::bad_source),
        drop("from ::1", v6_from("::1", "2001:db8:20::5"), DropReason::bad_source),
        drop("from ::", v6_from("::", "2001:db8:20::5"), DropReason::bad_source),
        drop("from ff02::1", v6_from("ff02::1", "2001:db8:20::5"), DropReason::bad_source),
        drop("from IPv4-mapped", v6_from("::ffff:10.1.0.2", "2001:db8:20::5"),
             DropReason::bad_source),
        drop("from our IPv6 address", v6_from("2001:db8:2::1", "2001:db8:20::5"),
             DropReason::bad_source),
        drop("from link-local, leaving its link", v6_from("fe80::2", "2001:db8:20::5"),
             DropReason::bad_source),
        {"from link-local, to us", v6_from("fe80::2", "2001:db8:1::1"), DropReason::count,
         PuntReason::local},
        drop("to 255.255.255.255", v4_from("10.1.0.2", "255.255.255.255"),
             DropReason::bad_destination),
        drop("to multicast", v4_from("10.1.0.2", "224.1.2.3"), DropReason::bad_destination),
        drop("to 127.0.0.1", v4_from("10.1.0.2", "127.0.0.1"), DropReason::bad_destination),
        drop("to 0/8", v4_from("10.1.0.2", "0.1.2.3"), DropReason::bad_destination),
        drop("to class E", v4_from("10.1.0.2", "240.1.1.1"), DropReason::bad_destination),
        drop("to b's broadcast (directed broadcast)", v4_from("10.1.0.2", "10.2.0.255"),
             DropReason::bad_destination),
        drop("to b's network address", v4_from("10.1.0.2", "10.2.0.0"),
             DropReason::bad_destination),
        drop("to a's own broadcast, TTL 1", v4_from("10.1.0.2", "10.1.0.255", kMacA, 1),
             DropReason::bad_destination),
        drop("to IPv6 multicast", v6_from("2001:db8:1::2", "ff0e::1"), DropReason::bad_destination),
        drop("to IPv6 link-local", v6_from("2001:db8:1::2", "fe80::1"),
             DropReason::bad_destination),
        {"option of length 0", v4_options({7, 0, 0, 0}), DropReason::bad_option,
         PuntReason::parameter_problem},
        {"option past the header", v4_options({1, 7, 8, 4}), DropReason::bad_option,
         PuntReason::parameter_problem},
        {"option without its length", v4_options({1, 1, 1, 7}), DropReason::bad_option,
         PuntReason::parameter_problem},
        {"to our own address", v4_from("10.1.0.2", "10.2.0.1"), DropReason::count,
         PuntReason::local},
    };
}

}  // namespace

TEST_CASE("l3: frames not for the router, martians and bad options are dropped by name", "[l3]") {
    for (const GuardCase& gc : guard_cases())
        for (const size_t n : {size_t(1), size_t(32), size_t(33)}) {
            DYNAMIC_SECTION(gc.name << ", burst of " << n) {
                RouterRig rig;
                // The case among plain packets, which still leave on b.
                std::vector<Bytes> in = v4_frames(n - 1, "10.20.0.0");
                const size_t at = n / 2;
                in.insert(in.begin() + long(at), gc.frame);
                std::vector<Bytes> to_b;
                for (size_t i = 0; i < n; ++i)
                    if (i != at) to_b.push_back(routed(in[i], kNbB, kMacB));
                const BurstOutcome o = rig.route(in);
                check_frames(rig.out(kB), to_b);
                CHECK(rig.out(kA).empty());
                CHECK(rig.out(kC).empty());
                CHECK(o.tx_pkts == n - 1);
                const bool dropped = gc.drop != DropReason::count;
                CHECK(total_drops(o) == (dropped ? 1u : 0u));
                if (dropped) CHECK(o.drops[idx(gc.drop)] == 1);
                // A drop's ICMP error punt is no punt of the worker's count.
                CHECK(o.punted == (!dropped && gc.punt ? 1u : 0u));
                const auto punts = rig.punts();
                REQUIRE(punts.size() == (gc.punt ? 1u : 0u));
                if (gc.punt) {
                    CHECK(punts[0].why == *gc.punt);
                    CHECK(punts[0].frame == gc.frame);
                }
                CHECK(o.icmp_errors_gated == 0);
                CHECK(o.icmp_errors_punt_full == 0);
                rig.check_pools_full();
            }
        }
}

TEST_CASE("l3: a malformed IPv4 option earns a parameter problem pointing at it", "[l3]") {
    RouterRig rig;
    const Bytes in = v4_options({7, 0, 0, 0});
    rig.route({in});
    rig.poll();
    const auto out = rig.control_out(kA);
    REQUIRE(out.size() == 1);
    const Bytes& e = out[0];
    CHECK(packet_bytes::be16(e, 12) == 0x0800);
    CHECK(e[14 + 9] == 1);  // ICMP
    CHECK(e[34] == 12);     // parameter problem
    CHECK(e[35] == 0);
    CHECK(e[38] == 21);  // the option's length octet, counted from the IP header
    // The quote starts with the invoking header, options and all.
    CHECK(hex(packet_bytes::slice(e, 42, 24)) == hex(packet_bytes::slice(in, 14, 24)));
    const RouterCounters c = rig.router->counters();
    CHECK(c.icmp_errors_sent == 1);
    CHECK(c.punts_parameter_problem == 1);
    rig.check_pools_full();
}

TEST_CASE("l3: the ICMP rate limit is per port and per family", "[l3]") {
    // One error a second, two at once: each port and family has its own.
    RouterRig rig(
        [](Config& c) {
            c.l3.icmp_rate_limit = 1;
            c.l3.icmp_rate_burst = 2;
        },
        2, {kA, kC});
    std::vector<Bytes> from_a;
    for (uint32_t i = 0; i < 5; ++i) from_a.push_back(v4_from("10.1.0.2", "10.20.1.1", kMacA, 1));
    for (uint32_t i = 0; i < 3; ++i)
        from_a.push_back(frame({kMacA, kHost, {}}, 0x86dd,
                               ipv6_udp({ip("2001:db8:1::2"), ip("2001:db8:20::5"), 1, 18, i})));
    const BurstOutcome oa = rig.route(from_a, kA, 0);
    CHECK(oa.drops[idx(DropReason::ttl_expired)] == 8);
    // The worker's gate: two of each family pass, the rest are counted.
    CHECK(oa.icmp_errors_gated == 4);
    CHECK(rte_ring_count(rig.router->punt_ring(0)) == 4);
    std::vector<Bytes> from_c;
    for (uint32_t i = 0; i < 2; ++i)
        from_c.push_back(frame({kMacC, kNbC, {}}, 0x0800,
                               ipv4_udp({ip4("10.3.0.2"), ip4("10.20.1.1"), 1, 0, 0, 1, 18, i})));
    const BurstOutcome oc = rig.route(from_c, kC, 1);
    CHECK(oc.icmp_errors_gated == 0);
    rig.poll();
    CHECK(rig.control_out(kA).size() == 4);
    CHECK(rig.control_out(kC).size() == 2);
    const RouterCounters c = rig.router->counters();
    CHECK(c.icmp_errors_sent == 6);
    CHECK(c.icmp_errors_rate_limited == 0);
    rig.check_pools_full();
}

TEST_CASE("l3: an ICMP error the full punt ring does not take is counted", "[l3]") {
    for (const size_t n : {size_t(1), size_t(32), size_t(33)}) {
        DYNAMIC_SECTION("burst of " << n) {
            RouterRig rig([](Config& c) { c.l3.punt_ring = 16; });
            const unsigned room = rte_ring_get_capacity(rig.router->punt_ring(0));
            std::vector<Bytes> in;
            for (size_t i = 0; i < n; ++i) in.push_back(v4_from("10.1.0.2", "10.20.1.1", kMacA, 1));
            const BurstOutcome o = rig.route(in);
            const size_t queued = n < room ? n : room;
            CHECK(o.drops[idx(DropReason::ttl_expired)] == n);
            CHECK(total_drops(o) == n);
            CHECK(o.icmp_errors_punt_full == n - queued);
            CHECK(o.icmp_errors_gated == 0);
            CHECK(rig.punts().size() == queued);
            rig.check_pools_full();
        }
    }
}

TEST_CASE("l3: the control path answers nothing for a subnet's broadcast address", "[l3]") {
    // The workers drop such packets; a punt that reaches the control path
    // some other way gets no echo reply and no port unreachable either.
    RouterRig rig;
    Bytes echo = {8, 0, 0, 0, 0x12, 0x34, 0, 1};
    const Bytes ping = frame(
        {kMacA, kHost, {}}, 0x0800,
        packet_bytes::ipv4(ip4("10.1.0.2"), ip4("10.1.0.255"), 1, packet_bytes::icmp(echo), 64));
    const Bytes udp = v4_from("10.1.0.2", "10.1.0.0");
    for (const Bytes* f : {&ping, &udp}) {
        rte_mbuf* m = rig.mbuf(*f, kA);
        m->hash.usr = uint32_t(PuntReason::local);
        REQUIRE(rte_ring_enqueue(rig.router->punt_ring(0), m) == 0);
    }
    rig.poll();
    CHECK(rig.control_out(kA).empty());
    const RouterCounters c = rig.router->counters();
    CHECK(c.echo_replies == 0);
    CHECK(c.icmp_errors_sent == 0);
    CHECK(c.local_dropped == 2);
    rig.check_pools_full();
}
