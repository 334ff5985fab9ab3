// Router mode's ICMP errors: TTL and hop limit 0 and 1 expire with a time
// exceeded punt (but packets to the router are its own), the error the
// control path sends from the ingress port's address, and none at all with
// icmp_rate_limit 0.
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

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
