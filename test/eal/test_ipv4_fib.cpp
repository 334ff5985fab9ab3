// The router's IPv4 table against a brute-force reference: random adds,
// changes and deletes of every length from /0 to /32 over a small address
// range, every address of it looked up after each step; groups made, folded
// and reused, and never reused while a reader may still hold them.
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "ipv4_fib.hpp"
#include "rcu_reader.hpp"

using namespace pmdfwd;

namespace {

// 10.0.0.0/20: sixteen /24s, every address checked.
constexpr uint32_t kRegion = 0x0a000000, kRegionBits = 12, kRegionSize = 1u << kRegionBits;

uint32_t mask_of(uint8_t depth) { return depth == 0 ? 0 : ~uint32_t(0) << (32 - depth); }

// Longest match by painting, shortest prefix first.
std::vector<uint32_t> reference(const std::map<std::pair<uint32_t, uint8_t>, uint32_t>& routes) {
    std::vector<std::pair<std::pair<uint8_t, uint32_t>, uint32_t>> by_depth;
    for (const auto& [key, hop] : routes) by_depth.push_back({{key.second, key.first}, hop});
    std::sort(by_depth.begin(), by_depth.end());
    std::vector<uint32_t> hops(kRegionSize, 0);
    for (const auto& [key, hop] : by_depth) {
        const auto [depth, ip] = key;
        const uint64_t first = ip, last = uint64_t(ip) + (uint64_t(1) << (32 - depth));
        for (uint64_t a = std::max<uint64_t>(first, kRegion);
             a < std::min<uint64_t>(last, kRegion + kRegionSize); ++a)
            hops[a - kRegion] = hop;
    }
    return hops;
}

std::unique_ptr<Ipv4Fib> make_fib(const char* name, uint32_t routes, uint32_t groups,
                                  rte_rcu_qsbr* rcu = nullptr) {
    auto made = Ipv4Fib::create(name, routes, groups, rcu, SOCKET_ID_ANY);
    if (!made) FAIL(made.error().message);
    return std::move(made.value());
}

}  // namespace

TEST_CASE("ipv4 fib: random adds, changes and deletes match longest-prefix match", "[l3][fib4]") {
    auto fib = make_fib("fib4_random", 4096, 64);
    std::mt19937 rng(28);
    std::map<std::pair<uint32_t, uint8_t>, uint32_t> routes;
    size_t mismatched_steps = 0;
    for (int step = 0; step < 3000; ++step) {
        // Depths weighted to the region: most between /18 and /32, a few
        // shorter (down to /0) that cover all of it.
        const uint8_t depth = rng() % 8 == 0 ? uint8_t(rng() % 20) : uint8_t(18 + rng() % 15);
        const uint32_t ip = (kRegion | (rng() & (kRegionSize - 1))) & mask_of(depth);
        const auto key = std::make_pair(ip, depth);
        if (routes.contains(key) && rng() % 3 != 0) {
            REQUIRE(fib->remove(ip, depth) == 0);
            routes.erase(key);
        } else {
            const uint32_t hop = 1 + rng() % 5;  // few hops: neighbours often agree
            REQUIRE(fib->add(ip, depth, hop) == 0);
            routes[key] = hop;
        }
        if (step % 10 != 0 && step < 2990) continue;
        const std::vector<uint32_t> want = reference(routes);
        size_t wrong = 0;
        for (uint32_t a = 0; a < kRegionSize; ++a) wrong += fib->lookup(kRegion + a) != want[a];
        // Every prefix drawn lies in 10/8 or is /0: only /0 reaches 192.0.0.1.
        std::map<std::pair<uint32_t, uint8_t>, uint32_t> wide;
        for (const auto& [k, hop] : routes)
            if (k.second == 0) wide[k] = hop;
        wrong += fib->lookup(0xc0000001) != (wide.empty() ? 0 : wide.begin()->second);
        if (wrong) {
            UNSCOPED_INFO("step " << step << ": " << wrong << " addresses differ");
            ++mismatched_steps;
        }
        CHECK(fib->routes() == routes.size());
    }
    CHECK(mismatched_steps == 0);
    // Everything removed: the table is empty again and every group free.
    for (const auto& [key, hop] : routes) REQUIRE(fib->remove(key.first, key.second) == 0);
    for (uint32_t a = 0; a < kRegionSize; a += 7) CHECK(fib->lookup(kRegion + a) == 0);
    fib->reclaim();
    CHECK(fib->groups_in_use() == 0);
    CHECK(fib->routes() == 0);
}

