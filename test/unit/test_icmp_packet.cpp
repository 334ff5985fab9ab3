// ICMP and ICMPv6 for router mode's control path: echo replies made in place
// and ICMP errors built, held to bytes scapy made and to independent
// checksums, with the RFC 1812 / RFC 4443 vetoes and size limits.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <span>
#include <string>

#include "icmp_packet.hpp"
#include "ip_checksum.hpp"
#include "l3_header.hpp"
#include "packet_bytes.hpp"
#include "router_api.hpp"

using namespace pmdfwd;
using namespace packet_bytes;

namespace {

// scapy 2.5.0 (Debian's /usr/bin/python3), data = b'pmdfwd echo test!!':
//   Ether(dst='02:00:00:00:00:01', src='02:00:00:00:00:02')/IP(src='198.51.100.7',
//   dst='192.0.2.1', ttl=63, id=0x1234)/ICMP(type=8, id=0x77, seq=1)/data
const Bytes kScapyEchoRequest = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x45,
    0x00, 0x00, 0x2e, 0x12, 0x34, 0x00, 0x00, 0x3f, 0x01, 0x7d, 0x5f, 0xc6, 0x33, 0x64, 0x07,
    0xc0, 0x00, 0x02, 0x01, 0x08, 0x00, 0xaf, 0x66, 0x00, 0x77, 0x00, 0x01, 0x70, 0x6d, 0x64,
    0x66, 0x77, 0x64, 0x20, 0x65, 0x63, 0x68, 0x6f, 0x20, 0x74, 0x65, 0x73, 0x74, 0x21, 0x21,
};

// scapy 2.5.0: Ether(dst='02:00:00:00:00:02', src='02:00:00:00:00:01')
//   /IP(src='192.0.2.1', dst='198.51.100.7', ttl=64, id=0x1234)
//   /ICMP(type=0, id=0x77, seq=1)/data
const Bytes kScapyEchoReply = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45,
    0x00, 0x00, 0x2e, 0x12, 0x34, 0x00, 0x00, 0x40, 0x01, 0x7c, 0x5f, 0xc0, 0x00, 0x02, 0x01,
    0xc6, 0x33, 0x64, 0x07, 0x00, 0x00, 0xb7, 0x66, 0x00, 0x77, 0x00, 0x01, 0x70, 0x6d, 0x64,
    0x66, 0x77, 0x64, 0x20, 0x65, 0x63, 0x68, 0x6f, 0x20, 0x74, 0x65, 0x73, 0x74, 0x21, 0x21,
};

// scapy 2.5.0: Ether(dst='02:00:00:00:00:01', src='02:00:00:00:00:02')
//   /IPv6(src='2001:db8::2', dst='2001:db8::1', hlim=60)
//   /ICMPv6EchoRequest(id=0x77, seq=1, data=data)
const Bytes kScapyEcho6Request = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x86, 0xdd, 0x60, 0x00,
    0x00, 0x00, 0x00, 0x1a, 0x3a, 0x3c, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0xdb, 0x9c, 0x00, 0x77, 0x00, 0x01, 0x70, 0x6d,
    0x64, 0x66, 0x77, 0x64, 0x20, 0x65, 0x63, 0x68, 0x6f, 0x20, 0x74, 0x65, 0x73, 0x74, 0x21, 0x21,
};

// scapy 2.5.0: Ether(dst='02:00:00:00:00:02', src='02:00:00:00:00:01')
//   /IPv6(src='2001:db8::1', dst='2001:db8::2', hlim=64)
//   /ICMPv6EchoReply(id=0x77, seq=1, data=data)
const Bytes kScapyEcho6Reply = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd, 0x60, 0x00,
    0x00, 0x00, 0x00, 0x1a, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x81, 0x00, 0xda, 0x9c, 0x00, 0x77, 0x00, 0x01, 0x70, 0x6d,
    0x64, 0x66, 0x77, 0x64, 0x20, 0x65, 0x63, 0x68, 0x6f, 0x20, 0x74, 0x65, 0x73, 0x74, 0x21, 0x21,
};

// scapy 2.5.0, a traceroute probe whose TTL runs out here:
//   inv = IP(src='198.51.100.7', dst='203.0.113.9', ttl=1, id=0x4321)
//         /UDP(sport=40000, dport=33434)/b'traceroute'
//   Ether(dst='02:00:00:00:00:01', src='02:00:00:00:00:02')/inv
const Bytes kScapyProbe = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08,
    0x00, 0x45, 0x00, 0x00, 0x26, 0x43, 0x21, 0x00, 0x00, 0x01, 0x11, 0x10, 0x62,
    0xc6, 0x33, 0x64, 0x07, 0xcb, 0x00, 0x71, 0x09, 0x9c, 0x40, 0x82, 0x9a, 0x00,
    0x12, 0x5b, 0x87, 0x74, 0x72, 0x61, 0x63, 0x65, 0x72, 0x6f, 0x75, 0x74, 0x65,
};

