// The workers' burst size buckets (burst_histogram.hpp): powers of two up to
// a last bucket for 512 and more, each with its counter's name.
#include <catch2/catch.hpp>

#include "burst_histogram.hpp"

using namespace pmdfwd;

TEST_CASE("burst histogram: power-of-two buckets", "[small][burst]") {
    static_assert(burst_bucket(1) == 0);
    static_assert(burst_bucket(512) == kBurstBuckets - 1);
    CHECK(kBurstBuckets == 10);
    const struct {
        uint32_t burst;
        size_t bucket;
    } cases[] = {{1, 0},   {2, 1},   {3, 1},   {4, 2},   {7, 2},    {8, 3},
                 {31, 4},  {32, 5},  {33, 5},  {63, 5},  {64, 6},   {255, 7},
                 {256, 8}, {511, 8}, {512, 9}, {513, 9}, {4096, 9}, {UINT32_MAX, 9}};
    for (const auto& c : cases) {
        INFO(c.burst);
        CHECK(burst_bucket(c.burst) == c.bucket);
    }
    CHECK(burst_bucket_name(0) == "burst_1");
    CHECK(burst_bucket_name(1) == "burst_2_3");
    CHECK(burst_bucket_name(2) == "burst_4_7");
    CHECK(burst_bucket_name(5) == "burst_32_63");
    CHECK(burst_bucket_name(8) == "burst_256_511");
    CHECK(burst_bucket_name(9) == "burst_512_up");
}
