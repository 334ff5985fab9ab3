// ARP for router mode's control path: requests and replies built, held to
// bytes scapy made, read back, tagged and untagged, cut at every byte.
#include <catch2/catch.hpp>
#include <set>
#include <span>
#include <string>

#include "arp_packet.hpp"
#include "l3_header.hpp"
#include "packet_bytes.hpp"
#include "router_api.hpp"

using namespace pmdfwd;
using namespace packet_bytes;

namespace {

// scapy 2.5.0 (Debian's /usr/bin/python3):
//   Ether(dst='ff:ff:ff:ff:ff:ff', src='02:00:00:00:00:01')/ARP(op=1,
//   hwsrc='02:00:00:00:00:01', psrc='192.0.2.1', hwdst='00:00:00:00:00:00',
//   pdst='192.0.2.2')/Padding(b'\0'*18)
const Bytes kScapyArpRequest = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00,
    0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0xc0, 0x00,
    0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

// The same behind Dot1Q(prio=5, vlan=100) (TCI 0xa064), Padding(b'\0'*14).
const Bytes kScapyArpRequestTagged = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x81, 0x00, 0xa0,
    0x64, 0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00,
    0x00, 0x01, 0xc0, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x02,
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

const EtherPort kPort{mac("02:00:00:00:00:01"), std::nullopt};
const EtherPort kTaggedPort{mac("02:00:00:00:00:01"), uint16_t(0xa064)};

Bytes built_request(const EtherPort& port, const char* target = "192.0.2.2") {
    Bytes out(128, 0xaa);
    const size_t len = build_arp_request(out, port, ip4("192.0.2.1"), ip4(target));
    REQUIRE(len > 0);
    out.resize(len);
    return out;
}

// What a control path does: classify, then read from l3_offset.
ArpParse parse_frame(const Bytes& frame) {
    const L3Header h = parse_l3_header(frame, uint32_t(frame.size()), false);
    REQUIRE(h.verdict == L3Verdict::control);
    REQUIRE(h.ethertype == kEtherTypeArp);
    return parse_arp(std::span<const uint8_t>(frame).subspan(h.l3_offset));
}

// 28 bytes of ARP, the fields as given.
Bytes arp_body(uint16_t htype, uint16_t ptype, uint8_t hlen, uint8_t plen, uint16_t op) {
    Bytes b(28, 0);
    put16(b, 0, htype);
    put16(b, 2, ptype);
    b[4] = hlen;
    b[5] = plen;
    put16(b, 6, op);
    return b;
}

}  // namespace

TEST_CASE("arp: a request is byte for byte what scapy makes, tagged and untagged",
          "[l3][l3-control][arp]") {
    CHECK(hex(built_request(kPort)) == hex(kScapyArpRequest));
    CHECK(hex(built_request(kTaggedPort)) == hex(kScapyArpRequestTagged));
    CHECK(arp_frame_len(kPort) == 60);
    CHECK(arp_frame_len(kTaggedPort) == 60);
}

TEST_CASE("arp: scapy's request reads as who-has 192.0.2.2 tell 192.0.2.1",
          "[l3][l3-control][arp]") {
    for (const Bytes* frame : {&kScapyArpRequest, &kScapyArpRequestTagged}) {
        const ArpParse p = parse_frame(*frame);
        REQUIRE(p.reject == ArpReject::none);
        CHECK(p.packet.op == ArpOp::request);
        CHECK(p.packet.sender_mac == mac("02:00:00:00:00:01"));
        CHECK(p.packet.sender_ip == ip4("192.0.2.1"));
        CHECK(p.packet.target_mac == MacAddr{});
        CHECK(p.packet.target_ip == ip4("192.0.2.2"));
    }
}

TEST_CASE("arp: a request answered and the answer read back, tagged and untagged",
          "[l3][l3-control][arp]") {
    const EtherPort host{mac("02:00:00:00:00:02"), std::nullopt};
    const EtherPort ours{mac("02:00:00:00:00:01"), std::nullopt};
    for (const std::optional<uint16_t> tci :
         {std::optional<uint16_t>(), std::optional<uint16_t>(100),
          std::optional<uint16_t>(0xefff)}) {
        CAPTURE(tci.value_or(0xffff));
        EtherPort asker = host, answerer = ours;
        asker.vlan_tci = answerer.vlan_tci = tci;
        Bytes request(60);
        REQUIRE(build_arp_request(request, asker, ip4("10.0.0.2"), ip4("10.0.0.1")) == 60);
        const ArpParse req = parse_frame(request);
        REQUIRE(req.reject == ArpReject::none);
        CHECK(req.packet.sender_mac == host.mac);

        Bytes reply(60, 0xaa);
        REQUIRE(build_arp_reply(reply, answerer, req.packet) == 60);
        const size_t l3 = tci ? 18 : 14;
        CHECK(slice(reply, 0, 6) == Bytes(host.mac.bytes.begin(), host.mac.bytes.end()));
        CHECK(slice(reply, 6, 6) == Bytes(ours.mac.bytes.begin(), ours.mac.bytes.end()));
        if (tci) CHECK(be16(reply, 14) == *tci);
        CHECK(slice(reply, l3 + 28, 60 - l3 - 28) == Bytes(60 - l3 - 28, 0));  // padding
        const ArpParse rep = parse_frame(reply);
        REQUIRE(rep.reject == ArpReject::none);
        CHECK(rep.packet.op == ArpOp::reply);
        CHECK(rep.packet.sender_mac == ours.mac);
        CHECK(rep.packet.sender_ip == ip4("10.0.0.1"));
        CHECK(rep.packet.target_mac == host.mac);
        CHECK(rep.packet.target_ip == ip4("10.0.0.2"));
    }
}

