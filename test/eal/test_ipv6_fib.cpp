// The router's IPv6 table against a brute-force reference6: random adds,
// changes and deletes of every length from /16 to /128 over a region of
// 1024 addresses whose varying bits fall in the first level and in groups
// from byte 3 to byte 15, every address of it looked up after each step;
// groups made, folded and reused, never reused while a reader may still
// hold them, and a change the groups cannot take refused whole.
#include <array>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "ipv6_fib.hpp"
#include "rcu_reader.hpp"

using namespace pmdfwd;

namespace {

using Addr6 = std::array<uint8_t, 16>;

// 2001:db8::/32 with ten bits set or not: one in the first level's index,
// the rest spread over the groups, the last in the last byte.
constexpr Addr6 kBase{0x20, 0x01, 0x0d, 0xb8};
constexpr std::array<unsigned, 10> kVaryingBits{23, 26, 31, 38, 47, 60, 75, 100, 120, 127};
constexpr unsigned kRegion6Size = 1u << kVaryingBits.size();

Addr6 region_address(unsigned n) {
    Addr6 a = kBase;
    for (unsigned k = 0; k < kVaryingBits.size(); ++k)
        if (n >> k & 1) a[kVaryingBits[k] / 8] |= uint8_t(0x80 >> (kVaryingBits[k] % 8));
    return a;
}

Addr6 masked6(Addr6 a, unsigned depth) {
    for (unsigned bit = depth; bit < 128; ++bit) a[bit / 8] &= uint8_t(~(0x80 >> (bit % 8)));
    return a;
}

using Routes6 = std::map<std::pair<Addr6, uint8_t>, uint32_t>;

// The longest prefix of `routes` that holds `a`, by trying each length.
uint32_t reference6(const Routes6& routes, const std::set<uint8_t>& depths, const Addr6& a) {
    for (auto d = depths.rbegin(); d != depths.rend(); ++d)
        if (auto it = routes.find({masked6(a, *d), *d}); it != routes.end()) return it->second;
    return 0;
}

std::unique_ptr<Ipv6Fib> make_fib6(const char* name, uint32_t routes, uint32_t groups,
                                   rte_rcu_qsbr* rcu = nullptr) {
    auto made = Ipv6Fib::create(name, routes, groups, rcu, SOCKET_ID_ANY);
    if (!made) FAIL(made.error().message);
    return std::move(made.value());
}

Addr6 addr6(std::initializer_list<uint8_t> head) {
    Addr6 a{};
    std::copy(head.begin(), head.end(), a.begin());
    return a;
}

}  // namespace

