// Equal-cost paths over buckets (ecmp_paths.hpp) and the flow hash that
// picks a bucket (flow_hash.hpp): shares, and which buckets move when a
// path comes or goes.
#include <catch2/catch.hpp>
#include <map>
#include <vector>

#include "ecmp_paths.hpp"
#include "flow_hash.hpp"
#include "packet_bytes.hpp"

using namespace pmdfwd;
using packet_bytes::ip;

namespace {

EcmpPath path(const char* via, uint16_t port, uint16_t weight = 1) {
    return {ip(via), port, weight};
}

// Buckets per path, by the path.
std::map<EcmpPath, unsigned> shares(const std::vector<EcmpPath>& paths) {
    std::map<EcmpPath, unsigned> n;
    for (uint8_t i : ecmp_buckets(paths)) n[paths.at(i)]++;
    return n;
}

// Each bucket's path, as the path rather than its index.
std::vector<EcmpPath> owners(const std::vector<EcmpPath>& paths) {
    std::vector<EcmpPath> out;
    for (uint8_t i : ecmp_buckets(paths)) out.push_back(paths.at(i));
    return out;
}

const EcmpPath kA = path("10.1.0.2", 1), kB = path("10.2.0.2", 2), kC = path("10.3.0.2", 3),
               kD = path("10.1.0.3", 1);

}  // namespace

TEST_CASE("ecmp: every path gets its share of the buckets", "[ecmp]") {
    const auto two = shares({kA, kB});
    CHECK(two.at(kA) + two.at(kB) == kEcmpBuckets);
    CHECK(two.at(kA) >= 100);
    CHECK(two.at(kB) >= 100);
    const auto four = shares({kA, kB, kC, kD});
    for (const auto& [p, n] : four) {
        CAPTURE(p.via->to_string(), n);
        CHECK(n >= 40);
        CHECK(n <= 90);
    }
    // Weights: three to one.
    const auto weighted = shares({path("10.1.0.2", 1, 3), kB});
    CHECK(weighted.at(path("10.1.0.2", 1, 3)) >= 160);
    CHECK(weighted.at(path("10.1.0.2", 1, 3)) <= 224);
}

TEST_CASE("ecmp: the same paths give the same buckets, in any order", "[ecmp]") {
    CHECK(owners({kA, kB, kC}) == owners({kC, kA, kB}));
    CHECK(ecmp_buckets(std::vector<EcmpPath>{kA, kB}) ==
          ecmp_buckets(std::vector<EcmpPath>{kA, kB}));
}

TEST_CASE("ecmp: a path removed moves only its own buckets", "[ecmp]") {
    const auto before = owners({kA, kB, kC});
    const auto after = owners({kA, kC});
    unsigned moved = 0;
    for (unsigned b = 0; b < kEcmpBuckets; ++b) {
        if (before[b] == kB) {
            moved++;
            continue;
        }
        CAPTURE(b);
        CHECK(after[b] == before[b]);
    }
    CHECK(moved > 0);
}

TEST_CASE("ecmp: a path added takes buckets for itself only", "[ecmp]") {
    const auto before = owners({kA, kB});
    const auto after = owners({kA, kB, kC});
    unsigned taken = 0;
    for (unsigned b = 0; b < kEcmpBuckets; ++b) {
        if (after[b] == before[b]) continue;
        CAPTURE(b);
        CHECK(after[b] == kC);
        taken++;
    }
    CHECK(taken >= 50);
    CHECK(taken <= 120);
}

namespace {

std::vector<uint8_t> udp4(uint32_t src, uint16_t sport, uint16_t dport, uint8_t flags = 0) {
    std::vector<uint8_t> h(28, 0);
    h[0] = 0x45;
    h[6] = flags;  // 0x20: more fragments
    h[8] = 64;
    h[9] = kIpProtoUdp;
    for (int i = 0; i < 4; ++i) h[12 + i] = uint8_t(src >> (24 - 8 * i));
    h[16] = 198, h[17] = 51, h[18] = 100, h[19] = 7;
    h[20] = uint8_t(sport >> 8), h[21] = uint8_t(sport);
    h[22] = uint8_t(dport >> 8), h[23] = uint8_t(dport);
    return h;
}

std::vector<uint8_t> tcp6(uint16_t sport) {
    std::vector<uint8_t> h(44, 0);
    h[0] = 0x60;
    h[6] = kIpProtoTcp;
    h[7] = 64;
    h[8] = 0x20, h[9] = 0x01, h[10] = 0x0d, h[11] = 0xb8, h[23] = 2;
    h[24] = 0x20, h[25] = 0x01, h[26] = 0x0d, h[27] = 0xb8, h[39] = 7;
    h[40] = uint8_t(sport >> 8), h[41] = uint8_t(sport);
    h[43] = 80;
    return h;
}

}  // namespace

TEST_CASE("flow hash: flows spread over the buckets, a flow keeps to one", "[ecmp]") {
    const auto buckets = ecmp_buckets(std::vector<EcmpPath>{kA, kB});
    unsigned on_a4 = 0, on_a6 = 0;
    constexpr unsigned kFlows = 2000;
    for (unsigned f = 0; f < kFlows; ++f) {
        const auto v4 = udp4(0x0a000002, uint16_t(10000 + f), 5201);
        const uint32_t h4 = flow_hash_v4(v4.data(), uint32_t(v4.size()));
        CHECK(h4 == flow_hash_v4(v4.data(), uint32_t(v4.size())));
        on_a4 += buckets[h4 % kEcmpBuckets] == 0;
        const auto v6 = tcp6(uint16_t(10000 + f));
        on_a6 += buckets[flow_hash_v6(v6.data(), uint32_t(v6.size())) % kEcmpBuckets] == 0;
    }
    // Half each, give or take the buckets' own unevenness and chance.
    CHECK(on_a4 > kFlows * 35 / 100);
    CHECK(on_a4 < kFlows * 65 / 100);
    CHECK(on_a6 > kFlows * 35 / 100);
    CHECK(on_a6 < kFlows * 65 / 100);
}

TEST_CASE("flow hash: ports only where they are, and never of a fragment", "[ecmp]") {
    // Sources differ: different flows.
    const auto a = udp4(0x0a000002, 1000, 53), b = udp4(0x0a000003, 1000, 53);
    CHECK(flow_hash_v4(a.data(), 28) != flow_hash_v4(b.data(), 28));
    // Ports differ: different flows, unless they are not there to read.
    const auto c = udp4(0x0a000002, 1001, 53);
    CHECK(flow_hash_v4(a.data(), 28) != flow_hash_v4(c.data(), 28));
    CHECK(flow_hash_v4(a.data(), 20) == flow_hash_v4(c.data(), 20));
    // A first fragment (more fragments set) hashes as its later ones do.
    const auto fa = udp4(0x0a000002, 1000, 53, 0x20), fc = udp4(0x0a000002, 1001, 53, 0x20);
    CHECK(flow_hash_v4(fa.data(), 28) == flow_hash_v4(fc.data(), 28));
    CHECK(flow_hash_v4(fa.data(), 28) == flow_hash_v4(a.data(), 20));
    const auto x = tcp6(1000), y = tcp6(1001);
    CHECK(flow_hash_v6(x.data(), 44) != flow_hash_v6(y.data(), 44));
    CHECK(flow_hash_v6(x.data(), 40) == flow_hash_v6(y.data(), 40));
}