// scapy 2.5.0, its time exceeded:
//   Ether(dst='02:00:00:00:00:02', src='02:00:00:00:00:01')/IP(src='192.0.2.1',
//   dst='198.51.100.7', ttl=64, tos=0xc0, flags='DF', id=0)/ICMP(type=11, code=0)
//   /bytes(inv)
const Bytes kScapyTimeExceeded = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45, 0xc0,
    0x00, 0x42, 0x00, 0x00, 0x40, 0x00, 0x40, 0x01, 0x4d, 0xbf, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33,
    0x64, 0x07, 0x0b, 0x00, 0x5b, 0x68, 0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x26, 0x43, 0x21,
    0x00, 0x00, 0x01, 0x11, 0x10, 0x62, 0xc6, 0x33, 0x64, 0x07, 0xcb, 0x00, 0x71, 0x09, 0x9c, 0x40,
    0x82, 0x9a, 0x00, 0x12, 0x5b, 0x87, 0x74, 0x72, 0x61, 0x63, 0x65, 0x72, 0x6f, 0x75, 0x74, 0x65,
};

const EtherPort kPort{kRouterMac, std::nullopt};

Bytes data_of(size_t len) {
    Bytes d(len);
    for (size_t i = 0; i < len; ++i) d[i] = uint8_t(i * 7 + 3);
    return d;
}

Bytes echo4(const char* src = "198.51.100.7", const char* dst = "192.0.2.1", Bytes data = {},
            uint8_t ttl = 63, size_t option_len = 0, uint8_t type = 8) {
    const Bytes m = icmp(concat({type, 0, 0, 0, 0, 0x77, 0, 1}, data));
    return ether(kRouterMac, kHostMac, 0x0800, ipv4(ip4(src), ip4(dst), 1, m, ttl, option_len));
}

Bytes echo6(const char* src = "2001:db8::2", const char* dst = "2001:db8::1", Bytes data = {},
            uint8_t hop_limit = 60, uint8_t type = 128) {
    const IpAddress s = ip(src), d = ip(dst);
    const Bytes m = icmpv6(s, d, concat({type, 0, 0, 0, 0, 0x77, 0, 1}, data));
    return ether(kRouterMac, kHostMac, 0x86dd, ipv6(s, d, 58, m, hop_limit));
}

// A UDP datagram of payload_len bytes of data: what a router sends errors about.
Bytes udp4(const char* src = "198.51.100.7", const char* dst = "203.0.113.9",
           size_t payload_len = 10, uint8_t ttl = 1) {
    Bytes u = concat({0x9c, 0x40, 0x82, 0x9a, 0, 0, 0, 0}, data_of(payload_len));
    put16(u, 4, uint16_t(u.size()));
    return ether(kRouterMac, kHostMac, 0x0800, ipv4(ip4(src), ip4(dst), 17, u, ttl));
}

Bytes udp6(const char* src = "2001:db8::2", const char* dst = "2001:db8:1::9",
           size_t payload_len = 10, uint8_t next = 17, Bytes before = {}) {
    Bytes u = concat({0x9c, 0x40, 0x82, 0x9a, 0, 0, 0, 0}, data_of(payload_len));
    put16(u, 4, uint16_t(u.size()));
    return ether(kRouterMac, kHostMac, 0x86dd, ipv6(ip(src), ip(dst), next, concat(before, u), 1));
}

// The IPv4 header at l3 of frame with its checksum set again, after a test
// changed a field of it.
void restamp4(Bytes& frame, size_t l3 = 14) {
    const size_t header_len = size_t(frame[l3] & 15) * 4;
    put16(frame, l3 + 10, 0);
    put16(frame, l3 + 10, reference_checksum(slice(frame, l3, header_len)));
}

EchoReply reply_to(Bytes& frame, std::optional<EchoReplyMacs> macs = std::nullopt) {
    return make_echo_reply_in_place(frame, macs);
}

std::string echo_reason(Bytes frame) {
    const Bytes before = frame;
    const EchoReply r = reply_to(frame);
    if (r.reject != EchoReject::none) CHECK(frame == before);  // untouched
    return std::string(echo_reject_name(r.reject));
}

// Both checksums of a reply at l3 against sums done here.
void check_reply_checksums(const Bytes& frame, size_t l3) {
    if (be16(frame, l3 - 2) == 0x0800) {
        const size_t header_len = size_t(frame[l3] & 15) * 4;
        CHECK(reference_checksum(slice(frame, l3, header_len)) == 0);
        CHECK(reference_checksum(slice(frame, l3 + header_len, be16(frame, l3 + 2) - header_len)) ==
              0);
        return;
    }
    IpAddress src, dst;
    src.family = dst.family = IpFamily::v6;
    std::copy(frame.begin() + long(l3 + 8), frame.begin() + long(l3 + 24), src.bytes.begin());
    std::copy(frame.begin() + long(l3 + 24), frame.begin() + long(l3 + 40), dst.bytes.begin());
    const size_t len = be16(frame, l3 + 4);
    CHECK(reference_checksum(concat(v6_pseudo_header(src, dst, len), slice(frame, l3 + 40, len))) ==
          0);
}

