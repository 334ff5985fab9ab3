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
    CHECK(kBurstBucketTable[0].key == "burst_1");
    CHECK(kBurstBucketTable[1].key == "burst_2_3");
    CHECK(kBurstBucketTable[2].key == "burst_4_7");
    CHECK(kBurstBucketTable[5].key == "burst_32_63");
    CHECK(kBurstBucketTable[8].key == "burst_256_511");
    CHECK(kBurstBucketTable[9].key == "burst_512_up");
}
