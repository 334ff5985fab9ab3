// IPv6 neighbour discovery for router mode's control path: solicitations
// and advertisements built, held to bytes scapy made and to an independent
// checksum, read back, and every RFC 4861 7.1 check failed once.
#include <catch2/catch.hpp>
#include <set>
#include <span>
#include <string>

#include "l3_header.hpp"
#include "nd_packet.hpp"
#include "packet_bytes.hpp"
#include "router_api.hpp"

using namespace pmdfwd;
using namespace packet_bytes;

namespace {

// scapy 2.5.0 (Debian's /usr/bin/python3):
//   Ether(dst='33:33:ff:00:00:02', src='02:00:00:00:00:01')/IPv6(src='fe80::1',
//   dst='ff02::1:ff00:2', hlim=255)/ICMPv6ND_NS(tgt='2001:db8::2')
//   /ICMPv6NDOptSrcLLAddr(lladdr='02:00:00:00:00:01')
const Bytes kScapyNs = {
    0x33, 0x33, 0xff, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd, 0x60,
    0x00, 0x00, 0x00, 0x00, 0x20, 0x3a, 0xff, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0xff, 0x00, 0x00, 0x02, 0x87, 0x00, 0x4b, 0x5f, 0x00, 0x00,
    0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x02, 0x01, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
};

// scapy 2.5.0: the answer to an NS for 2001:db8::1 from 2001:db8::2 at
// 02:00:00:00:00:02:
//   Ether(dst='02:00:00:00:00:02', src='02:00:00:00:00:01')/IPv6(src='2001:db8::1',
//   dst='2001:db8::2', hlim=255)/ICMPv6ND_NA(tgt='2001:db8::1', R=1, S=1, O=1)
//   /ICMPv6NDOptDstLLAddr(lladdr='02:00:00:00:00:01')
const Bytes kScapyNa = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd, 0x60,
    0x00, 0x00, 0x00, 0x00, 0x20, 0x3a, 0xff, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x88, 0x00, 0x0a, 0x73, 0xe0, 0x00,
    0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x02, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
};

Bytes built_ns(const EtherPort& port, const IpAddress& src, const IpAddress& target,
               std::optional<MacAddr> unicast = std::nullopt) {
    Bytes out(200, 0xaa);
    const size_t len = build_neighbor_solicitation(out, port, src, target, unicast);
    REQUIRE(len > 0);
    out.resize(len);
    return out;
}

// What a control path does: classify, then read from l3_offset.
NdParse parse_frame(const Bytes& frame) {
    const L3Header h = parse_l3_header(frame, uint32_t(frame.size()), false);
    REQUIRE(h.verdict == L3Verdict::control);
    return parse_nd(std::span<const uint8_t>(frame).subspan(h.l3_offset));
}

NdMessage parsed_ok(const Bytes& frame) {
    const NdParse p = parse_frame(frame);
    INFO(nd_reject_name(p.reject));
    REQUIRE(p.reject == NdReject::none);
    return p.message;
}

// An NS or NA message, checksum stored, in an IPv6 packet.
struct NdCase {
    IpAddress src = ip("2001:db8::2"), dst = ip("ff02::1:ff00:1");
    uint8_t type = 135, code = 0, flags = 0, hop_limit = 255;
    IpAddress target = ip("2001:db8::1");
    Bytes options = {1, 1, 2, 0, 0, 0, 0, 2};  // SLLA 02:00:00:00:00:02

    Bytes message() const {
        Bytes m(24, 0);
        m[0] = type;
        m[1] = code;
        m[4] = flags;
        std::copy(target.bytes.begin(), target.bytes.end(), m.begin() + 8);
        return concat(m, options);
    }
    Bytes packet() const { return ipv6(src, dst, 58, icmpv6(src, dst, message()), hop_limit); }
    std::string reason() const { return std::string(nd_reject_name(parse_nd(packet()).reject)); }
};

NdCase na_case() {
    NdCase c;
    c.type = 136;
    c.src = ip("2001:db8::1");
    c.dst = ip("2001:db8::2");
    c.flags = 0xe0;
    c.options = {2, 1, 2, 0, 0, 0, 0, 1};
    return c;
}