TEST_CASE("arp: a gratuitous request names our address twice", "[l3][l3-control][arp]") {
    Bytes out(60);
    REQUIRE(build_arp_request(out, kPort, ip4("192.0.2.1"), ip4("192.0.2.1")) == 60);
    const ArpParse p = parse_frame(out);
    REQUIRE(p.reject == ArpReject::none);
    CHECK(p.packet.sender_ip == p.packet.target_ip);
}

TEST_CASE("arp: each wrong field has its reason", "[l3][l3-control][arp]") {
    const auto reason = [](const Bytes& body) { return arp_reject_name(parse_arp(body).reject); };
    CHECK(std::string(reason(arp_body(1, 0x0800, 6, 4, 1))) == "none");
    CHECK(std::string(reason(arp_body(1, 0x0800, 6, 4, 2))) == "none");
    for (const uint16_t htype : {0, 6, 0x0800, 0xffff}) {
        CAPTURE(htype);
        CHECK(std::string(reason(arp_body(htype, 0x0800, 6, 4, 1))) == "not_ethernet");
    }
    for (const uint8_t hlen : {0, 4, 8, 16}) {
        CAPTURE(hlen);
        CHECK(std::string(reason(arp_body(1, 0x0800, hlen, 4, 1))) == "not_ethernet");
    }
    for (const uint16_t ptype : {0x0000, 0x86dd, 0x0806, 0x0801}) {
        CAPTURE(ptype);
        CHECK(std::string(reason(arp_body(1, ptype, 6, 4, 1))) == "not_ipv4");
    }
    for (const uint8_t plen : {0, 6, 16}) {
        CAPTURE(plen);
        CHECK(std::string(reason(arp_body(1, 0x0800, 6, plen, 1))) == "not_ipv4");
    }
    // RARP (3, 4), InARP (8, 9), and nonsense.
    for (const uint16_t op : {0, 3, 4, 8, 9, 0x0100, 0xffff}) {
        CAPTURE(op);
        CHECK(std::string(reason(arp_body(1, 0x0800, 6, 4, op))) == "bad_op");
    }
    CHECK(std::string(reason(Bytes(27, 0))) == "truncated");
}

TEST_CASE("arp: a frame cut at every byte is truncated until the 28 bytes are there",
          "[l3][l3-control][arp]") {
    for (const Bytes* whole : {&kScapyArpRequest, &kScapyArpRequestTagged}) {
        const size_t l3 = (*whole)[12] == 0x81 ? 18 : 14;
        for (size_t n = 0; n <= whole->size(); ++n) {
            CAPTURE(l3, n);
            // Its own allocation of exactly n bytes, so that ASan sees any
            // read past it.
            const Bytes cut(whole->begin(), whole->begin() + long(n));
            const L3Header h = parse_l3_header(cut, uint32_t(n), false);
            if (n < l3) {
                CHECK(h.verdict == L3Verdict::bad_header);
                continue;
            }
            const ArpParse p = parse_arp(std::span<const uint8_t>(cut).subspan(h.l3_offset));
            CHECK(p.reject == (n < l3 + kArpLen ? ArpReject::truncated : ArpReject::none));
        }
    }
}

TEST_CASE("arp: a buffer too short gets nothing written", "[l3][l3-control][arp]") {
    ArpPacket request;
    request.sender_mac = mac("02:00:00:00:00:02");
    request.sender_ip = ip4("192.0.2.2");
    request.target_ip = ip4("192.0.2.1");
    for (const EtherPort* port : {&kPort, &kTaggedPort}) {
        for (size_t n = 0; n <= arp_frame_len(*port); ++n) {
            CAPTURE(n);
            Bytes out(n, 0xaa);
            const bool fits = n == arp_frame_len(*port);
            CHECK(build_arp_request(out, *port, ip4("192.0.2.1"), ip4("192.0.2.2")) ==
                  (fits ? n : 0));
            if (!fits) CHECK(out == Bytes(n, 0xaa));
            Bytes reply(n, 0xaa);
            CHECK(build_arp_reply(reply, *port, request) == (fits ? n : 0));
            if (!fits) CHECK(reply == Bytes(n, 0xaa));
        }
    }
}

TEST_CASE("arp: every reason has a name of its own and is a counter of the router's",
          "[l3][l3-control][arp]") {
    std::set<std::string> names;
    for (size_t i = 0; i < kArpRejectCount; ++i)
        names.insert(std::string(arp_reject_name(ArpReject(i))));
    CHECK(names.size() == kArpRejectCount);
    CHECK(arp_reject_name(ArpReject::count) == "?");
    for (size_t i = 1; i < kArpRejectCount; ++i) {
        const std::string key = "arp_rejected_" + std::string(arp_reject_name(ArpReject(i)));
        INFO(key);
        const Field* f = kRouterRecord.find(key);
        REQUIRE(f != nullptr);
        CHECK(f->help.size() > 10);
    }
}