Bytes build_error(IcmpError error, const Bytes& invoking, const IpAddress& router,
                  const EtherPort& port = kPort) {
    Bytes out(kIcmpErrorMaxFrameLen, 0xaa);
    const size_t len = build_icmp_error(out, error, invoking, router, port, kHostMac);
    out.resize(len);
    return out;
}

std::string veto(const Bytes& frame, bool to_subnet_broadcast = false) {
    return std::string(icmp_error_veto_name(may_send_icmp_error(frame, to_subnet_broadcast)));
}

}  // namespace

TEST_CASE("icmp echo: scapy's requests become scapy's replies", "[l3][l3-control][icmp]") {
    Bytes f = kScapyEchoRequest;
    EchoReply r = reply_to(f);
    REQUIRE(r.reject == EchoReject::none);
    CHECK(r.frame_len == kScapyEchoReply.size());
    CHECK(hex(f) == hex(kScapyEchoReply));

    Bytes f6 = kScapyEcho6Request;
    r = reply_to(f6);
    REQUIRE(r.reject == EchoReject::none);
    CHECK(r.frame_len == kScapyEcho6Reply.size());
    CHECK(hex(f6) == hex(kScapyEcho6Reply));
}

TEST_CASE("icmp echo: behind a tag, and with the MACs given", "[l3][l3-control][icmp]") {
    for (const uint16_t tci : {uint16_t(100), uint16_t(0xe00a)}) {
        CAPTURE(tci);
        Bytes f = tagged(kScapyEchoRequest, tci);
        EchoReply r = reply_to(f);
        REQUIRE(r.reject == EchoReject::none);
        CHECK(r.frame_len == 64);
        CHECK(hex(f) == hex(tagged(kScapyEchoReply, tci)));
        Bytes f6 = tagged(kScapyEcho6Request, tci);
        r = reply_to(f6);
        REQUIRE(r.reject == EchoReject::none);
        CHECK(hex(f6) == hex(tagged(kScapyEcho6Reply, tci)));
    }
    const EchoReplyMacs macs{mac("02:00:00:00:00:99"), mac("02:00:00:00:00:98")};
    for (const Bytes* request : {&kScapyEchoRequest, &kScapyEcho6Request}) {
        Bytes f = *request;
        REQUIRE(reply_to(f, macs).reject == EchoReject::none);
        CHECK(slice(f, 0, 6) == Bytes{2, 0, 0, 0, 0, 0x99});
        CHECK(slice(f, 6, 6) == Bytes{2, 0, 0, 0, 0, 0x98});
    }
}

TEST_CASE("icmp echo: checksums agree with a full recompute, for every data length",
          "[l3][l3-control][icmp]") {
    for (size_t len = 0; len <= 70; ++len) {
        CAPTURE(len);
        for (Bytes f : {echo4("198.51.100.7", "192.0.2.1", data_of(len)),
                        echo6("2001:db8::2", "2001:db8::1", data_of(len)),
                        tagged(echo6("fe80::2", "fe80::1", data_of(len)), 5)}) {
            const size_t l3 = f[12] == 0x81 ? 18 : 14;
            const EchoReply r = reply_to(f);
            REQUIRE(r.reject == EchoReject::none);
            check_reply_checksums(f, l3);
            CHECK(slice(f, r.frame_len - len, len) == data_of(len));  // data as it was
        }
    }
}

TEST_CASE("icmp echo: TTL and hop limit 1 to us are answered with 64", "[l3][l3-control][icmp]") {
    Bytes f = echo4("198.51.100.7", "192.0.2.1", {}, 1);
    REQUIRE(reply_to(f).reject == EchoReject::none);
    CHECK(f[14 + 8] == 64);
    Bytes f6 = echo6("2001:db8::2", "2001:db8::1", {}, 1);
    REQUIRE(reply_to(f6).reject == EchoReject::none);
    CHECK(f6[14 + 7] == 64);
}

TEST_CASE("icmp echo: IPv4 options are dropped from the reply", "[l3][l3-control][icmp]") {
    for (const size_t option_len : {4u, 8u, 40u}) {
        CAPTURE(option_len);
        Bytes f = echo4("198.51.100.7", "192.0.2.1", data_of(30), 63, option_len);
        const EchoReply r = reply_to(f);
        REQUIRE(r.reject == EchoReject::none);
        CHECK(r.frame_len == 14 + 20 + 8 + 30);
        f.resize(r.frame_len);
        const Bytes reply_message = icmp(concat({0, 0, 0, 0, 0, 0x77, 0, 1}, data_of(30)));
        const Bytes want = ether(kHostMac, kRouterMac, 0x0800,
                                 ipv4(ip4("192.0.2.1"), ip4("198.51.100.7"), 1, reply_message, 64));
        CHECK(hex(f) == hex(want));
    }
}