// The stored ICMPv6 checksum against a recompute over the pseudo-header.
void check_checksum(const Bytes& frame, size_t l3) {
    const Bytes ip = slice(frame, l3, frame.size() - l3);
    const size_t len = be16(ip, 4);
    Bytes message = slice(ip, 40, len);
    const uint16_t stored = be16(message, 2);
    put16(message, 2, 0);
    IpAddress src, dst;
    src.family = dst.family = IpFamily::v6;
    std::copy(ip.begin() + 8, ip.begin() + 24, src.bytes.begin());
    std::copy(ip.begin() + 24, ip.begin() + 40, dst.bytes.begin());
    CHECK(stored == reference_checksum(concat(v6_pseudo_header(src, dst, len), message)));
}

}  // namespace

TEST_CASE("nd: solicited-node groups and their MACs", "[l3][l3-control][nd]") {
    CHECK(solicited_node_multicast(ip("2001:db8::1234:5678")) == ip("ff02::1:ff34:5678"));
    CHECK(solicited_node_multicast(ip("fe80::aabb:ccdd:eeff:102")) == ip("ff02::1:ffff:102"));
    CHECK(solicited_node_multicast(ip("::")) == ip("ff02::1:ff00:0"));
    CHECK(ipv6_multicast_mac(ip("ff02::1:ff34:5678")) == mac("33:33:ff:34:56:78"));
    CHECK(ipv6_multicast_mac(ip("ff02::1")) == mac("33:33:00:00:00:01"));
}

TEST_CASE("nd: an NS is byte for byte what scapy makes", "[l3][l3-control][nd]") {
    const Bytes ns = built_ns({kRouterMac, std::nullopt}, ip("fe80::1"), ip("2001:db8::2"));
    CHECK(hex(ns) == hex(kScapyNs));
    CHECK(ns.size() == nd_frame_len({kRouterMac, std::nullopt}));
    check_checksum(ns, 14);
}

TEST_CASE("nd: scapy's NS reads back, and is answered as scapy answers it",
          "[l3][l3-control][nd]") {
    const NdMessage ns = parsed_ok(kScapyNs);
    CHECK(ns.type == NdType::solicitation);
    CHECK(ns.src == ip("fe80::1"));
    CHECK(ns.dst == ip("ff02::1:ff00:2"));
    CHECK(ns.target == ip("2001:db8::2"));
    REQUIRE(ns.link_layer);
    CHECK(*ns.link_layer == kRouterMac);
    CHECK(!ns.router_flag);

    // The NS scapy's NA answers: 2001:db8::2 asks for 2001:db8::1.
    NdCase c;
    c.dst = solicited_node_multicast(c.target);
    const NdParse asked = parse_nd(c.packet());
    REQUIRE(asked.reject == NdReject::none);
    Bytes out(100, 0xaa);
    const size_t len = build_neighbor_advertisement(out, {kRouterMac, std::nullopt}, asked.message,
                                                    mac("02:00:00:00:00:99"));
    REQUIRE(len == kScapyNa.size());
    out.resize(len);
    CHECK(hex(out) == hex(kScapyNa));
    check_checksum(out, 14);
}

TEST_CASE("nd: NS and NA round trips, tagged and untagged", "[l3][l3-control][nd]") {
    for (const std::optional<uint16_t> tci :
         {std::optional<uint16_t>(), std::optional<uint16_t>(7), std::optional<uint16_t>(0x2fff)}) {
        CAPTURE(tci.value_or(0xffff));
        const size_t l3 = tci ? 18 : 14;
        const EtherPort host{kHostMac, tci}, router{kRouterMac, tci};
        const Bytes ns_frame = built_ns(host, ip("fe80::2"), ip("fe80::1"));
        CHECK(ns_frame.size() == l3 + 72);
        if (tci) CHECK(be16(ns_frame, 14) == *tci);
        CHECK(slice(ns_frame, 0, 6) == Bytes{0x33, 0x33, 0xff, 0, 0, 1});
        check_checksum(ns_frame, l3);
        const NdMessage ns = parsed_ok(ns_frame);
        CHECK(ns.src == ip("fe80::2"));
        CHECK(ns.dst == ip("ff02::1:ff00:1"));
        CHECK(ns.target == ip("fe80::1"));
        CHECK(ns.link_layer == kHostMac);

        Bytes na_frame(nd_frame_len(router));
        REQUIRE(build_neighbor_advertisement(na_frame, router, ns, mac("02:00:00:00:00:99")) ==
                na_frame.size());
        CHECK(slice(na_frame, 0, 6) == slice(ns_frame, 6, 6));  // to the soliciting host
        check_checksum(na_frame, l3);
        const NdMessage na = parsed_ok(na_frame);
        CHECK(na.type == NdType::advertisement);
        CHECK(na.src == ip("fe80::1"));
        CHECK(na.dst == ip("fe80::2"));
        CHECK(na.target == ip("fe80::1"));
        CHECK(na.link_layer == kRouterMac);
        CHECK(na.router_flag);
        CHECK(na.solicited_flag);
        CHECK(na.override_flag);
        CHECK(na_frame[l3 + 7] == 255);  // hop limit
    }
}