TEST_CASE("ipv4 fib: /0, /32, refusals and limits", "[l3][fib4]") {
    auto fib = make_fib("fib4_edges", 8, 2);
    CHECK(fib->add(0, 0, 9) == 0);
    CHECK(fib->lookup(0) == 9);
    CHECK(fib->lookup(0xffffffff) == 9);
    CHECK(fib->add(0x0a000001, 32, 3) == 0);
    CHECK(fib->lookup(0x0a000001) == 3);
    CHECK(fib->lookup(0x0a000002) == 9);
    CHECK(fib->groups_in_use() == 1);
    CHECK(fib->add(0x0a000000, 33, 3) == -EINVAL);
    CHECK(fib->remove(0x0b000000, 8) == -ENOENT);
    // A second /24 with a longer prefix takes the second group; a third is
    // refused before anything changes, and one more in a held /24 is not.
    CHECK(fib->add(0x0b000080, 25, 4) == 0);
    CHECK(fib->add(0x0c000000, 26, 5) == -ENOSPC);
    CHECK(fib->lookup(0x0c000000) == 9);
    CHECK(fib->add(0x0b000000, 28, 6) == 0);
    CHECK(fib->routes() == 4);
    // Host bits are ignored, as the kernel's netlink never sends them.
    CHECK(fib->add(0x0d0000ff, 24, 7) == 0);
    CHECK(fib->lookup(0x0d000001) == 7);
    CHECK(fib->remove(0x0d000012, 24) == 0);
    // Routes used up.
    for (uint32_t i = 0; i < 4; ++i) CHECK(fib->add(0x14000000 + (i << 16), 16, 1) == 0);
    CHECK(fib->add(0x15000000, 16, 1) == -ENOSPC);
    // The default removed: a miss again.
    CHECK(fib->remove(0, 0) == 0);
    CHECK(fib->lookup(0xffffffff) == 0);
    CHECK(fib->lookup(0x0b000081) == 4);
}

TEST_CASE("ipv4 fib: a folded group is reused only after every reader's quiescent point",
          "[l3][fib4][rcu]") {
    RcuReader reader("fib4_rcu");
    auto fib = make_fib("fib4_grace", 16, 1, reader.rcu);
    const uint32_t block = 0x0a0000;
    const auto group_now = [&] { return fib->tables().tbl24[block] >> 1; };
    REQUIRE(fib->add(0x0a000000, 24, 1) == 0);
    // A /25 with another hop makes a group; removing it folds the group.
    // While the reader holds on, every fold leaves its group retired and
    // the next /25 gets a fresh one.
    std::set<uint32_t> seen;
    for (int i = 0; i < 100; ++i) {
        REQUIRE(fib->add(0x0a000080, 25, 2) == 0);
        REQUIRE((fib->tables().tbl24[block] & kIpv4Extended) != 0);
        CHECK(seen.insert(group_now()).second);
        CHECK(fib->lookup(0x0a000081) == 2);
        CHECK(fib->lookup(0x0a000001) == 1);
        REQUIRE(fib->remove(0x0a000080, 25) == 0);
        CHECK(fib->tables().tbl24[block] == (1u << 1));  // folded back
    }
    CHECK(fib->groups_in_use() == 100);
    // The reader moves on: the groups come back and one is reused.
    reader.quiescent();
    fib->reclaim();
    CHECK(fib->groups_in_use() == 0);
    REQUIRE(fib->add(0x0a000080, 25, 2) == 0);
    CHECK(seen.contains(group_now()));
    fib.reset();
}
