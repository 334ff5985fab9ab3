// Frames a router is handed, each with the verdict it should get: built with
// a small packet builder, tagged and untagged, cut at every byte.
#include <catch2/catch.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ip_checksum.hpp"
#include "l3_header.hpp"

using namespace pmdfwd;

namespace {

using Bytes = std::vector<uint8_t>;

void put16(Bytes& b, size_t at, uint16_t v) {
    b[at] = uint8_t(v >> 8);
    b[at + 1] = uint8_t(v);
}

// A frame under construction: Ethernet, an optional tag, then the L3 bytes.
struct FrameBuilder {
    uint16_t tpid = 0;  // 0: untagged
    uint16_t ethertype = kEtherTypeIpv4;
    Bytes l3;
    size_t padding = 0;  // zero bytes after the packet, as a short frame gets

    FrameBuilder& tagged(uint16_t t = kEtherTypeVlan) {
        tpid = t;
        return *this;
    }
    FrameBuilder& pad(size_t n) {
        padding = n;
        return *this;
    }
    size_t l3_offset() const { return tpid ? 18 : 14; }
    Bytes build() const {
        Bytes f(l3_offset(), 0);
        for (size_t i = 0; i < 6; ++i) f[i] = uint8_t(0x02 + i), f[6 + i] = uint8_t(0x12 + i);
        if (tpid) {
            put16(f, 12, tpid);
            put16(f, 14, 0x0064);  // VLAN 100
        }
        put16(f, l3_offset() - 2, ethertype);
        f.insert(f.end(), l3.begin(), l3.end());
        f.resize(f.size() + padding, 0);
        return f;
    }
};

// IPv4 of ihl words and payload_len bytes of UDP-ish payload, checksum good.
FrameBuilder ipv4(uint8_t ttl = 64, unsigned ihl = 5, size_t payload_len = 8) {
    FrameBuilder b;
    b.ethertype = kEtherTypeIpv4;
    b.l3.assign(ihl * 4 + payload_len, 0);
    Bytes& h = b.l3;
    h[0] = uint8_t(0x40 | ihl);
    put16(h, 2, uint16_t(h.size()));
    put16(h, 4, 0x1234);
    h[8] = ttl;
    h[9] = 17;
    put16(h, 12, 0x0a00);  // 10.0.0.1 -> 10.1.0.2
    put16(h, 14, 0x0001);
    put16(h, 16, 0x0a01);
    put16(h, 18, 0x0002);
    for (size_t i = 20; i < ihl * 4; ++i) h[i] = 1;  // NOP options
    for (size_t i = ihl * 4; i < h.size(); ++i) h[i] = uint8_t(i);
    ipv4_store_checksum(h.data(), ihl * 4);
    return b;
}

void restamp(FrameBuilder& b) { ipv4_store_checksum(b.l3.data(), size_t(b.l3[0] & 15) * 4); }

// IPv6 with next_header and payload (its first byte an ICMPv6 type if 58).
FrameBuilder ipv6(uint8_t next_header = 17, uint8_t hop_limit = 64, Bytes payload = Bytes(8, 7)) {
    FrameBuilder b;
    b.ethertype = kEtherTypeIpv6;
    b.l3.assign(40, 0);
    b.l3[0] = 0x60;
    put16(b.l3, 4, uint16_t(payload.size()));
    b.l3[6] = next_header;
    b.l3[7] = hop_limit;
    b.l3[8] = 0x20, b.l3[9] = 0x01, b.l3[10] = 0x0d, b.l3[11] = 0xb8, b.l3[23] = 1;
    b.l3[24] = 0x20, b.l3[25] = 0x01, b.l3[26] = 0x0d, b.l3[27] = 0xb8, b.l3[39] = 2;
    b.l3.insert(b.l3.end(), payload.begin(), payload.end());
    return b;
}

FrameBuilder icmpv6(uint8_t type, uint8_t hop_limit = 255) {
    Bytes payload(24, 0);
    payload[0] = type;
    return ipv6(58, hop_limit, payload);
}

FrameBuilder arp() {
    FrameBuilder b;
    b.ethertype = kEtherTypeArp;
    b.l3.assign(28, 0);
    put16(b.l3, 0, 1);
    put16(b.l3, 2, kEtherTypeIpv4);
    b.l3[4] = 6, b.l3[5] = 4;
    put16(b.l3, 6, 1);  // request
    return b;
}

L3Header parse(const Bytes& f, bool checksum_verified = false) {
    return parse_l3_header(std::span<const uint8_t>(f), uint32_t(f.size()), checksum_verified);
}

std::string describe(const L3Header& h) {
    return std::string(l3_verdict_name(h.verdict)) + "/" + std::string(l3_bad_header_name(h.bad));
}

// "forward_v4/none", "bad_header/runt": one string, so a failure shows both.
std::string verdict_of(const Bytes& f, bool checksum_verified = false) {
    return describe(parse(f, checksum_verified));
}

const char* kFwd4 = "forward_v4/none";
const char* kFwd6 = "forward_v6/none";
const char* kControl = "control/none";
const char* kRunt = "bad_header/runt";
const char* kBadLength = "bad_header/bad_length";

}  // namespace