TEST_CASE("ipv6 fib: random adds, changes and deletes match longest-prefix match", "[l3][fib6]") {
    // With groups to spare, and with so few that many adds are refused:
    // a refused add changes nothing, and no delete is ever refused (one
    // may need a group, where it splits a folded one).
    const uint32_t groups = GENERATE(4096u, 40u);
    auto fib = make_fib6(groups > 100 ? "fib6_random" : "fib6_tight", 4096, groups);
    size_t refused = 0;
    std::mt19937 rng(61);
    Routes6 routes;
    std::vector<Addr6> region;
    for (unsigned n = 0; n < kRegion6Size; ++n) region.push_back(region_address(n));
    size_t mismatched_steps = 0;
    for (int step = 0; step < 2000; ++step) {
        // Lengths at the varying bits and either side of them (where a
        // prefix splits the region), and a few short ones that cover all
        // of it.
        uint8_t depth;
        if (rng() % 10 == 0) {
            depth = uint8_t(16 + rng() % 9);
        } else {
            const unsigned bit = kVaryingBits[rng() % kVaryingBits.size()];
            depth = uint8_t(std::min<unsigned>(128, bit + rng() % 3));
        }
        const Addr6 ip = masked6(region[rng() % kRegion6Size], depth);
        const auto key = std::make_pair(ip, depth);
        if (routes.contains(key) && rng() % 3 != 0) {
            REQUIRE(fib->remove(ip.data(), depth) == 0);
            routes.erase(key);
        } else {
            const uint32_t hop = 1 + rng() % 5;  // few hops: neighbours often agree
            const int rc = fib->add(ip.data(), depth, hop);
            if (rc == -ENOSPC) {
                ++refused;
            } else {
                REQUIRE(rc == 0);
                routes[key] = hop;
            }
        }
        if (step % 10 != 0 && step < 1990) continue;
        std::set<uint8_t> depths;
        for (const auto& [k, hop] : routes) depths.insert(k.second);
        size_t wrong = 0;
        for (const Addr6& a : region)
            wrong += fib->lookup(a.data()) != reference6(routes, depths, a);
        // Outside 2001:db8::/32 only the short prefixes reach.
        const Addr6 outside = addr6({0x20, 0x01, 0x0d, 0xb9, 1});
        wrong += fib->lookup(outside.data()) != reference6(routes, depths, outside);
        if (wrong) {
            UNSCOPED_INFO("step " << step << ": " << wrong << " addresses differ");
            ++mismatched_steps;
        }
        CHECK(fib->routes() == routes.size());
        // No reader: every retired group comes back at once, and the ones
        // in use stay within what the path nodes allow.
        fib->reclaim();
        CHECK(fib->groups_in_use() <= groups);
    }
    CHECK(mismatched_steps == 0);
    if (groups < 100) CHECK(refused > 100);
    // Everything removed: the table is empty again and every group free.
    for (const auto& [key, hop] : routes) REQUIRE(fib->remove(key.first.data(), key.second) == 0);
    for (const Addr6& a : region) CHECK(fib->lookup(a.data()) == 0);
    fib->reclaim();
    CHECK(fib->groups_in_use() == 0);
    CHECK(fib->routes() == 0);
}

