// The router's address checks: martian first bytes, the own-source filter
// and its exact check, subnet edges, IPv6 link-local, each as a table.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "own_addresses.hpp"
#include "packet_bytes.hpp"

using namespace pmdfwd;
using packet_bytes::ip;

namespace {

IpPrefix iface(const char* text) {
    std::string why;
    return parse_ip_prefix(text, &why).value();
}

const std::vector<IpPrefix> kAddresses = {iface("10.1.0.1/24"), iface("192.0.2.9/31"),
                                          iface("2001:db8:1::1/64")};

// An IPv4 header (20 bytes) or IPv6 header (40) with these addresses.
std::vector<uint8_t> v4(const char* src, const char* dst) {
    std::vector<uint8_t> h(20, 0);
    const IpAddress s = ip(src), d = ip(dst);
    std::copy(s.bytes.begin(), s.bytes.begin() + 4, h.begin() + 12);
    std::copy(d.bytes.begin(), d.bytes.begin() + 4, h.begin() + 16);
    return h;
}

std::vector<uint8_t> v6(const char* src, const char* dst) {
    std::vector<uint8_t> h(40, 0);
    const IpAddress s = ip(src), d = ip(dst);
    std::copy(s.bytes.begin(), s.bytes.end(), h.begin() + 8);
    std::copy(d.bytes.begin(), d.bytes.end(), h.begin() + 24);
    return h;
}

const char* name(AddressVerdict v) {
    switch (v) {
        case AddressVerdict::ok:
            return "ok";
        case AddressVerdict::martian:
            return "martian";
        case AddressVerdict::own:
            return "own";
        case AddressVerdict::link_local:
            return "link_local";
    }
    return "?";
}

}  // namespace

TEST_CASE("own addresses: the first-byte table marks IPv4 martians and IPv6 suspects",
          "[l3][own_addresses]") {
    for (unsigned b = 0; b < 256; ++b) {
        CAPTURE(b);
        const bool martian = b == 0 || b == 127 || b >= 224;
        CHECK(bool(kFirstByte.flags[b] & kV4Martian) == martian);
        CHECK(bool(kFirstByte.flags[b] & kV6Suspect) == (b == 0 || b == 0xfe || b == 0xff));
    }
    // The plain path reads its copy.
    CHECK(OwnAddresses(kAddresses).screen().first_byte == kFirstByte.flags);
}

TEST_CASE("own addresses: IPv4 sources and destinations", "[l3][own_addresses]") {
    const OwnAddresses own(kAddresses);
    struct Case {
        const char* address;
        const char* as_source;
        const char* as_destination;
    };
    for (const Case& c : {
             Case{"10.1.0.2", "ok", "ok"}, Case{"8.8.8.8", "ok", "ok"},
             Case{"223.255.255.254", "ok", "ok"}, Case{"126.0.0.1", "ok", "ok"},
             Case{"128.0.0.1", "ok", "ok"}, Case{"0.0.0.0", "martian", "martian"},
             Case{"0.1.2.3", "martian", "martian"}, Case{"127.0.0.1", "martian", "martian"},
             Case{"224.0.0.5", "martian", "martian"}, Case{"239.255.255.255", "martian", "martian"},
             Case{"240.0.0.1", "martian", "martian"}, Case{"255.255.255.255", "martian", "martian"},
             Case{"10.1.0.1", "own", "ok"},      // to us: the route says so
             Case{"10.1.0.0", "martian", "ok"},  // the subnet's edges: the route's
             Case{"10.1.0.255", "martian", "ok"}, Case{"192.0.2.9", "own", "ok"},
             Case{"192.0.2.8", "ok", "ok"},  // a /31 has no network or broadcast address
         }) {
        CAPTURE(c.address);
        const auto as_src = v4(c.address, "8.8.8.8"), as_dst = v4("8.8.8.8", c.address);
        CHECK(std::string(name(own.ipv4_source(as_src.data()))) == c.as_source);
        CHECK(std::string(name(own.ipv4_destination(as_dst.data()))) == c.as_destination);
    }
    CHECK(own.is_subnet_broadcast(ip("10.1.0.255").v4_host_order()));
    CHECK(own.is_subnet_broadcast(ip("10.1.0.0").v4_host_order()));
    CHECK(!own.is_subnet_broadcast(ip("10.1.0.1").v4_host_order()));
    CHECK(!own.is_subnet_broadcast(ip("192.0.2.8").v4_host_order()));
}

TEST_CASE("own addresses: IPv6 sources and destinations", "[l3][own_addresses]") {
    const OwnAddresses own(kAddresses);
    struct Case {
        const char* address;
        const char* as_source;
        const char* as_destination;
    };
    for (const Case& c : {
             Case{"2001:db8:1::2", "ok", "ok"},
             Case{"2001:db8:1::1", "own", "ok"},
             Case{"::", "martian", "martian"},
             Case{"::1", "martian", "martian"},
             Case{"::2", "ok", "ok"},
             Case{"::ffff:10.1.0.2", "martian", "martian"},
             Case{"ff02::1", "martian", "martian"},
             Case{"ff0e::1", "martian", "martian"},
             Case{"fe80::1", "link_local", "link_local"},
             Case{"febf::1", "link_local", "link_local"},
             Case{"fec0::1", "ok", "ok"},
         }) {
        CAPTURE(c.address);
        const auto as_src = v6(c.address, "2001:db8:9::9"), as_dst = v6("2001:db8:9::9", c.address);
        CHECK(std::string(name(own.ipv6_source(as_src.data()))) == c.as_source);
        CHECK(std::string(name(own.ipv6_destination(as_dst.data()))) == c.as_destination);
    }
}

TEST_CASE("own addresses: the filter never rules out one of ours, and rules out most others",
          "[l3][own_addresses]") {
    const OwnAddresses own(kAddresses);
    for (const char* a : {"10.1.0.1", "10.1.0.0", "10.1.0.255", "192.0.2.9"}) {
        CAPTURE(a);
        CHECK(own.screen().may_be_own_source(ip(a).bytes.data() + 4));
    }
    CHECK(own.screen().may_be_own_source(ip("2001:db8:1::1").bytes.data() + 16));
    // Five addresses in 512 entries: about one source in a hundred is looked at closer.
    unsigned hits = 0;
    for (uint32_t host = 0; host < 65536; ++host) {
        IpAddress a = ip("10.200.0.0");
        a.bytes[2] = uint8_t(host >> 8);
        a.bytes[3] = uint8_t(host);
        hits += own.screen().may_be_own_source(a.bytes.data() + 4);
    }
    CHECK(hits < 65536 / 50);
    CHECK(OwnAddresses().size() == 0);
    CHECK(own.size() == 5);  // 2 IPv4, the /24's 2 edges (the /31 has none), 1 IPv6
}