TEST_CASE("l3 header: good IPv4 and IPv6 frames forward, untagged or behind one tag",
          "[l3][l3_header]") {
    for (const uint16_t tpid : {uint16_t(0), kEtherTypeVlan, kEtherTypeQinQ}) {
        CAPTURE(tpid);
        auto v4 = ipv4();
        v4.tpid = tpid;
        const auto h4 = parse(v4.build());
        CHECK(describe(h4) == kFwd4);
        CHECK(h4.l3_offset == (tpid ? 18 : 14));
        CHECK(h4.ethertype == kEtherTypeIpv4);
        CHECK(h4.l3_header_len == 20);

        auto v6 = ipv6();
        v6.tpid = tpid;
        const auto h6 = parse(v6.build());
        CHECK(describe(h6) == kFwd6);
        CHECK(h6.l3_offset == (tpid ? 18 : 14));
        CHECK(h6.ethertype == kEtherTypeIpv6);
        CHECK(h6.l3_header_len == 40);
    }
}

TEST_CASE("l3 header: a frame cut at every byte is a runt, then a bad length, then whole",
          "[l3][l3_header]") {
    for (const uint16_t tpid : {uint16_t(0), kEtherTypeVlan}) {
        for (auto b : {ipv4(64, 5), ipv4(64, 7), ipv6(), icmpv6(135), icmpv6(128)}) {
            b.tpid = tpid;
            const Bytes whole = b.build();
            const bool v4 = b.ethertype == kEtherTypeIpv4;
            const size_t header_end = b.l3_offset() + (v4 ? size_t(b.l3[0] & 15) * 4 : 40);
            const std::string good = parse(whole).verdict == L3Verdict::control ? kControl
                                     : v4                                       ? kFwd4
                                                                                : kFwd6;
            for (size_t n = 0; n <= whole.size(); ++n) {
                CAPTURE(tpid, b.ethertype, whole.size(), n);
                const Bytes cut(whole.begin(), whole.begin() + long(n));
                // Cut frame: the packet claims more than the frame carries.
                CHECK(verdict_of(cut) == (n < header_end      ? kRunt
                                          : n == whole.size() ? good
                                                              : kBadLength));
                // Whole frame, first segment cut: the headers must be in it,
                // and for ICMPv6 so must the type that says whether it is ND.
                const bool icmp = !v4 && b.l3[6] == 58;
                const auto split =
                    parse_l3_header(std::span<const uint8_t>(cut), uint32_t(whole.size()), false);
                CHECK(describe(split) == (n < header_end + (icmp ? 1 : 0) ? kRunt : good));
            }
        }
    }
}

TEST_CASE("l3 header: a first segment longer than the packet counts as the packet",
          "[l3][l3_header]") {
    const Bytes f = ipv4().build();
    CHECK(describe(parse_l3_header(std::span<const uint8_t>(f), 30, false)) == kRunt);
    CHECK(describe(parse_l3_header(std::span<const uint8_t>(f), uint32_t(f.size() - 1), false)) ==
          kBadLength);
}

