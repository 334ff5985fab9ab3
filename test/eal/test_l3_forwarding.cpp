// What router mode's workers route (forward_burst<l3> on the router rig):
// IPv4 with TTL - 1 and a checksum summed again, IPv6 with hop limit - 1,
// the next hop's MACs, in bursts that cross route_burst's chunks; one odd
// packet in a chunk of plain ones (IPv4, IPv6, both); fragments, options
// and a VLAN tag.
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

// Routes `in`, whose packet `at` is the odd one (odd 0: to port c, 1: to
// us, 2: oversize) while the others leave on port b as to_b; checks where
// each went and what was counted.
void route_odd_one(RouterRig& rig, const std::vector<Bytes>& in, size_t at, int odd,
                   const std::vector<Bytes>& to_b) {
    const size_t n = in.size();
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
                    route_odd_one(rig, in, at, odd, to_b);
                }
            }
}

TEST_CASE("l3: chunks of plain IPv6, and of both families, with one odd packet", "[l3]") {
    // A chunk of plain IPv6, or of IPv4 and IPv6 in turn, takes the plain
    // pass of its families; one packet it cannot send with the rest, first,
    // in the middle or last: to us, oversize, or (IPv4) to port c.
    const auto v6_frame = [](size_t i, const char* dst_text, size_t payload) {
        IpAddress dst = ip(dst_text);
        if (dst.bytes[15] == 0) dst.bytes[15] = uint8_t(i + 1);
        return frame(
            {kMacA, kHost, {}}, 0x86dd,
            ipv6_udp({ip("2001:db8:1::2"), dst, uint8_t(2 + i % 200), payload, uint32_t(i)}));
    };
    for (const bool both : {false, true})
        for (const size_t at : {size_t(0), size_t(17), size_t(31)})
            for (const int odd : {0, 1, 2}) {
                if (odd == 0 && !both) continue;  // no IPv6 route to port c
                DYNAMIC_SECTION((both ? "IPv4 and IPv6" : "IPv6")
                                << ", packet " << at << ", odd one "
                                << (odd == 0   ? "to port c"
                                    : odd == 1 ? "to us"
                                               : "oversize")) {
                    RouterRig rig([](Config& c) { c.ports[1].mtu = 1400; });
                    constexpr size_t n = 32;
                    std::vector<Bytes> in;
                    std::vector<bool> v6;
                    const auto v4_in = v4_frames(n, "10.20.0.0");
                    for (size_t i = 0; i < n; ++i) {
                        v6.push_back(!both || i % 2 == 1);
                        in.push_back(v6[i] ? v6_frame(i, "2001:db8:20::", 18 + i * 41 % 300)
                                           : v4_in[i]);
                    }
                    if (odd == 0) {
                        v6[at] = false;
                        in[at] = frame(
                            {kMacA, kHost, {}}, 0x0800,
                            ipv4_udp({ip4("10.1.0.2"), ip4("10.20.30.9"), 64, 0, 0, 7, 18, 99}));
                    } else if (odd == 1) {
                        in[at] = v6_frame(at, "2001:db8:1::1", 18);
                    } else {
                        in[at] = v6_frame(at, "2001:db8:20::", 1400 - 48 + 1);
                    }
                    std::vector<Bytes> to_b;
                    for (size_t i = 0; i < n; ++i)
                        if (i != at) to_b.push_back(routed(in[i], v6[i] ? kNbB6 : kNbB, kMacB));
                    route_odd_one(rig, in, at, odd, to_b);
                }
            }
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
