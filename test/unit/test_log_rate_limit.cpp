// Warnings rate limited (log_rate_limit.hpp): a burst, then one line a
// period, and every suppressed line counted for the summary.
#include <catch2/catch.hpp>
#include <cstdint>

#include "log_rate_limit.hpp"

using namespace pmdfwd;

TEST_CASE("LogRateLimit: a burst, then one line a period, the rest counted", "[log]") {
    constexpr uint64_t kSecond = 1000000000;
    LogRateLimit rl(kSecond, 3);
    uint64_t held = 99;
    const uint64_t t0 = 5 * kSecond;
    CHECK(rl.allow(t0, held));
    CHECK(held == 0);
    CHECK(rl.allow(t0 + 1, held));
    CHECK(rl.allow(t0 + 2, held));
    for (int i = 0; i < 10; ++i) CHECK_FALSE(rl.allow(t0 + 3 + i, held));
    CHECK(rl.held_back_total() == 10);
    CHECK(rl.take_summary(t0 + 100) == 0);  // still limited: nothing to sum up yet
    // One period later one line passes and tells of the ten held back.
    CHECK(rl.allow(t0 + kSecond, held));
    CHECK(held == 10);
    CHECK_FALSE(rl.allow(t0 + kSecond + 1, held));
    // The storm is over: the summary takes the one held back since.
    CHECK(rl.take_summary(t0 + 3 * kSecond) == 1);
    CHECK(rl.take_summary(t0 + 3 * kSecond) == 0);
    // A long quiet refills the burst, not more.
    uint64_t passed = 0;
    for (int i = 0; i < 10; ++i) passed += rl.allow(t0 + 100 * kSecond, held);
    CHECK(passed == 3);
    CHECK(rl.held_back_total() == 11 + 7);
}
