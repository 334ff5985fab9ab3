// The header views (wire_headers.hpp) read the field they name from a
// frame's bytes, at any alignment; their layouts against DPDK's are checked
// when lib/dataplane compiles (wire_headers_check.cpp). No EAL.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "wire_headers.hpp"

using namespace pmdfwd;

namespace {

// Ethernet to 02:..:01 from 02:..:02, then IPv4 from 192.0.2.7 to
// 198.51.100.9: TTL 64, UDP, total length 0x0123.
std::vector<uint8_t> ipv4_frame() {
    return {2,    0, 0,    0,    0,   1,  2,   0, 0,  0,  0, 2, 0x08, 0x00,  // Ethernet
            0x45, 0, 0x01, 0x23, 0,   0,  0,   0, 64, 17, 0, 0,              // IPv4 to the checksum
            192,  0, 2,    7,    198, 51, 100, 9};
}

// What a field of these bytes holds in memory, network order kept.
template <typename T>
T as_stored(std::initializer_list<uint8_t> bytes) {
    T v;
    std::memcpy(&v, std::data(bytes), sizeof v);
    return v;
}

}  // namespace

TEST_CASE("wire headers: Ethernet and IPv4 fields by name", "[l3][wire]") {
    // At an odd address too: the views load unaligned.
    for (const size_t shift : {0, 1}) {
        std::vector<uint8_t> bytes(shift, 0xee);
        const auto frame = ipv4_frame();
        bytes.insert(bytes.end(), frame.begin(), frame.end());
        const uint8_t* f = bytes.data() + shift;
        const EtherHeaderView eth(f);
        CHECK(eth.dst_addr()[5] == 1);
        CHECK(eth.src_addr()[5] == 2);
        CHECK(eth.ether_type_be() == as_stored<uint16_t>({0x08, 0x00}));
        const Ipv4HeaderView ip(f + 14);
        CHECK(ip.time_to_live() == 64);
        CHECK(ip.next_proto_id() == kIpProtoUdp);
        CHECK(ip.total_length_be() == as_stored<uint16_t>({0x01, 0x23}));
        CHECK(ip.src_addr()[0] == 192);
        CHECK(ip.dst_addr()[3] == 9);
        CHECK(ip.dst_addr_be() == as_stored<uint32_t>({198, 51, 100, 9}));
    }
}

TEST_CASE("wire headers: IPv6 fields by name", "[l3][wire]") {
    std::vector<uint8_t> ip(40, 0);
    ip[0] = 0x60;
    ip[4] = 0x01;  // payload length 0x0102
    ip[5] = 0x02;
    ip[6] = kIpProtoIcmpv6;
    ip[7] = 255;
    ip[8] = 0x20;   // source 2001:...
    ip[24] = 0xfe;  // destination fe80:...
    ip[39] = 0x42;
    const Ipv6HeaderView v(ip.data());
    CHECK(v.version() == 6);
    CHECK(v.payload_len() == 0x0102);
    CHECK(v.proto() == kIpProtoIcmpv6);
    CHECK(v.hop_limits() == 255);
    CHECK(v.src_addr()[0] == 0x20);
    CHECK(v.dst_addr()[0] == 0xfe);
    CHECK(v.dst_addr()[15] == 0x42);
    CHECK(kIpv4HeaderLen == 20);
    CHECK(kIpv6HeaderLen == 40);
}
