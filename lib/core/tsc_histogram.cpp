// Reading, percentiles and differences of TscHistogram (see tsc_histogram.hpp).
#include "tsc_histogram.hpp"

#include <algorithm>

namespace pmdfwd {

uint64_t tsc_bucket_low(size_t i) {
    if (i < kTscSubBuckets) return i;
    const size_t top = i / kTscSubBuckets + 1, sub = i % kTscSubBuckets;
    return uint64_t(kTscSubBuckets + sub) << (top - 2);
}

uint64_t tsc_bucket_high(size_t i) {
    if (i < kTscSubBuckets) return i + 1;
    const size_t top = i / kTscSubBuckets + 1, sub = i % kTscSubBuckets;
    return uint64_t(kTscSubBuckets + sub + 1) << (top - 2);
}

TscSnapshot TscHistogram::read() const {
    TscSnapshot s;
    for (size_t i = 0; i < kTscBuckets; ++i)
        s.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
    s.count = count_.load(std::memory_order_relaxed);
    s.sum = sum_.load(std::memory_order_relaxed);
    s.min = min_.load(std::memory_order_relaxed);
    s.max = max_.load(std::memory_order_relaxed);
    return s;
}

uint64_t TscSnapshot::percentile(double p) const {
    uint64_t total = 0;
    for (const auto b : buckets) total += b;
    if (total == 0) return 0;
    const auto rank = std::max<uint64_t>(1, uint64_t(p * double(total) + 0.999999));
    uint64_t seen = 0;
    for (size_t i = 0; i < kTscBuckets; ++i) {
        seen += buckets[i];
        if (seen >= rank) return std::clamp(tsc_bucket_high(i) - 1, std::min(min, max), max);
    }
    return max;
}

TscSnapshot TscSnapshot::minus(const TscSnapshot& base) const {
    TscSnapshot d;
    d.count = count - base.count;
    d.sum = sum - base.sum;
    size_t first = kTscBuckets, last = 0;
    for (size_t i = 0; i < kTscBuckets; ++i) {
        d.buckets[i] = buckets[i] - base.buckets[i];
        if (d.buckets[i] == 0) continue;
        first = std::min(first, i);
        last = i;
    }
    if (first == kTscBuckets) return TscSnapshot{};  // nothing since base (count may run ahead)
    d.min = tsc_bucket(min) == first ? min : tsc_bucket_low(first);
    d.max = tsc_bucket(max) == last ? max : tsc_bucket_high(last) - 1;
    return d;
}

LatencySummary summarize(const TscSnapshot& s, uint64_t tsc_hz) {
    LatencySummary out;
    out.count = s.count;
    if (s.count == 0 || tsc_hz == 0) return out;
    const double ns_per_cycle = 1e9 / double(tsc_hz);
    // A read racing the first record may see its count before its min.
    out.min_ns = double(std::min(s.min, s.max)) * ns_per_cycle;
    out.avg_ns = double(s.sum) / double(s.count) * ns_per_cycle;
    out.p50_ns = double(s.percentile(0.50)) * ns_per_cycle;
    out.p90_ns = double(s.percentile(0.90)) * ns_per_cycle;
    out.p99_ns = double(s.percentile(0.99)) * ns_per_cycle;
    out.p999_ns = double(s.percentile(0.999)) * ns_per_cycle;
    out.max_ns = double(s.max) * ns_per_cycle;
    return out;
}

}  // namespace pmdfwd