TEST_CASE("nd: a duplicate address probe carries no SLLA and is answered to all nodes",
          "[l3][l3-control][nd]") {
    const Bytes probe = built_ns({kHostMac, std::nullopt}, ip("::"), ip("2001:db8::1"));
    CHECK(probe.size() == 14 + 40 + 24);
    check_checksum(probe, 14);
    const NdMessage ns = parsed_ok(probe);
    CHECK(ns.src == ip("::"));
    CHECK(!ns.link_layer);

    Bytes out(100, 0xaa);
    const size_t len = build_neighbor_advertisement(out, {kRouterMac, std::nullopt}, ns, kHostMac);
    REQUIRE(len == 86);
    out.resize(len);
    CHECK(slice(out, 0, 6) == Bytes{0x33, 0x33, 0, 0, 0, 1});
    check_checksum(out, 14);
    const NdMessage na = parsed_ok(out);
    CHECK(na.dst == ip("ff02::1"));
    CHECK(na.src == ip("2001:db8::1"));
    CHECK(na.router_flag);
    CHECK(!na.solicited_flag);  // 7.2.4: it answers no one in particular
    CHECK(na.override_flag);
}

TEST_CASE(
    "nd: a unicast NS probes the neighbour itself; an NS without SLLA is answered to "
    "the frame's source",
    "[l3][l3-control][nd]") {
    const Bytes probe =
        built_ns({kRouterMac, std::nullopt}, ip("fe80::1"), ip("fe80::2"), kHostMac);
    CHECK(slice(probe, 0, 6) == Bytes{2, 0, 0, 0, 0, 2});
    const NdMessage ns = parsed_ok(probe);
    CHECK(ns.dst == ip("fe80::2"));
    CHECK(ns.link_layer == kRouterMac);

    NdCase c;
    c.dst = c.target;  // unicast, as a reachability probe is
    c.options = {};
    const NdParse bare = parse_nd(c.packet());
    REQUIRE(bare.reject == NdReject::none);
    CHECK(!bare.message.link_layer);
    Bytes out(86);
    REQUIRE(build_neighbor_advertisement(out, {kRouterMac, std::nullopt}, bare.message,
                                         mac("02:00:00:00:00:77")) == 86);
    CHECK(slice(out, 0, 6) == Bytes{2, 0, 0, 0, 0, 0x77});
}

TEST_CASE("nd: options are walked: unknown ones skipped, the first link-layer one taken",
          "[l3][l3-control][nd]") {
    NdCase c;
    c.options = {14, 1, 1, 2, 3, 4, 5, 6,   // nonce (RFC 3971), skipped
                 2,  1, 9, 9, 9, 9, 9, 9,   // TLLA in an NS: not the one wanted
                 1,  1, 2, 0, 0, 0, 0, 3,   // SLLA
                 1,  1, 2, 0, 0, 0, 0, 4};  // a second SLLA: the first holds
    const NdParse p = parse_nd(c.packet());
    REQUIRE(p.reject == NdReject::none);
    CHECK(p.message.link_layer == mac("02:00:00:00:00:03"));

    NdCase a = na_case();
    a.options = {1, 1, 9, 9, 9, 9, 9, 9, 2, 1, 2, 0, 0, 0, 0, 5};
    const NdParse na = parse_nd(a.packet());
    REQUIRE(na.reject == NdReject::none);
    CHECK(na.message.link_layer == mac("02:00:00:00:00:05"));

    a.options = {};
    CHECK(a.reason() == std::string("none"));
    a.flags = 0;  // an NA with no flag at all is valid
    const NdParse plain = parse_nd(a.packet());
    REQUIRE(plain.reject == NdReject::none);
    CHECK(!plain.message.router_flag);
    CHECK(!plain.message.solicited_flag);
    CHECK(!plain.message.override_flag);
}