TEST_CASE("icmp echo: a short reply is padded where the frame had room", "[l3][l3-control][icmp]") {
    const Bytes bare = echo4();  // 42 bytes, no data
    Bytes padded = concat(bare, Bytes(18, 0xee));
    EchoReply r = reply_to(padded);
    REQUIRE(r.reject == EchoReject::none);
    CHECK(r.frame_len == 60);
    CHECK(slice(padded, 42, 18) == Bytes(18, 0));
    Bytes unpadded = bare;
    r = reply_to(unpadded);
    REQUIRE(r.reject == EchoReject::none);
    CHECK(r.frame_len == 42);
    // Options dropped from a 60-byte frame leave stale bytes: zeroed to 60.
    Bytes with_options = echo4("198.51.100.7", "192.0.2.1", data_of(10), 63, 8);  // 60 bytes
    r = reply_to(with_options);
    REQUIRE(r.reject == EchoReject::none);
    CHECK(r.frame_len == 60);
    CHECK(slice(with_options, 52, 8) == Bytes(8, 0));
}

TEST_CASE("icmp echo: each reason not to answer, frame untouched", "[l3][l3-control][icmp]") {
    SECTION("bad IP header") {
        Bytes f = echo4();
        f[14 + 10] ^= 1;  // header checksum
        CHECK(echo_reason(f) == "bad_ip_header");
        CHECK(echo_reason(slice(kScapyEchoRequest, 0, 10)) == "bad_ip_header");
        Bytes f6 = echo6();
        put16(f6, 14 + 4, 200);
        CHECK(echo_reason(f6) == "bad_ip_header");
    }
    SECTION("not an echo request") {
        CHECK(echo_reason(udp4()) == "not_echo_request");
        CHECK(echo_reason(udp6()) == "not_echo_request");
        for (const uint8_t type : {0, 3, 11, 13, 128})
            CHECK(echo_reason(echo4("198.51.100.7", "192.0.2.1", {}, 63, 0, type)) ==
                  "not_echo_request");
        for (const uint8_t type : {1, 8, 129, 135})
            CHECK(echo_reason(echo6("2001:db8::2", "2001:db8::1", {}, 255, type)) ==
                  "not_echo_request");
        const Bytes arp = ether(kRouterMac, kHostMac, 0x0806, Bytes(46, 0));
        CHECK(echo_reason(arp) == "not_echo_request");
        const Bytes m =
            icmpv6(ip("2001:db8::2"), ip("2001:db8::1"), Bytes{128, 0, 0, 0, 0, 0x77, 0, 1});
        const Bytes behind_hop_by_hop = ether(
            kRouterMac, kHostMac, 0x86dd,
            ipv6(ip("2001:db8::2"), ip("2001:db8::1"), 0, concat({58, 0, 1, 4, 0, 0, 0, 0}, m)));
        CHECK(echo_reason(behind_hop_by_hop) == "not_echo_request");
    }
    SECTION("fragment") {
        for (const uint16_t frag : {0x2000, 0x0001, 0x2001, 0x1fff}) {
            CAPTURE(frag);
            Bytes f = echo4("198.51.100.7", "192.0.2.1", data_of(20));
            put16(f, 14 + 6, frag);
            restamp4(f);
            CHECK(echo_reason(f) == "fragment");
        }
        Bytes df = echo4();
        put16(df, 14 + 6, 0x4000);  // don't fragment: whole, answered
        restamp4(df);
        CHECK(echo_reason(df) == "none");
    }
    SECTION("truncated") {
        for (const size_t len : {0u, 1u, 4u, 7u}) {
            CAPTURE(len);
            const Bytes m4 = slice(icmp({8, 0, 0, 0, 0, 0x77, 0, 1}), 0, len);
            CHECK(echo_reason(ether(kRouterMac, kHostMac, 0x0800,
                                    ipv4(ip4("198.51.100.7"), ip4("192.0.2.1"), 1, m4))) ==
                  "truncated");
            const Bytes m6 = slice(Bytes{128, 0, 0, 0, 0, 0x77, 0, 1}, 0, len);
            const Bytes f6 = ether(kRouterMac, kHostMac, 0x86dd,
                                   ipv6(ip("2001:db8::2"), ip("2001:db8::1"), 58, m6));
            CHECK(echo_reason(f6) == "truncated");
        }
    }
    SECTION("checksum") {
        for (Bytes f : {echo4("198.51.100.7", "192.0.2.1", data_of(9)),
                        echo6("2001:db8::2", "2001:db8::1", data_of(9))}) {
            f.back() ^= 0x40;
            CHECK(echo_reason(f) == "bad_checksum");
        }
        Bytes f6 = echo6();
        f6[14 + 8] ^= 0x20;  // the source: the pseudo-header no longer matches
        CHECK(echo_reason(f6) == "bad_checksum");
    }
    SECTION("source not unicast") {
        for (const char* src : {"0.0.0.0", "0.1.2.3", "127.0.0.1", "224.0.0.5", "239.1.2.3",
                                "240.0.0.1", "255.255.255.255"}) {
            CAPTURE(src);
            CHECK(echo_reason(echo4(src)) == "source_not_unicast");
        }
        for (const char* src : {"::", "::1", "ff02::1", "ff05::2"}) {
            CAPTURE(src);
            CHECK(echo_reason(echo6(src)) == "source_not_unicast");
        }
        CHECK(echo_reason(echo6("::2")) == "none");  // not all zero: a unicast, if odd
    }
    SECTION("destination not unicast") {
        for (const char* dst : {"224.0.0.1", "239.255.255.255", "255.255.255.255"}) {
            CAPTURE(dst);
            CHECK(echo_reason(echo4("198.51.100.7", dst)) == "destination_not_unicast");
        }
        for (const char* dst : {"ff02::1", "ff05::1:3"}) {
            CAPTURE(dst);
            CHECK(echo_reason(echo6("2001:db8::2", dst)) == "destination_not_unicast");
        }
    }
}

