// The one histogram of pmdfwd: durations in TSC cycles, log-linear (each
// power of two split into 4 buckets, so a percentile is known to within
// 25%), one writer. Recording is a count-leading-zeros, a shift and a few
// stores to lines only the writer touches; readers on any thread see whole
// values. Cycles, not nanoseconds: the conversion is paid by the reader, once,
// in HistogramView, which is also the wire format and what every renderer
// draws. The log channel's send time, each worker's residence time and
// pmdgen's one-way latency are all this type. Pure.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pmdfwd {

constexpr unsigned kHistogramSubBuckets = 4;                     // per power of two
constexpr size_t kHistogramBuckets = 48 * kHistogramSubBuckets;  // up to 2^49 cycles: hours
// The upper edge of the open top bucket.
constexpr uint64_t kNoUpperBound = std::numeric_limits<uint64_t>::max();

// Bucket i < 4 holds the value i; above, bucket 4(b-1)+s holds
// [(4+s) 2^(b-2), (5+s) 2^(b-2)) for the value's top bit b. The last bucket
// also holds everything above it.
inline size_t histogram_bucket(uint64_t cycles) {
    if (cycles < kHistogramSubBuckets) return size_t(cycles);
    const unsigned top = unsigned(63 - __builtin_clzll(cycles));
    const size_t i =
        (top - 1) * kHistogramSubBuckets + ((cycles >> (top - 2)) & (kHistogramSubBuckets - 1));
    return i < kHistogramBuckets ? i : kHistogramBuckets - 1;
}
uint64_t histogram_bucket_low(size_t i);   // smallest value of bucket i
uint64_t histogram_bucket_high(size_t i);  // one past its largest
// The inclusive upper edge of bucket i in ns, rounded up so that every value
// the bucket holds is at most that; kNoUpperBound for the open top bucket.
uint64_t histogram_edge_ns(size_t i, uint64_t cycles_per_s);

struct HistogramSnapshot {
    std::array<uint64_t, kHistogramBuckets> buckets{};
    uint64_t count = 0, sum = 0;
    uint64_t min = std::numeric_limits<uint64_t>::max(), max = 0;

    // The upper edge of the bucket holding the p-quantile (0 < p <= 1),
    // clamped to [min, max]; 0 when empty.
    uint64_t percentile(double p) const;
    uint64_t mean() const { return count ? sum / count : 0; }
    // Counts since `base` (an earlier snapshot of the same histogram). Its
    // min and max are those since start when they fall in the first and last
    // buckets that grew, else the edges of those buckets.
    HistogramSnapshot minus(const HistogramSnapshot& base) const;
};

class Histogram {
  public:
    // `weight` values of `cycles` each: a burst's residence time is every
    // packet's in it.
    void record(uint64_t cycles, uint64_t weight = 1) {
        bump(buckets_[histogram_bucket(cycles)], weight);
        bump(count_, weight);
        bump(sum_, cycles * weight);
        if (cycles < min_.load(std::memory_order_relaxed))
            min_.store(cycles, std::memory_order_relaxed);
        if (cycles > max_.load(std::memory_order_relaxed))
            max_.store(cycles, std::memory_order_relaxed);
    }
    HistogramSnapshot read() const;

  private:
    static void bump(std::atomic<uint64_t>& c, uint64_t n) {
        c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    std::array<std::atomic<uint64_t>, kHistogramBuckets> buckets_{};
    std::atomic<uint64_t> count_{0}, sum_{0};
    std::atomic<uint64_t> min_{std::numeric_limits<uint64_t>::max()}, max_{0};
};

// A histogram in nanoseconds, as it goes on the wire and into every
// renderer: the buckets from the first non-empty one to the last (empty ones
// between included), each with its inclusive upper edge, so that the
// cumulative count at le_ns[k] is counts[0] + ... + counts[k] (Prometheus's
// `le` buckets; +Inf is `count`). Buckets whose edges round to the same
// nanosecond are merged.
struct HistogramView {
    uint64_t count = 0;
    uint64_t sum_ns = 0;
    uint64_t min_ns = 0, max_ns = 0;  // 0 when empty
    std::vector<uint64_t> le_ns;      // strictly increasing; the last may be kNoUpperBound
    std::vector<uint64_t> counts;     // per bucket, not cumulative

    uint64_t avg_ns() const { return count ? sum_ns / count : 0; }
    // The upper edge of the bucket holding the p-quantile (0 < p <= 1),
    // clamped to [min_ns, max_ns]: the true value is at most that, and
    // within 25% of it. 0 when empty.
    uint64_t percentile_ns(double p) const;
};

// `cycles_per_s`: the TSC's rate (tsc_hz); 1000000000 for values already in ns.
HistogramView histogram_view(const HistogramSnapshot& s, uint64_t cycles_per_s);

// The percentiles every report shows, in nanoseconds (pmdgen keeps fractions).
struct LatencySummary {
    uint64_t count = 0;
    double min_ns = 0, avg_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
};
LatencySummary summarize(const HistogramSnapshot& s, uint64_t cycles_per_s);

// Bars, one line per bucket of the view, labelled by its upper edge
// ("<= 2.23us  1021 |@@@@      |"), scaled to the fullest bucket; labels
// left-aligned and counts right-aligned. Empty when the view is.
std::vector<std::string> histogram_bars(const HistogramView& v, size_t bar_width = 40);

}  // namespace pmdfwd
