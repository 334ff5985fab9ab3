// Buckets for the rx burst size histogram: power-of-two ranges, so bursts of
// 1, 2-3, 4-7, ..., 256-511 land in 10 buckets whatever the configured burst.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace pmdfwd {

constexpr size_t kBurstBuckets = 10;

constexpr size_t burst_bucket(uint32_t burst_size) {
    const size_t b = size_t(std::bit_width(burst_size)) - 1;  // burst_size >= 1
    return b < kBurstBuckets ? b : kBurstBuckets - 1;
}

// Each bucket's field in the worker record: its key, its column and label
// value, its sentence.
struct BurstBucket {
    std::string_view key;
    std::string_view column;
    std::string_view help;
};
inline constexpr BurstBucket kBurstBucketTable[] = {
    {"burst_1", "1", "polls that returned 1 packet"},
    {"burst_2_3", "2-3", "polls that returned 2 or 3 packets"},
    {"burst_4_7", "4-7", "polls that returned 4 to 7 packets"},
    {"burst_8_15", "8-15", "polls that returned 8 to 15 packets"},
    {"burst_16_31", "16-31", "polls that returned 16 to 31 packets"},
    {"burst_32_63", "32-63", "polls that returned 32 to 63 packets"},
    {"burst_64_127", "64-127", "polls that returned 64 to 127 packets"},
    {"burst_128_255", "128-255", "polls that returned 128 to 255 packets"},
    {"burst_256_511", "256-511", "polls that returned 256 to 511 packets"},
    {"burst_512_up", "512+", "polls that returned 512 packets or more"},
};
static_assert(std::size(kBurstBucketTable) == kBurstBuckets);

}  // namespace pmdfwd