TEST_CASE("l3 header: each bad IPv4 field has its reason", "[l3][l3_header]") {
    const uint16_t tpid = GENERATE(uint16_t(0), kEtherTypeVlan, kEtherTypeQinQ);
    CAPTURE(tpid);
    auto b = ipv4();
    b.tpid = tpid;
    SECTION("version") {
        for (const uint8_t version : {0, 1, 5, 6, 15}) {
            b.l3[0] = uint8_t(version << 4 | 5);
            restamp(b);
            CHECK(verdict_of(b.build()) == "bad_header/bad_version");
        }
    }
    SECTION("IHL under 5") {
        for (uint8_t ihl = 0; ihl < 5; ++ihl) {
            b.l3[0] = uint8_t(0x40 | ihl);
            CHECK(verdict_of(b.build()) == "bad_header/bad_ihl");
        }
    }
    SECTION("IHL past the end of the frame") {
        b.l3[0] = 0x4f;  // 60 bytes, 28 there
        CHECK(verdict_of(b.build()) == kRunt);
    }
    SECTION("total length under the header's") {
        for (const uint16_t total : {0, 1, 19}) {
            put16(b.l3, 2, total);
            restamp(b);
            CHECK(verdict_of(b.build()) == kBadLength);
        }
        auto o = ipv4(64, 6, 0);
        o.tpid = tpid;
        put16(o.l3, 2, 23);  // options make 24
        restamp(o);
        CHECK(verdict_of(o.build()) == kBadLength);
        put16(o.l3, 2, 24);
        restamp(o);
        CHECK(verdict_of(o.build()) == kFwd4);  // a header and nothing else
    }
    SECTION("total length over what the frame carries") {
        put16(b.l3, 2, uint16_t(b.l3.size() + 1));
        restamp(b);
        CHECK(verdict_of(b.build()) == kBadLength);
        put16(b.l3, 2, 0xffff);
        restamp(b);
        CHECK(verdict_of(b.build()) == kBadLength);
    }
    SECTION("checksum, unless the port has checked it") {
        // Bytes whose change breaks nothing but the sum: TOS, flags, the
        // checksum itself, the addresses.
        for (const size_t at : {1u, 6u, 10u, 11u, 12u, 19u}) {
            CAPTURE(at);
            auto c = b;
            c.l3[at] ^= 0x80;
            CHECK(verdict_of(c.build()) == "bad_header/bad_checksum");
            CHECK(verdict_of(c.build(), true) == kFwd4);
        }
    }
    SECTION("a bad checksum is reported before the TTL") {
        b.l3[8] = 1;  // checksum not restamped
        CHECK(verdict_of(b.build()) == "bad_header/bad_checksum");
        CHECK(verdict_of(b.build(), true) == "ttl_expired/none");
    }
}

TEST_CASE("l3 header: each bad IPv6 field has its reason", "[l3][l3_header]") {
    for (const uint16_t tpid : {uint16_t(0), kEtherTypeVlan}) {
        CAPTURE(tpid);
        auto b = ipv6();
        b.tpid = tpid;
        for (const uint8_t version : {0, 4, 7, 15}) {
            auto v = b;
            v.l3[0] = uint8_t(version << 4);
            CHECK(verdict_of(v.build()) == "bad_header/bad_version");
        }
        put16(b.l3, 4, uint16_t(b.l3.size() - 40 + 1));
        CHECK(verdict_of(b.build()) == kBadLength);
        put16(b.l3, 4, 0xffff);
        CHECK(verdict_of(b.build()) == kBadLength);
        put16(b.l3, 4, 0);  // a payload shorter than the frame's is padding
        CHECK(verdict_of(b.build()) == kFwd6);
    }
}

TEST_CASE("l3 header: Ethernet padding is accepted, for both families", "[l3][l3_header]") {
    auto small = ipv4(64, 5, 0);  // 34 bytes, padded to 60 on the wire
    CHECK(verdict_of(small.pad(26).build()) == kFwd4);
    CHECK(verdict_of(small.tagged().build()) == kFwd4);
    auto v6 = ipv6(59, 64, {});  // no next header, no payload
    CHECK(verdict_of(v6.pad(6).build()) == kFwd6);
    CHECK(verdict_of(icmpv6(128).pad(100).build()) == kFwd6);
}

TEST_CASE("l3 header: IPv4 options of every length are accepted", "[l3][l3_header]") {
    for (unsigned ihl = 5; ihl <= 15; ++ihl) {
        CAPTURE(ihl);
        const auto h = parse(ipv4(64, ihl).build());
        CHECK(describe(h) == kFwd4);
        CHECK(h.l3_header_len == ihl * 4);
    }
}

TEST_CASE("l3 header: malformed IPv4 options are bad_option, with the octet to point at",
          "[l3][l3_header]") {
    struct Case {
        const char* name;
        unsigned ihl;
        Bytes options;   // from byte 20, the rest of the header NOP
        size_t problem;  // 0: well formed
    };
    const Case cases[] = {
        {"NOPs", 6, {1, 1, 1, 1}, 0},
        {"end of list, then anything", 6, {0, 7, 0, 0}, 0},
        {"record route of 7 (its length fits)", 7, {7, 7, 4, 0, 0, 0, 0, 1}, 0},
        {"a whole 40 bytes of one option", 15, {7, 40}, 0},
        {"length 0", 6, {7, 0, 0, 0}, 21},
        {"length 1", 6, {1, 7, 1, 0}, 22},
        {"running past the header", 6, {1, 7, 8, 4}, 22},
        {"no room for the length", 6, {1, 1, 1, 7}, 23},
        {"a second option running past", 7, {7, 3, 4, 0x44, 9, 0, 0, 0}, 24},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const unsigned ihl = c.ihl;
            FrameBuilder b = ipv4(64, ihl);
            for (size_t i = 0; i < c.options.size(); ++i) b.l3[20 + i] = c.options[i];
            if (ihl == 15)  // one 40-byte option: its data, not NOPs
                for (size_t i = 22; i < 60; ++i) b.l3[i] = 0;
            restamp(b);
            CHECK(ipv4_option_problem(b.l3.data(), ihl * 4) == c.problem);
            for (const bool tagged : {false, true}) {
                FrameBuilder t = b;
                if (tagged) t.tagged();
                const L3Header h = parse(t.build());
                CHECK(describe(h) == (c.problem ? "bad_header/bad_option" : kFwd4));
                CHECK(h.l3_header_len == ihl * 4);  // read, so that an error can quote it
            }
        }
    }
}