TEST_CASE("nd: each RFC 4861 7.1 check has its reason", "[l3][l3-control][nd]") {
    CHECK(NdCase().reason() == std::string("none"));
    CHECK(na_case().reason() == std::string("none"));
    SECTION("not IPv6") {
        Bytes p = NdCase().packet();
        p[0] = 0x40;
        CHECK(nd_reject_name(parse_nd(p).reject) == std::string("not_ipv6"));
    }
    SECTION("not ND") {
        NdCase c;
        for (const uint8_t type : {1, 128, 129, 133, 134, 137}) {
            c.type = type;
            CHECK(c.reason() == std::string("not_nd"));
        }
        const Bytes udp = ipv6(c.src, c.dst, 17, NdCase().message(), 255);
        CHECK(nd_reject_name(parse_nd(udp).reject) == std::string("not_nd"));
        const Bytes empty = ipv6(c.src, c.dst, 58, {}, 255);
        CHECK(nd_reject_name(parse_nd(empty).reject) == std::string("not_nd"));
        // Behind a hop-by-hop header it is not looked for.
        const Bytes hop_by_hop = concat({58, 0, 1, 4, 0, 0, 0, 0}, NdCase().message());
        CHECK(nd_reject_name(parse_nd(ipv6(c.src, c.dst, 0, hop_by_hop, 255)).reject) ==
              std::string("not_nd"));
    }
    SECTION("hop limit") {
        for (const uint8_t hop : {0, 1, 64, 254}) {
            NdCase c;
            c.hop_limit = hop;
            CHECK(c.reason() == std::string("bad_hop_limit"));
            NdCase a = na_case();
            a.hop_limit = hop;
            CHECK(a.reason() == std::string("bad_hop_limit"));
        }
    }
    SECTION("code") {
        NdCase c;
        c.code = 1;
        CHECK(c.reason() == std::string("bad_code"));
        c.code = 255;
        CHECK(c.reason() == std::string("bad_code"));
    }
    SECTION("length") {
        NdCase c;
        c.options = {};
        const Bytes m = c.message();
        for (const size_t len : {1u, 4u, 8u, 23u}) {
            CAPTURE(len);
            const Bytes p = ipv6(c.src, c.dst, 58, slice(m, 0, len), 255);
            CHECK(nd_reject_name(parse_nd(p).reject) == std::string("bad_length"));
        }
    }
    SECTION("checksum") {
        for (const size_t at : {8u, 23u, 24u, 39u, 42u, 43u, 63u, 71u}) {
            CAPTURE(at);
            Bytes p = NdCase().packet();
            p[at] ^= 0x01;  // an address, the checksum, the target, the option's MAC
            CHECK(nd_reject_name(parse_nd(p).reject) == std::string("bad_checksum"));
        }
    }
    SECTION("multicast target") {
        NdCase c;
        c.target = ip("ff02::1");
        CHECK(c.reason() == std::string("multicast_target"));
        NdCase a = na_case();
        a.target = ip("ff05::2");
        CHECK(a.reason() == std::string("multicast_target"));
    }
    SECTION("options") {
        NdCase c;
        c.options = {1, 0, 2, 0, 0, 0, 0, 2};  // length 0
        CHECK(c.reason() == std::string("bad_option"));
        c.options = {14, 0, 0, 0, 0, 0, 0, 0};  // length 0, an option not looked at
        CHECK(c.reason() == std::string("bad_option"));
        c.options = {1, 2, 2, 0, 0, 0, 0, 2};  // 16 bytes claimed, 8 there
        CHECK(c.reason() == std::string("bad_option"));
        c.options = {1, 2, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0};  // not Ethernet's
        CHECK(c.reason() == std::string("bad_option"));
        c.options = {1};  // a lone byte
        CHECK(c.reason() == std::string("bad_option"));
        NdCase a = na_case();
        a.options = {2, 0, 2, 0, 0, 0, 0, 1};
        CHECK(a.reason() == std::string("bad_option"));
    }
    SECTION("duplicate address probes") {
        NdCase c;
        c.src = ip("::");
        c.options = {};
        CHECK(c.reason() == std::string("none"));
        c.options = {1, 1, 2, 0, 0, 0, 0, 2};
        CHECK(c.reason() == std::string("bad_dad_solicitation"));
        c.options = {};
        c.dst = ip("2001:db8::1");
        CHECK(c.reason() == std::string("bad_dad_solicitation"));
        c.dst = ip("ff02::1");
        CHECK(c.reason() == std::string("bad_dad_solicitation"));
    }
    SECTION("solicited advertisement to a group") {
        NdCase a = na_case();
        a.dst = ip("ff02::1");
        CHECK(a.reason() == std::string("solicited_to_multicast"));
        a.flags = 0xa0;  // R and O: unsolicited, fine to all nodes
        CHECK(a.reason() == std::string("none"));
    }
}

