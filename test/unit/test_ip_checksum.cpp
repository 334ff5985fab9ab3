// The IPv4 header checksum, and the incremental update of a TTL decrement
// held against a full recompute, the one's-complement zeroes included; the
// chained ICMP and ICMPv6 sums held against one buffer summed the long way.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "ip_checksum.hpp"

using namespace pmdfwd;

namespace {

uint16_t stored_checksum(const uint8_t* h) { return uint16_t(h[10] << 8 | h[11]); }

// A valid header of ihl words, every other byte random: options included.
std::vector<uint8_t> random_header(std::mt19937& rng, unsigned ihl, uint8_t ttl) {
    std::vector<uint8_t> h(ihl * 4);
    for (auto& b : h) b = uint8_t(rng());
    h[0] = uint8_t(0x40 | ihl);
    h[8] = ttl;
    ipv4_store_checksum(h.data(), h.size());
    return h;
}

// What a router without the incremental update would store.
std::vector<uint8_t> recomputed(std::vector<uint8_t> h) {
    h[8] = uint8_t(h[8] - 1);
    ipv4_store_checksum(h.data(), h.size());
    return h;
}

// RFC 1141's HC' = HC + m + ~m', which RFC 1624 replaced: one's-complement
// addition of words that are not all zero never gives 0x0000.
uint16_t rfc1141_update(const uint8_t* h) {
    const auto m = uint32_t(h[8] << 8 | h[9]);
    const auto m_new = uint32_t((h[8] - 1) << 8 | h[9]);
    uint32_t sum = stored_checksum(h) + m + (~m_new & 0xffff);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(sum);
}

// Sets the identification so that the checksum after a decrement is target.
bool steer_to(std::vector<uint8_t>& h, uint16_t target) {
    for (uint32_t id = 0; id <= 0xffff; ++id) {
        h[4] = uint8_t(id >> 8);
        h[5] = uint8_t(id);
        ipv4_store_checksum(h.data(), h.size());
        if (stored_checksum(recomputed(h).data()) == target) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("ip checksum: a known header sums to its checksum and then to zero", "[l3][checksum]") {
    // The textbook header: 192.168.0.1 -> 192.168.0.199, UDP, checksum 0xb861.
    std::array<uint8_t, 20> h = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                                 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
    CHECK(ipv4_header_checksum(h.data(), h.size()) == 0);
    h[10] = h[11] = 0;
    CHECK(ipv4_header_checksum(h.data(), h.size()) == 0xb861);
    h[10] = 0x12;  // whatever was there is replaced
    ipv4_store_checksum(h.data(), h.size());
    CHECK(stored_checksum(h.data()) == 0xb861);

    decrement_ttl(h.data());
    CHECK(h[8] == 0x3f);
    CHECK(stored_checksum(h.data()) == 0xb961);
    CHECK(ipv4_header_checksum(h.data(), h.size()) == 0);
}

TEST_CASE("ip checksum: the workers' 20-byte check agrees with the full sum on 100000 headers",
          "[l3][checksum]") {
    std::mt19937 rng(20261202);
    size_t disagreements = 0, intact = 0;
    for (int i = 0; i < 100000; ++i) {
        auto h = random_header(rng, 5, uint8_t(rng()));
        // Half of them damaged: one byte changed, or the checksum field set
        // to a random value (which may happen to be right).
        if (i % 2) {
            if (i % 4 == 1)
                h[rng() % 20] ^= uint8_t(1 + rng() % 255);
            else
                h[10] = uint8_t(rng()), h[11] = uint8_t(rng());
        }
        const bool full = ipv4_header_checksum(h.data(), h.size()) == 0;
        intact += full;
        if (ipv4_header20_checksum_ok(h.data()) != full && disagreements++ == 0)
            FAIL_CHECK("header " << i << ": full sum says " << full);
        // The C sum other targets take: all ones when folded.
        if ((ipv4_header20_sum_portable(h.data()) % 0xffff == 0) != full && disagreements++ == 0)
            FAIL_CHECK("header " << i << ", the C sum: full sum says " << full);
    }
    CHECK(disagreements == 0);
    CHECK(intact >= 50000);  // every undamaged header, and any damaged one by luck right
    CHECK(intact < 50100);
}

TEST_CASE("ip checksum: the 20-byte check takes both zeroes of a ones' complement sum",
          "[l3][checksum]") {
    std::mt19937 rng(1071);
    auto h = random_header(rng, 5, 64);
    REQUIRE(steer_to(h, 0x0000));  // a header whose checksum, after a decrement, is 0x0000
    auto after = recomputed(h);
    CHECK(stored_checksum(after.data()) == 0x0000);
    CHECK(ipv4_header20_checksum_ok(after.data()));
    after[10] = after[11] = 0xff;  // -0 in its place: the sum is still all ones
    CHECK(ipv4_header20_checksum_ok(after.data()));
    after[11] = 0xfe;
    CHECK_FALSE(ipv4_header20_checksum_ok(after.data()));
}

TEST_CASE("ip checksum: decrement_ttl matches a full recompute over 100000 random headers",
          "[l3][checksum]") {
    std::mt19937 rng(20240611);
    size_t mismatches = 0, checked = 0;
    for (int i = 0; i < 100000; ++i) {
        const unsigned ihl = 5 + rng() % 11;
        const auto ttl = uint8_t(2 + rng() % 254);
        const auto h = random_header(rng, ihl, ttl);
        auto incremental = h, portable = h;
        decrement_ttl(incremental.data());
        decrement_ttl_portable(portable.data());
        const auto full = recomputed(h);
        ++checked;
        if (incremental != full && mismatches++ == 0)
            FAIL_CHECK("ihl " << ihl << " ttl " << int(ttl) << ": checksum "
                              << stored_checksum(incremental.data()) << ", recomputed "
                              << stored_checksum(full.data()));
        if (portable != full && mismatches++ == 0)
            FAIL_CHECK("the C form, ihl " << ihl << " ttl " << int(ttl) << ": checksum "
                                          << stored_checksum(portable.data()) << ", recomputed "
                                          << stored_checksum(full.data()));
    }
    CHECK(checked == 100000);
    CHECK(mismatches == 0);
}

TEST_CASE("ip checksum: decrement_ttl carries around the end from 0xfffe and 0xffff as loaded",
          "[l3][checksum]") {
    // As loaded little-endian, a checksum of 0xfffe or 0xffff is one a
    // single 32-bit add cannot update: both take the end-around carry.
    std::mt19937 rng(1624);
    auto h = random_header(rng, 5, 64);
    REQUIRE(steer_to(h, 0x0000));  // stored 0xfeff before: 0xfffe as loaded
    auto zero = h, zero_portable = h;
    decrement_ttl(zero.data());
    decrement_ttl_portable(zero_portable.data());
    CHECK(zero == recomputed(h));
    CHECK(zero_portable == zero);
    CHECK(stored_checksum(zero.data()) == 0x0000);
    // The same header with -0 (0xffff) where the full sum says +0 (0x0000):
    // the 20-byte check takes it, and its decrement is the full recompute's.
    auto minus_zero = zero;
    minus_zero[10] = minus_zero[11] = 0xff;
    REQUIRE(ipv4_header20_checksum_ok(minus_zero.data()));
    auto after = minus_zero, after_portable = minus_zero;
    decrement_ttl(after.data());
    decrement_ttl_portable(after_portable.data());
    CHECK(after_portable == after);
    CHECK(ipv4_header_checksum(after.data(), after.size()) == 0);
    CHECK(after[8] == minus_zero[8] - 1);
    CHECK(stored_checksum(after.data()) == 0x0100);
}

TEST_CASE("ip checksum: decrement_ttl touches only the TTL and the checksum", "[l3][checksum]") {
    std::mt19937 rng(7);
    const auto h = random_header(rng, 15, 200);
    auto after = h;
    decrement_ttl(after.data());
    for (size_t i = 0; i < h.size(); ++i)
        if (i != 8 && i != 10 && i != 11) CHECK(after[i] == h[i]);
    CHECK(after[8] == 199);
    decrement_ttl(after.data());  // twice in a row stays valid
    CHECK(after[8] == 198);
    CHECK(ipv4_header_checksum(after.data(), after.size()) == 0);
}

namespace {

// Sets the identification so that the header's own checksum is 0x0000.
bool steer_before(std::vector<uint8_t>& h) {
    for (uint32_t id = 0; id <= 0xffff; ++id) {
        h[4] = uint8_t(id >> 8);
        h[5] = uint8_t(id);
        ipv4_store_checksum(h.data(), h.size());
        if (stored_checksum(h.data()) == 0x0000) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("ip checksum: a checksum that becomes 0x0000 stays 0x0000, never 0xffff",
          "[l3][checksum]") {
    std::mt19937 rng(1624);
    for (unsigned ihl = 5; ihl <= 15; ++ihl) {
        auto h = random_header(rng, ihl, uint8_t(2 + rng() % 254));
        REQUIRE(steer_to(h, 0x0000));
        auto incremental = h;
        decrement_ttl(incremental.data());
        CHECK(stored_checksum(incremental.data()) == 0x0000);
        CHECK(incremental == recomputed(h));
        CHECK(rfc1141_update(h.data()) == 0xffff);  // the case RFC 1624 is about
    }
}

TEST_CASE("ip checksum: a checksum of 0x0000, or of 0xffff in its place, updates right",
          "[l3][checksum]") {
    std::mt19937 rng(1071);
    for (unsigned ihl = 5; ihl <= 15; ++ihl) {
        auto h = random_header(rng, ihl, uint8_t(2 + rng() % 254));
        REQUIRE(steer_before(h));
        auto incremental = h;
        decrement_ttl(incremental.data());
        CHECK(incremental == recomputed(h));

        // The other zero: the header still verifies, and the update comes
        // out where the recompute does.
        h[10] = h[11] = 0xff;
        CHECK(ipv4_header_checksum(h.data(), h.size()) == 0);
        incremental = h;
        decrement_ttl(incremental.data());
        CHECK(incremental == recomputed(h));
    }
}

TEST_CASE("ip checksum: 0xfeff is the one checksum a decrement takes to 0x0000", "[l3][checksum]") {
    // ~m + m' is 0xfeff whatever the protocol byte, so the sum ~HC + 0xfeff
    // reaches -0 (0xffff) only from ~HC = 0x0100.
    std::mt19937 rng(3);
    auto h = random_header(rng, 5, 64);
    REQUIRE(steer_to(h, 0x0000));
    CHECK(stored_checksum(h.data()) == 0xfeff);
    decrement_ttl(h.data());
    CHECK(stored_checksum(h.data()) == 0x0000);
    CHECK(ipv4_header_checksum(h.data(), h.size()) == 0);
}

TEST_CASE("ip checksum: decrement_hop_limit changes only the hop limit", "[l3][checksum]") {
    std::array<uint8_t, 40> h{};
    for (size_t i = 0; i < h.size(); ++i) h[i] = uint8_t(i * 7);
    h[0] = 0x60;
    h[7] = 64;
    const auto before = h;
    decrement_hop_limit(h.data());
    CHECK(h[7] == 63);
    h[7] = 64;
    CHECK(h == before);
}

namespace {

// RFC 1071 over one buffer, zero-padded, summed in 64 bits: the checksum
// the chained sums must agree with.
uint16_t whole_buffer_checksum(std::vector<uint8_t> b) {
    if (b.size() % 2) b.push_back(0);
    uint64_t sum = 0;
    for (size_t i = 0; i < b.size(); i += 2) sum += uint64_t(b[i]) << 8 | b[i + 1];
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(~sum);
}

}  // namespace

TEST_CASE("ip checksum: RFC 1071's worked example", "[l3][checksum][l3-control]") {
    const std::array<uint8_t, 8> b = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    CHECK(checksum_add(0, b) == 0xddf2);
    CHECK(checksum_finish(0xddf2) == 0x220d);
    CHECK(icmp_checksum(b) == 0x220d);
    CHECK(icmp_checksum({}) == 0xffff);
    const std::array<uint8_t, 1> odd = {0xab};  // summed as 0xab00
    CHECK(icmp_checksum(odd) == uint16_t(~0xab00));
}

TEST_CASE("ip checksum: pieces chained at even offsets sum as the whole, odd lengths too",
          "[l3][checksum][l3-control]") {
    std::mt19937 rng(4443);
    for (int i = 0; i < 2000; ++i) {
        std::vector<uint8_t> b(rng() % 1600);
        for (auto& x : b) x = uint8_t(rng());
        if (i % 7 == 0) std::fill(b.begin(), b.end(), 0xff);  // the most carries
        const size_t split = b.empty() ? 0 : (rng() % b.size()) & ~size_t(1);
        const std::span<const uint8_t> all(b);
        const uint32_t chained =
            checksum_add(checksum_add(0, all.first(split)), all.subspan(split));
        CAPTURE(b.size(), split);
        CHECK(checksum_finish(chained) == whole_buffer_checksum(b));
        CHECK(icmp_checksum(b) == whole_buffer_checksum(b));
        CHECK(chained <= 0xffff);
    }
    // 70000 bytes of 0xff: more words than a 32-bit sum of 0xffff can take unfolded.
    const std::vector<uint8_t> big(70000, 0xff);
    CHECK(icmp_checksum(big) == whole_buffer_checksum(big));
}

TEST_CASE("ip checksum: ICMPv6 sums the RFC 8200 pseudo-header", "[l3][checksum][l3-control]") {
    std::mt19937 rng(8200);
    for (int i = 0; i < 500; ++i) {
        std::array<uint8_t, 16> src, dst;
        for (auto& x : src) x = uint8_t(rng());
        for (auto& x : dst) x = uint8_t(rng());
        std::vector<uint8_t> message(4 + rng() % 1300);
        for (auto& x : message) x = uint8_t(rng());
        message[2] = message[3] = 0;
        const auto len = uint32_t(message.size());
        std::vector<uint8_t> whole(src.begin(), src.end());
        whole.insert(whole.end(), dst.begin(), dst.end());
        whole.insert(whole.end(), {uint8_t(len >> 24), uint8_t(len >> 16), uint8_t(len >> 8),
                                   uint8_t(len), 0, 0, 0, 58});
        whole.insert(whole.end(), message.begin(), message.end());
        const uint16_t sum = icmpv6_checksum(src, dst, message);
        CAPTURE(message.size());
        CHECK(sum == whole_buffer_checksum(whole));
        message[2] = uint8_t(sum >> 8);
        message[3] = uint8_t(sum);
        CHECK(icmpv6_checksum(src, dst, message) == 0);  // as a receiver checks it
    }
}