TEST_CASE("icmp echo: a request cut at every byte is refused and left as it was",
          "[l3][l3-control][icmp]") {
    for (const Bytes& whole : {kScapyEchoRequest, kScapyEcho6Request, tagged(kScapyEchoRequest, 9),
                               echo4("198.51.100.7", "192.0.2.1", data_of(5), 63, 12)}) {
        for (size_t n = 0; n < whole.size(); ++n) {
            CAPTURE(whole.size(), n);
            Bytes cut(whole.begin(), whole.begin() + long(n));  // exactly n: ASan sees past it
            CHECK(echo_reason(cut) == "bad_ip_header");
        }
    }
}

TEST_CASE("icmp error: a traceroute probe's time exceeded is what scapy makes",
          "[l3][l3-control][icmp]") {
    CHECK(veto(kScapyProbe) == "none");
    const Bytes te = build_error(IcmpError::time_exceeded, kScapyProbe, ip("192.0.2.1"));
    CHECK(hex(te) == hex(kScapyTimeExceeded));
    // Ethernet padding after the probe is not part of it, so not quoted.
    const Bytes padded = concat(kScapyProbe, Bytes(8, 0xee));
    CHECK(hex(build_error(IcmpError::time_exceeded, padded, ip("192.0.2.1"))) ==
          hex(kScapyTimeExceeded));
}

TEST_CASE("icmp error: each kind has its type and code in both families",
          "[l3][l3-control][icmp]") {
    struct Want {
        IcmpError error;
        uint8_t type4, code4, type6, code6;
    };
    for (const Want w :
         {Want{IcmpError::time_exceeded, 11, 0, 3, 0}, Want{IcmpError::net_unreachable, 3, 0, 1, 0},
          Want{IcmpError::host_unreachable, 3, 1, 1, 3},
          Want{IcmpError::port_unreachable, 3, 3, 1, 4},
          Want{IcmpError::parameter_problem, 12, 0, 4, 0}}) {
        CAPTURE(int(w.error));
        const Bytes e4 = build_error(w.error, udp4(), ip("192.0.2.1"));
        REQUIRE(e4.size() > 34);
        CHECK(e4[34] == w.type4);
        CHECK(e4[35] == w.code4);
        check_reply_checksums(e4, 14);
        const Bytes e6 = build_error(w.error, udp6(), ip("2001:db8::1"));
        REQUIRE(e6.size() > 54);
        CHECK(e6[54] == w.type6);
        CHECK(e6[55] == w.code6);
        check_reply_checksums(e6, 14);
    }
    Bytes out(kIcmpErrorMaxFrameLen);
    CHECK(build_icmp_error(out, IcmpError::count, udp4(), ip("192.0.2.1"), kPort, kHostMac) == 0);
}

TEST_CASE("icmp error: a parameter problem points at the malformed option",
          "[l3][l3-control][icmp]") {
    // udp4 with four bytes of options: type 7 (record route), length 0.
    Bytes in = udp4();
    Bytes ip_hdr(in.begin() + 14, in.begin() + 34);
    ip_hdr[0] = 0x46;
    ip_hdr.insert(ip_hdr.end(), {7, 0, 0, 0});
    Bytes f(in.begin(), in.begin() + 14);
    f.insert(f.end(), ip_hdr.begin(), ip_hdr.end());
    f.insert(f.end(), in.begin() + 34, in.end());
    f[14 + 3] = uint8_t(f[14 + 3] + 4);  // total length
    ipv4_store_checksum(f.data() + 14, 24);
    const size_t pointer = ipv4_option_problem(f.data() + 14, 24);
    REQUIRE(pointer == 21);
    CHECK(may_send_icmp_error(f) == IcmpErrorVeto::none);
    Bytes out(kIcmpErrorMaxFrameLen);
    const size_t len = build_icmp_error(out, IcmpError::parameter_problem, f, ip("192.0.2.1"),
                                        kPort, kHostMac, uint32_t(pointer));
    REQUIRE(len > 42 + 24);
    out.resize(len);
    CHECK(out[34] == 12);
    CHECK(out[35] == 0);
    CHECK(out[38] == 21);
    CHECK(out[39] == 0);
    // The quote: the invoking header, options and all.
    CHECK(std::equal(f.begin() + 14, f.begin() + 38, out.begin() + 42));
    check_reply_checksums(out, 14);
}