TEST_CASE("nd: a packet cut at every byte is truncated, padding is not", "[l3][l3-control][nd]") {
    for (const Bytes& whole : {NdCase().packet(), na_case().packet(), slice(kScapyNs, 14, 72)}) {
        for (size_t n = 0; n < whole.size(); ++n) {
            CAPTURE(whole.size(), n);
            const Bytes cut(whole.begin(),
                            whole.begin() + long(n));  // exactly n: ASan sees past it
            CHECK(nd_reject_name(parse_nd(cut).reject) == std::string("truncated"));
        }
        CHECK(nd_reject_name(parse_nd(concat(whole, Bytes(10, 0xee))).reject) ==
              std::string("none"));
    }
}

TEST_CASE("nd: a buffer too short or an IPv4 address gets nothing written",
          "[l3][l3-control][nd]") {
    const EtherPort port{kRouterMac, uint16_t(5)};
    const NdMessage ns = parsed_ok(kScapyNs);
    for (size_t n = 0; n < nd_frame_len(port); ++n) {
        CAPTURE(n);
        Bytes out(n, 0xaa);
        CHECK(build_neighbor_solicitation(out, port, ip("fe80::1"), ip("fe80::2")) == 0);
        CHECK(build_neighbor_advertisement(out, port, ns, kHostMac) == 0);
        CHECK(out == Bytes(n, 0xaa));
    }
    Bytes out(nd_frame_len(port), 0xaa);
    CHECK(build_neighbor_solicitation(out, port, ip("10.0.0.1"), ip("fe80::2")) == 0);
    CHECK(build_neighbor_solicitation(out, port, ip("fe80::1"), ip("10.0.0.2")) == 0);
    NdMessage na = ns;
    na.type = NdType::advertisement;
    CHECK(build_neighbor_advertisement(out, port, na, kHostMac) == 0);
    CHECK(out == Bytes(out.size(), 0xaa));
    CHECK(build_neighbor_solicitation(out, port, ip("fe80::1"), ip("fe80::2")) == out.size());
    // The probe is 8 bytes shorter and fits a buffer 8 bytes shorter.
    Bytes probe(nd_frame_len(port) - 8);
    CHECK(build_neighbor_solicitation(probe, port, ip("::"), ip("fe80::2")) == probe.size());
}

TEST_CASE("nd: every reason has a name of its own and is a counter of the router's",
          "[l3][l3-control][nd]") {
    std::set<std::string> names;
    for (size_t i = 0; i < kNdRejectCount; ++i)
        names.insert(std::string(nd_reject_name(NdReject(i))));
    CHECK(names.size() == kNdRejectCount);
    CHECK(nd_reject_name(NdReject::count) == "?");
    for (size_t i = 1; i < kNdRejectCount; ++i) {
        const std::string key = "nd_rejected_" + std::string(nd_reject_name(NdReject(i)));
        INFO(key);
        const Field* f = kRouterRecord.find(key);
        REQUIRE(f != nullptr);
        CHECK(f->help.size() > 10);
    }
}