TEST_CASE("l3 header: fragments are forwarded as they are", "[l3][l3_header]") {
    // Flags and offset: more fragments, an offset, both, don't fragment.
    for (const uint16_t frag : {0x2000, 0x0001, 0x2010, 0x1fff, 0x4000}) {
        CAPTURE(frag);
        auto b = ipv4();
        put16(b.l3, 6, frag);
        restamp(b);
        CHECK(verdict_of(b.build()) == kFwd4);
    }
}

TEST_CASE("l3 header: ARP and neighbour discovery go to the control path", "[l3][l3_header]") {
    CHECK(verdict_of(arp().build()) == kControl);
    CHECK(verdict_of(arp().tagged().build()) == kControl);
    CHECK(verdict_of(arp().tagged(kEtherTypeQinQ).build()) == kControl);
    for (uint8_t type = 133; type <= 137; ++type) {  // RS, RA, NS, NA, redirect
        CAPTURE(type);
        CHECK(verdict_of(icmpv6(type).build()) == kControl);
        CHECK(verdict_of(icmpv6(type).tagged().build()) == kControl);
        CHECK(verdict_of(icmpv6(type, 1).build()) == kControl);  // not a TTL matter
    }
    for (const uint8_t type : {1, 3, 128, 129, 130, 132, 138, 143}) {
        CAPTURE(type);
        CHECK(verdict_of(icmpv6(type).build()) == kFwd6);
    }
    // 58 only directly after the fixed header: behind hop-by-hop it is routed.
    Bytes hop_by_hop = {58, 0, 1, 4, 0, 0, 0, 0, 135, 0, 0, 0};
    CHECK(verdict_of(ipv6(0, 255, hop_by_hop).build()) == kFwd6);
    // ND still needs a good IPv6 header.
    auto bad = icmpv6(135);
    bad.l3[0] = 0x40;
    CHECK(verdict_of(bad.build()) == "bad_header/bad_version");
}

TEST_CASE("l3 header: TTL and hop limit 0 and 1 expire, 2 forwards", "[l3][l3_header]") {
    for (const uint16_t tpid : {uint16_t(0), kEtherTypeVlan}) {
        CAPTURE(tpid);
        for (const uint8_t ttl : {0, 1}) {
            auto v4 = ipv4(ttl);
            v4.tpid = tpid;
            const auto h = parse(v4.build());
            CHECK(describe(h) == "ttl_expired/none");
            CHECK(h.l3_offset == (tpid ? 18 : 14));  // the caller may still look
            auto v6 = ipv6(17, ttl);
            v6.tpid = tpid;
            CHECK(verdict_of(v6.build()) == "ttl_expired/none");
        }
        for (const uint8_t ttl : {2, 255}) {
            auto v4 = ipv4(ttl);
            v4.tpid = tpid;
            CHECK(verdict_of(v4.build()) == kFwd4);
            auto v6 = ipv6(17, ttl);
            v6.tpid = tpid;
            CHECK(verdict_of(v6.build()) == kFwd6);
        }
    }
}

TEST_CASE("l3 header: other ethertypes and a second tag are not IP", "[l3][l3_header]") {
    for (const uint16_t ethertype : {0x88cc, 0x8847, 0x0000, 0xffff, 0x86de, 0x0801}) {
        CAPTURE(ethertype);
        auto b = ipv4();
        b.ethertype = ethertype;
        const auto h = parse(b.build());
        CHECK(describe(h) == "not_ip/none");
        CHECK(h.ethertype == ethertype);
        CHECK(h.l3_offset == 14);
    }
    for (const uint16_t inner : {kEtherTypeVlan, kEtherTypeQinQ}) {
        auto b = ipv4().tagged(kEtherTypeQinQ);
        b.ethertype = inner;
        const auto h = parse(b.build());
        CHECK(describe(h) == "not_ip/none");
        CHECK(h.ethertype == inner);
    }
}

TEST_CASE("l3 header: every verdict and reason has its name", "[l3][l3_header]") {
    CHECK(std::string(l3_verdict_name(L3Verdict::forward_v4)) == "forward_v4");
    CHECK(std::string(l3_verdict_name(L3Verdict::ttl_expired)) == "ttl_expired");
    CHECK(std::string(l3_bad_header_name(L3BadHeader::none)) == "none");
    CHECK(std::string(l3_bad_header_name(L3BadHeader::bad_checksum)) == "bad_checksum");
}