TEST_CASE("icmp error: IPv6, field by field, behind a tag", "[l3][l3-control][icmp]") {
    const Bytes invoking = tagged(udp6(), 200);
    const Bytes e = build_error(IcmpError::host_unreachable, invoking, ip("2001:db8::1"),
                                {kRouterMac, uint16_t(300)});
    const L3Header h = parse_l3_header(e, uint32_t(e.size()), false);
    REQUIRE(h.verdict == L3Verdict::forward_v6);
    REQUIRE(h.l3_offset == 18);
    CHECK(be16(e, 14) == 300);
    CHECK(slice(e, 0, 6) == Bytes(kHostMac.bytes.begin(), kHostMac.bytes.end()));
    CHECK(slice(e, 6, 6) == Bytes(kRouterMac.bytes.begin(), kRouterMac.bytes.end()));
    const Bytes quote = slice(invoking, 18, invoking.size() - 18);
    CHECK(e.size() == 18 + 40 + 8 + quote.size());
    CHECK(be16(e, 18 + 4) == 8 + quote.size());
    CHECK(e[18 + 6] == 58);
    CHECK(e[18 + 7] == 64);
    const IpAddress router = ip("2001:db8::1");
    CHECK(slice(e, 18 + 8, 16) == Bytes(router.bytes.begin(), router.bytes.end()));
    CHECK(slice(e, 18 + 24, 16) == slice(quote, 8, 16));  // to the invoking source
    CHECK(slice(e, 58 + 4, 4) == Bytes(4, 0));            // unused
    CHECK(slice(e, 58 + 8, quote.size()) == quote);
    check_reply_checksums(e, 18);
}

TEST_CASE("icmp error: the quote stops at 576 and 1280 bytes", "[l3][l3-control][icmp]") {
    SECTION("IPv4") {
        // 20 + 8 + payload: the sizes around the 548 bytes that fit.
        for (const size_t total : {60u, 547u, 548u, 549u, 1500u, 9000u}) {
            CAPTURE(total);
            const Bytes invoking = udp4("198.51.100.7", "203.0.113.9", total - 28);
            const Bytes e = build_error(IcmpError::time_exceeded, invoking, ip("192.0.2.1"));
            const size_t quoted = std::min<size_t>(total, 548);
            CHECK(e.size() == 14 + 20 + 8 + quoted);
            CHECK(be16(e, 14 + 2) == 20 + 8 + quoted);
            CHECK(size_t(be16(e, 14 + 2)) <= kIcmpv4ErrorMaxLen);
            CHECK(slice(e, 42, quoted) == slice(invoking, 14, quoted));
            check_reply_checksums(e, 14);
        }
    }
    SECTION("IPv6") {
        for (const size_t total : {60u, 1231u, 1232u, 1233u, 1500u, 9000u}) {
            CAPTURE(total);
            const Bytes invoking = udp6("2001:db8::2", "2001:db8:1::9", total - 48);
            const Bytes e = build_error(IcmpError::time_exceeded, invoking, ip("2001:db8::1"));
            const size_t quoted = std::min<size_t>(total, 1232);
            CHECK(e.size() == 14 + 40 + 8 + quoted);
            CHECK(40u + be16(e, 14 + 4) <= kIcmpv6ErrorMaxLen);
            CHECK(slice(e, 62, quoted) == slice(invoking, 14, quoted));
            check_reply_checksums(e, 14);
        }
        const Bytes big = tagged(udp6("2001:db8::2", "2001:db8:1::9", 1500), 1);
        const Bytes e = build_error(IcmpError::time_exceeded, big, ip("2001:db8::1"),
                                    {kRouterMac, uint16_t(1)});
        CHECK(e.size() == kIcmpErrorMaxFrameLen);
    }
}