TEST_CASE("ipv6 fib: /0, /128, refusals and limits", "[l3][fib6]") {
    // Thirteen groups: a /128 takes all of them (one a byte past the 24th
    // bit), a /48 three.
    auto fib = make_fib6("fib6_edges", 8, 13);
    const Addr6 host = addr6({0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42});
    CHECK(fib->add(Addr6{}.data(), 0, 9) == 0);
    CHECK(fib->lookup(host.data()) == 9);
    const Addr6 all_ones = masked6(Addr6{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
                                   128);
    CHECK(fib->lookup(all_ones.data()) == 9);
    CHECK(fib->add(host.data(), 128, 3) == 0);
    CHECK(fib->groups_in_use() == 13);
    CHECK(fib->lookup(host.data()) == 3);
    Addr6 next = host;
    next[15]++;
    CHECK(fib->lookup(next.data()) == 9);
    // A /48 elsewhere needs three more: refused, and nothing changed.
    const Addr6 other = addr6({0x20, 0x01, 0x0d, 0xb9, 0, 7});
    CHECK(fib->add(other.data(), 48, 4) == -ENOSPC);
    CHECK(fib->lookup(other.data()) == 9);
    CHECK(fib->routes() == 2);
    CHECK(fib->groups_in_use() == 13);
    // One that shares the host's groups takes none.
    CHECK(fib->add(masked6(host, 64).data(), 64, 5) == 0);
    CHECK(fib->lookup(next.data()) == 5);
    CHECK(fib->lookup(host.data()) == 3);
    CHECK(fib->add(host.data(), 129, 3) == -EINVAL);
    CHECK(fib->add(host.data(), 64, 1u << 30) == -EINVAL);
    CHECK(fib->remove(other.data(), 48) == -ENOENT);
    // Host bits are ignored, as the kernel's netlink never sends them.
    CHECK(fib->add(host.data(), 120, 6) == 0);
    CHECK(fib->lookup(masked6(host, 120).data()) == 6);
    CHECK(fib->lookup(host.data()) == 3);
    CHECK(fib->remove(next.data(), 120) == 0);
    CHECK(fib->lookup(masked6(host, 120).data()) == 5);
    // The host route gone, the /64 alone needs five groups.
    CHECK(fib->remove(host.data(), 128) == 0);
    fib->reclaim();
    CHECK(fib->groups_in_use() == 5);
    CHECK(fib->lookup(host.data()) == 5);
    // Twelve groups are one short of a /128: refused whole.
    auto small = make_fib6("fib6_small", 8, 12);
    CHECK(small->add(host.data(), 128, 3) == -ENOSPC);
    CHECK(small->lookup(host.data()) == 0);
    CHECK(small->groups_in_use() == 0);
    CHECK(small->routes() == 0);
    CHECK(small->add(host.data(), 127, 3) == -ENOSPC);
    CHECK(small->add(host.data(), 120, 3) == 0);
    CHECK(small->groups_in_use() == 12);
    // Routes used up.
    for (uint8_t i = 0; i < 6; ++i) CHECK(fib->add(addr6({0x30, i}).data(), 16, 1) == 0);
    CHECK(fib->add(addr6({0x31}).data(), 16, 1) == -ENOSPC);
    // The default removed: a miss again.
    CHECK(fib->remove(Addr6{}.data(), 0) == 0);
    CHECK(fib->lookup(all_ones.data()) == 0);
    CHECK(fib->lookup(host.data()) == 5);
}

TEST_CASE("ipv6 fib: a folded group is reused only after every reader's quiescent point",
          "[l3][fib6][rcu]") {
    RcuReader reader("fib6_rcu");
    auto fib = make_fib6("fib6_grace", 16, 3, reader.rcu);
    const Addr6 net = addr6({0x20, 0x01, 0x0d, 0xb8});  // /32: one group under its /24
    const Addr6 half = addr6({0x20, 0x01, 0x0d, 0xb8, 0x80});
    const uint32_t block = 0x20010d;
    const auto group_now = [&] { return fib->tables().tbl24[block]; };
    REQUIRE(fib->add(net.data(), 32, 1) == 0);
    // A /33 with another hop makes a second group; removing it folds it.
    // While the reader holds on, every fold leaves its group retired and
    // the next /33 gets a fresh one, past the three the table may hold live.
    std::set<uint32_t> seen;
    for (int i = 0; i < 100; ++i) {
        REQUIRE(fib->add(half.data(), 33, 2) == 0);
        const uint32_t first = group_now();
        REQUIRE((first & kIpv6Group) != 0);
        const uint32_t second = ipv6_group_entry(fib->tables(), first, &net[3]);
        REQUIRE((second & kIpv6Group) != 0);
        CHECK(seen.insert(second).second);
        CHECK(fib->lookup(half.data()) == 2);
        CHECK(fib->lookup(net.data()) == 1);
        REQUIRE(fib->remove(half.data(), 33) == 0);
    }
    CHECK(fib->groups_in_use() == 101);
    // The reader moves on: the groups come back and one is reused.
    reader.quiescent();
    fib->reclaim();
    CHECK(fib->groups_in_use() == 1);
    REQUIRE(fib->add(half.data(), 33, 2) == 0);
    CHECK(fib->groups_in_use() == 2);
    // A group below a group: a /41 under the /33 makes one more. Removing
    // the /41 and then the /33 folds both, one after the other, and
    // neither is reused while the reader holds on.
    const Addr6 deeper = addr6({0x20, 0x01, 0x0d, 0xb8, 0x80, 0x80});
    REQUIRE(fib->add(deeper.data(), 41, 3) == 0);
    CHECK(fib->groups_in_use() == 3);
    CHECK(fib->lookup(deeper.data()) == 3);
    CHECK(fib->lookup(half.data()) == 2);
    REQUIRE(fib->remove(deeper.data(), 41) == 0);
    REQUIRE(fib->remove(half.data(), 33) == 0);
    fib->reclaim();
    CHECK(fib->groups_in_use() == 3);  // one live, two retired
    REQUIRE(fib->add(half.data(), 33, 2) == 0);
    REQUIRE(fib->add(deeper.data(), 41, 3) == 0);
    CHECK(fib->groups_in_use() == 5);  // two fresh ones, none reused
    reader.quiescent();
    fib->reclaim();
    CHECK(fib->groups_in_use() == 3);
    fib.reset();
}
