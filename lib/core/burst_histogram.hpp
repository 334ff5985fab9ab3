// Buckets for the rx burst size histogram: power-of-two ranges, so bursts of
// 1, 2-3, 4-7, ..., 256-511 land in 10 buckets whatever the configured burst.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pmdfwd {

constexpr size_t kBurstBuckets = 10;

constexpr size_t burst_bucket(uint32_t burst_size) {
    const size_t b = size_t(std::bit_width(burst_size)) - 1;  // burst_size >= 1
    return b < kBurstBuckets ? b : kBurstBuckets - 1;
}

inline std::string burst_bucket_name(size_t bucket) {
    const uint32_t lo = 1u << bucket;
    const uint32_t hi = (bucket + 1 == kBurstBuckets) ? 0 : (2u << bucket) - 1;
    if (lo == hi || bucket == 0) return "burst_" + std::to_string(lo);
    if (hi == 0) return "burst_" + std::to_string(lo) + "_up";
    return "burst_" + std::to_string(lo) + "_" + std::to_string(hi);
}

}  // namespace pmdfwd