TEST_CASE("icmp error: a buffer too short or an address of the other family gets nothing",
          "[l3][l3-control][icmp]") {
    const Bytes invoking = udp4();
    const size_t want = 14 + 20 + 8 + (invoking.size() - 14);
    for (size_t n = 0; n < want; ++n) {
        CAPTURE(n);
        Bytes out(n, 0xaa);
        CHECK(build_icmp_error(out, IcmpError::time_exceeded, invoking, ip("192.0.2.1"), kPort,
                               kHostMac) == 0);
        CHECK(out == Bytes(n, 0xaa));
    }
    Bytes out(want, 0xaa);
    CHECK(build_icmp_error(out, IcmpError::time_exceeded, invoking, ip("2001:db8::1"), kPort,
                           kHostMac) == 0);
    CHECK(build_icmp_error(out, IcmpError::time_exceeded, udp6(), ip("192.0.2.1"), kPort,
                           kHostMac) == 0);
    CHECK(out == Bytes(want, 0xaa));
    CHECK(build_icmp_error(out, IcmpError::time_exceeded, invoking, ip("192.0.2.1"), kPort,
                           kHostMac) == want);
}

TEST_CASE("icmp error: each veto, and no error built about a vetoed packet",
          "[l3][l3-control][icmp]") {
    // Every frame here is vetoed for the reason given, and gets no error.
    const auto vetoed = [](const Bytes& frame, const char* why) {
        CAPTURE(hex(frame));
        CHECK(veto(frame) == why);
        const bool v6 = be16(frame, 12) == 0x86dd;
        CHECK(build_error(IcmpError::time_exceeded, frame, ip(v6 ? "2001:db8::1" : "192.0.2.1"))
                  .empty());
    };
    CHECK(veto(udp4()) == "none");
    CHECK(veto(udp6()) == "none");
    CHECK(veto(tagged(udp4(), 3)) == "none");
    SECTION("bad header") {
        vetoed(ether(kRouterMac, kHostMac, 0x0806, Bytes(46, 0)), "bad_header");
        vetoed(ether(kRouterMac, kHostMac, 0x88cc, Bytes(46, 0)), "bad_header");
        Bytes f = udp4();
        f[14 + 10] ^= 1;
        vetoed(f, "bad_header");
        // ICMP with no byte of it: nothing says it is not an error.
        vetoed(ether(kRouterMac, kHostMac, 0x0800,
                     ipv4(ip4("198.51.100.7"), ip4("203.0.113.9"), 1, {})),
               "bad_header");
        // ICMPv6 behind a hop-by-hop header that runs past the packet.
        vetoed(udp6("2001:db8::2", "2001:db8:1::9", 0, 0, {58, 9, 0, 0, 0, 0, 0, 0}), "bad_header");
        // A chain longer than any real one.
        Bytes chain;
        for (int i = 0; i < 12; ++i) chain = concat(chain, {60, 0, 1, 4, 0, 0, 0, 0});
        chain[chain.size() - 8] = 17;
        vetoed(udp6("2001:db8::2", "2001:db8:1::9", 10, 60, chain), "bad_header");
        chain = slice(chain, 0, 32);
        chain[chain.size() - 8] = 17;
        CHECK(veto(udp6("2001:db8::2", "2001:db8:1::9", 10, 60, chain)) == "none");
    }
    SECTION("non-first fragment") {
        for (const uint16_t frag : {0x0001, 0x2001, 0x1fff, 0x4010}) {
            CAPTURE(frag);
            Bytes f = udp4();
            put16(f, 14 + 6, frag);
            restamp4(f);
            vetoed(f, "non_first_fragment");
        }
        Bytes first = udp4();
        put16(first, 14 + 6, 0x2000);  // more fragments, offset 0: the first
        restamp4(first);
        CHECK(veto(first) == "none");
        // IPv6 fragment header: offset 8 bytes (1 << 3), and offset 0 with M.
        vetoed(udp6("2001:db8::2", "2001:db8:1::9", 10, 44, {17, 0, 0, 8, 0, 0, 0, 1}),
               "non_first_fragment");
        CHECK(veto(udp6("2001:db8::2", "2001:db8:1::9", 10, 44, {17, 0, 0, 1, 0, 0, 0, 1})) ==
              "none");
    }
    SECTION("about an ICMP error") {
        for (const uint8_t type : {3, 4, 5, 11, 12, 42, 255}) {
            CAPTURE(type);
            vetoed(echo4("198.51.100.7", "203.0.113.9", {}, 1, 0, type), "about_icmp_error");
        }
        for (const uint8_t type : {0, 8, 13, 14, 17, 18})
            CHECK(veto(echo4("198.51.100.7", "203.0.113.9", {}, 1, 0, type)) == "none");
        for (const uint8_t type : {1, 2, 3, 4, 100, 127, 137}) {
            CAPTURE(type);
            vetoed(echo6("2001:db8::2", "2001:db8:1::9", {}, 1, type), "about_icmp_error");
        }
        for (const uint8_t type : {128, 129, 135, 136})
            CHECK(veto(echo6("2001:db8::2", "2001:db8:1::9", {}, 1, type)) == "none");
        // Behind extension headers, and in a first fragment.
        const Bytes error6 = {1, 0, 0, 0, 0, 0, 0, 0};
        for (const uint8_t ext : {0, 43, 60}) {
            CAPTURE(ext);
            const Bytes p = ipv6(ip("2001:db8::2"), ip("2001:db8:1::9"), ext,
                                 concat({58, 0, 0, 0, 0, 0, 0, 0}, error6), 1);
            vetoed(ether(kRouterMac, kHostMac, 0x86dd, p), "about_icmp_error");
        }
        const Bytes in_fragment = ipv6(ip("2001:db8::2"), ip("2001:db8:1::9"), 44,
                                       concat({58, 0, 0, 1, 0, 0, 0, 1}, error6), 1);
        vetoed(ether(kRouterMac, kHostMac, 0x86dd, in_fragment), "about_icmp_error");
        const Bytes behind_ah = ipv6(ip("2001:db8::2"), ip("2001:db8:1::9"), 51,
                                     concat({58, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, error6), 1);
        vetoed(ether(kRouterMac, kHostMac, 0x86dd, behind_ah), "about_icmp_error");
    }
    SECTION("link-layer broadcast or multicast") {
        for (const char* dst : {"ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01", "33:33:00:00:00:01"}) {
            CAPTURE(dst);
            for (Bytes f : {udp4(), udp6()}) {
                const MacAddr m = mac(dst);
                std::copy(m.bytes.begin(), m.bytes.end(), f.begin());
                vetoed(f, "link_layer_group");
            }
        }
    }
    SECTION("multicast destination") {
        for (const char* dst : {"224.0.0.1", "239.255.255.255"})
            vetoed(udp4("198.51.100.7", dst), "multicast_destination");
        for (const char* dst : {"ff02::1", "ff0e::1:2"})
            vetoed(udp6("2001:db8::2", dst), "multicast_destination");
    }
    SECTION("broadcast destination") {
        vetoed(udp4("198.51.100.7", "255.255.255.255"), "broadcast_destination");
        const Bytes subnet = udp4("198.51.100.7", "203.0.113.255");
        CHECK(veto(subnet) == "none");
        CHECK(veto(subnet, true) == "broadcast_destination");
    }
    SECTION("source not unicast") {
        for (const char* src :
             {"0.0.0.0", "0.0.0.1", "127.0.0.1", "224.0.0.1", "240.0.0.1", "255.255.255.255"}) {
            CAPTURE(src);
            vetoed(udp4(src), "source_not_unicast");
        }
        for (const char* src : {"::", "::1", "ff02::1"}) {
            CAPTURE(src);
            vetoed(udp6(src), "source_not_unicast");
        }
    }
}

TEST_CASE("icmp error: a frame cut at every byte is a bad header and gets no error",
          "[l3][l3-control][icmp]") {
    for (const Bytes& whole :
         {kScapyProbe, udp6(), tagged(udp4(), 4),
          udp6("2001:db8::2", "2001:db8:1::9", 10, 44, {17, 0, 0, 1, 0, 0, 0, 1})}) {
        const bool v6 = be16(whole, whole[12] == 0x81 ? 16 : 12) == 0x86dd;
        for (size_t n = 0; n < whole.size(); ++n) {
            CAPTURE(whole.size(), n);
            const Bytes cut(whole.begin(),
                            whole.begin() + long(n));  // exactly n: ASan sees past it
            CHECK(veto(cut) == "bad_header");
            Bytes out(kIcmpErrorMaxFrameLen);
            CHECK(build_icmp_error(out, IcmpError::time_exceeded, cut,
                                   ip(v6 ? "2001:db8::1" : "192.0.2.1"), kPort, kHostMac) == 0);
        }
    }
}

TEST_CASE("icmp: every reason and veto has a name of its own and is a counter of the router's",
          "[l3][l3-control][icmp]") {
    std::set<std::string> names;
    for (size_t i = 0; i < kEchoRejectCount; ++i)
        names.insert(std::string(echo_reject_name(EchoReject(i))));
    CHECK(names.size() == kEchoRejectCount);
    names.clear();
    for (size_t i = 0; i < kIcmpErrorVetoCount; ++i)
        names.insert(std::string(icmp_error_veto_name(IcmpErrorVeto(i))));
    CHECK(names.size() == kIcmpErrorVetoCount);
    CHECK(echo_reject_name(EchoReject::count) == "?");
    CHECK(icmp_error_veto_name(IcmpErrorVeto::count) == "?");
    const auto counted = [](const std::string& key) {
        INFO(key);
        const Field* f = kRouterRecord.find(key);
        REQUIRE(f != nullptr);
        CHECK(f->help.size() > 10);
    };
    for (size_t i = 1; i < kEchoRejectCount; ++i)
        counted("echo_rejected_" + std::string(echo_reject_name(EchoReject(i))));
    for (size_t i = 1; i < kIcmpErrorVetoCount; ++i)
        counted("icmp_errors_vetoed_" + std::string(icmp_error_veto_name(IcmpErrorVeto(i))));
}
