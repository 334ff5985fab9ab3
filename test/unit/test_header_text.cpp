// A frame's headers in one line (lib/trace/header_text.hpp): what trace show
// prints beside a packet's path, for frames that are whole, tagged, cut
// short or malformed.
#include <catch2/catch.hpp>

#include "header_text.hpp"
#include "packet_bytes.hpp"

using namespace pmdfwd;
using namespace packet_bytes;

namespace {

const MacAddr kTextDst = mac("02:00:00:00:00:02"), kTextSrc = mac("02:00:00:00:00:01");
const std::string kMacs = "02:00:00:00:00:01 > 02:00:00:00:00:02";

Bytes udp_bytes(uint16_t sport, uint16_t dport, size_t payload) {
    Bytes u(8 + payload, 0);
    put16(u, 0, sport);
    put16(u, 2, dport);
    put16(u, 4, uint16_t(u.size()));
    return u;
}

}  // namespace

TEST_CASE("header text: UDP over IPv4, tagged, with options and fragments", "[trace]") {
    const Bytes ip = ipv4(ip4("10.0.0.1"), ip4("10.0.1.2"), 17, udp_bytes(40000, 9, 18));
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x0800, ip)) ==
          kMacs + ", IPv4 10.0.0.1 > 10.0.1.2 ttl 64 len 46, UDP 40000 > 9 len 26");
    // Two tags: 802.1ad outside, 802.1Q inside.
    Bytes tagged =
        ether(kTextDst, kTextSrc, 0x88a8, {0x00, 0x64, 0x81, 0x00, 0x00, 0x0a, 0x08, 0x00});
    tagged = concat(tagged, ip);
    CHECK(header_text(tagged) == kMacs +
                                     ", svlan 100, vlan 10, IPv4 10.0.0.1 > 10.0.1.2 ttl 64 "
                                     "len 46, UDP 40000 > 9 len 26");
    const Bytes opts = ipv4(ip4("10.0.0.1"), ip4("10.0.1.2"), 17, udp_bytes(1, 2, 0), 1, 8);
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x0800, opts)) ==
          kMacs + ", IPv4 10.0.0.1 > 10.0.1.2 ttl 1 len 36 options 8, UDP 1 > 2 len 8");
    Bytes later = ip;
    put16(later, 6, 0x2000 | 3);  // more fragments, offset 24
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x0800, later)) ==
          kMacs + ", IPv4 10.0.0.1 > 10.0.1.2 ttl 64 len 46 frag offset 24+");
}

TEST_CASE("header text: IPv6, TCP, ICMP and ARP", "[trace]") {
    Bytes tcp(20, 0);
    put16(tcp, 0, 179);
    put16(tcp, 2, 50000);
    tcp[7] = 5;      // seq 5
    tcp[12] = 0x50;  // data offset 5
    tcp[13] = 0x12;  // SYN ACK
    const Bytes v6 = ipv6(ip("2001:db8::1"), ip("2001:db8::2"), 6, tcp);
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x86dd, v6)) ==
          kMacs + ", IPv6 2001:db8::1 > 2001:db8::2 hlim 64 plen 20, TCP 179 > 50000 [SA] seq 5");
    // A hop-by-hop header in front of ICMPv6.
    Bytes hbh(8, 0);
    hbh[0] = 58;
    const Bytes icmp6 = concat(hbh, Bytes{128, 0, 0, 0, 0, 1, 0, 1});
    const Bytes with_ext = ipv6(ip("fe80::1"), ip("ff02::1"), 0, icmp6, 1);
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x86dd, with_ext)) ==
          kMacs + ", IPv6 fe80::1 > ff02::1 hlim 1 plen 16, hop-by-hop, ICMPv6 type 128 code 0");
    const Bytes ping = ipv4(ip4("10.0.0.1"), ip4("10.0.0.9"), 1, Bytes{8, 0, 0, 0, 0, 1, 0, 1});
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x0800, ping)) ==
          kMacs + ", IPv4 10.0.0.1 > 10.0.0.9 ttl 64 len 28, ICMP type 8 code 0");
    Bytes arp(28, 0);
    put16(arp, 6, 1);
    const uint8_t spa[] = {10, 0, 0, 1}, tpa[] = {10, 0, 0, 9};
    std::copy(std::begin(spa), std::end(spa), arp.begin() + 14);
    std::copy(std::begin(tpa), std::end(tpa), arp.begin() + 24);
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x0806, arp)) ==
          kMacs + ", ARP who-has 10.0.0.9 tell 10.0.0.1");
    CHECK(header_text(ether(kTextDst, kTextSrc, 0x88b5, Bytes(10, 0))) ==
          kMacs + ", ethertype 0x88b5");
}

TEST_CASE("header text: what is cut short or malformed is said, never read past", "[trace]") {
    const Bytes ip = ipv4(ip4("10.0.0.1"), ip4("10.0.1.2"), 17, udp_bytes(40000, 9, 18));
    const Bytes whole = ether(kTextDst, kTextSrc, 0x0800, ip);
    CHECK(header_text(std::span(whole.data(), 10)) == "(10 bytes: no Ethernet header)");
    CHECK(header_text(std::span(whole.data(), 20)) == kMacs + ", IPv4 (cut short)");
    CHECK(header_text(std::span(whole.data(), 38)) ==
          kMacs + ", IPv4 10.0.0.1 > 10.0.1.2 ttl 64 len 46, UDP (cut short)");
    Bytes bad_ihl = whole;
    bad_ihl[14] = 0x4f;  // 60-byte header in a shorter frame
    CHECK(header_text(std::span(bad_ihl.data(), 50)) == kMacs + ", IPv4 (header length 60)");
    Bytes v5 = whole;
    v5[14] = 0x55;
    CHECK(header_text(v5) == kMacs + ", IPv4 (version 5)");
    const Bytes tag_only = ether(kTextDst, kTextSrc, 0x8100, {0x00});
    CHECK(header_text(tag_only) == kMacs + ", vlan (cut short)");
    // Every prefix of a frame: no read past its end (ASan would say).
    for (size_t n = 0; n <= whole.size(); ++n)
        CHECK_FALSE(header_text(std::span(whole.data(), n)).empty());
}
