// A log-linear histogram of TSC intervals with one writer: each power of two
// is split into 4 buckets, so a percentile is known to within 25% (a log2
// histogram only to within 100%), and recording is a count-leading-zeros, a
// shift and a few stores to lines only the writer touches. Readers on any
// thread see whole values. Cycles, not nanoseconds: the conversion is paid
// by the reader, once.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>

namespace pmdfwd {

constexpr unsigned kTscSubBuckets = 4;               // per power of two
constexpr size_t kTscBuckets = 48 * kTscSubBuckets;  // up to 2^49 cycles: hours

// Bucket i < 4 holds the value i; above, bucket 4(b-1)+s holds
// [(4+s) 2^(b-2), (5+s) 2^(b-2)) for the value's top bit b.
inline size_t tsc_bucket(uint64_t cycles) {
    if (cycles < kTscSubBuckets) return size_t(cycles);
    const unsigned top = unsigned(63 - __builtin_clzll(cycles));
    const size_t i = (top - 1) * kTscSubBuckets + ((cycles >> (top - 2)) & (kTscSubBuckets - 1));
    return i < kTscBuckets ? i : kTscBuckets - 1;
}
uint64_t tsc_bucket_low(size_t i);   // smallest value of bucket i
uint64_t tsc_bucket_high(size_t i);  // one past its largest

struct TscSnapshot {
    std::array<uint64_t, kTscBuckets> buckets{};
    uint64_t count = 0, sum = 0;
    uint64_t min = std::numeric_limits<uint64_t>::max(), max = 0;

    // The upper edge of the bucket holding the p-quantile (0 < p <= 1),
    // clamped to [min, max]; 0 when empty.
    uint64_t percentile(double p) const;
    uint64_t mean() const { return count ? sum / count : 0; }
    // Counts since `base` (an earlier snapshot of the same histogram). Its
    // min and max are those since start when they fall in the first and last
    // buckets that grew, else the edges of those buckets.
    TscSnapshot minus(const TscSnapshot& base) const;
};

class TscHistogram {
  public:
    // `weight` values of `cycles` each: a burst's residence time is every
    // packet's in it.
    void record(uint64_t cycles, uint64_t weight = 1) {
        bump(buckets_[tsc_bucket(cycles)], weight);
        bump(count_, weight);
        bump(sum_, cycles * weight);
        if (cycles < min_.load(std::memory_order_relaxed))
            min_.store(cycles, std::memory_order_relaxed);
        if (cycles > max_.load(std::memory_order_relaxed))
            max_.store(cycles, std::memory_order_relaxed);
    }
    TscSnapshot read() const;

  private:
    static void bump(std::atomic<uint64_t>& c, uint64_t n) {
        c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    std::array<std::atomic<uint64_t>, kTscBuckets> buckets_{};
    std::atomic<uint64_t> count_{0}, sum_{0};
    std::atomic<uint64_t> min_{std::numeric_limits<uint64_t>::max()}, max_{0};
};

// The figures pmdctl and pmdgen show, in nanoseconds.
struct LatencySummary {
    uint64_t count = 0;
    double min_ns = 0, avg_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
};
LatencySummary summarize(const TscSnapshot& s, uint64_t tsc_hz);

}  // namespace pmdfwd
