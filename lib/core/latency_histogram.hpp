// A log2 histogram of latencies in nanoseconds (the shape of bpftrace's hist):
// bucket i counts [2^i, 2^(i+1)) ns, bucket 0 also 0 and 1. Writers are
// serialised by their caller (the log channel's lock); readers on any thread
// see whole values. Pure.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace pmdfwd {

constexpr size_t kLatencyBuckets = 32;

inline size_t latency_bucket(uint64_t ns) {
    if (ns < 2) return 0;
    const size_t b = size_t(63 - __builtin_clzll(ns));
    return b < kLatencyBuckets ? b : kLatencyBuckets - 1;
}

struct LatencySnapshot {
    std::array<uint64_t, kLatencyBuckets> buckets{};
    uint64_t count = 0, sum_ns = 0, max_ns = 0;

    // Upper edge of the bucket holding the p-quantile (0 < p <= 1), never
    // above the largest value seen: a log2 histogram knows no better.
    uint64_t percentile_ns(double p) const;
    // "[lo, hi) count |@@@@|" lines for the non-empty range, bpftrace style.
    std::vector<std::string> render(size_t bar_width = 40) const;
};

class LatencyHistogram {
  public:
    void record(uint64_t ns) {
        bump(buckets_[latency_bucket(ns)], 1);
        bump(count_, 1);
        bump(sum_ns_, ns);
        if (ns > max_ns_.load(std::memory_order_relaxed))
            max_ns_.store(ns, std::memory_order_relaxed);
    }
    LatencySnapshot read() const;

  private:
    static void bump(std::atomic<uint64_t>& c, uint64_t n) {
        c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    std::array<std::atomic<uint64_t>, kLatencyBuckets> buckets_{};
    std::atomic<uint64_t> count_{0}, sum_ns_{0}, max_ns_{0};
};

}  // namespace pmdfwd
