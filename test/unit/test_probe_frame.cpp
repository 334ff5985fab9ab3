// pmdgen's probe frames (probe_frame.hpp): built per flow, parsed back, and
// foreign frames refused.
#include <catch2/catch.hpp>

#include "probe_frame.hpp"

using namespace pmdfwd;

TEST_CASE("probe frames: built per flow, parsed back, foreign frames refused", "[pmdgen]") {
    UdpEndpoints ep;
    ep.src_mac = *MacAddr::parse("02:00:00:00:00:01");
    ep.dst_mac = *MacAddr::parse("02:00:00:00:00:02");
    ep.src_ip = *Ipv4Addr::parse("198.18.0.1");
    ep.dst_ip = *Ipv4Addr::parse("198.18.0.2");
    ep.src_port = 1000;
    ep.dst_port = 9;
    const ProbeFrames frames(ep, 3, 64);
    CHECK(frames.data_len() == 60);
    uint8_t buf[60] = {};
    frames.write(buf, 2, 123456789, 987654321);
    const auto p = parse_probe(buf, 60);
    REQUIRE(p);
    CHECK(p->seq == 123456789);
    CHECK(p->tsc == 987654321);
    CHECK(p->src_port == 1002);
    CHECK((buf[16] << 8 | buf[17]) == 46);           // IPv4 total length
    CHECK(ipv4_header_checksum(buf + 14, 20) == 0);  // a valid header sums to zero
    CHECK_FALSE(parse_probe(buf, 59));
    buf[42] ^= 1;
    CHECK_FALSE(parse_probe(buf, 60));
    const ProbeFrames big(ep, 1, 1518);
    CHECK(big.data_len() == 1514);
}
