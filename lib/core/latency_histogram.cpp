// Percentiles and text of a log2 latency histogram (see latency_histogram.hpp).
#include "latency_histogram.hpp"

#include <algorithm>

namespace pmdfwd {

LatencySnapshot LatencyHistogram::read() const {
    LatencySnapshot s;
    for (size_t i = 0; i < kLatencyBuckets; ++i)
        s.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
    s.count = count_.load(std::memory_order_relaxed);
    s.sum_ns = sum_ns_.load(std::memory_order_relaxed);
    s.max_ns = max_ns_.load(std::memory_order_relaxed);
    return s;
}

uint64_t LatencySnapshot::percentile_ns(double p) const {
    uint64_t total = 0;
    for (const auto b : buckets) total += b;
    if (total == 0) return 0;
    const auto rank = uint64_t(p * double(total) + 0.999999);
    uint64_t seen = 0;
    for (size_t i = 0; i < kLatencyBuckets; ++i) {
        seen += buckets[i];
        if (seen >= rank) return std::min((uint64_t(2) << i) - 1, max_ns);
    }
    return max_ns;
}

std::vector<std::string> LatencySnapshot::render(size_t bar_width) const {
    std::vector<std::string> lines;
    size_t first = kLatencyBuckets, last = 0;
    uint64_t most = 0;
    for (size_t i = 0; i < kLatencyBuckets; ++i)
        if (buckets[i]) {
            first = std::min(first, i);
            last = i;
            most = std::max(most, buckets[i]);
        }
    for (size_t i = first; i <= last && first < kLatencyBuckets; ++i) {
        const uint64_t lo = i == 0 ? 0 : uint64_t(1) << i, hi = uint64_t(2) << i;
        const auto bar = size_t(buckets[i] * bar_width / most);
        lines.push_back("[" + std::to_string(lo) + ", " + std::to_string(hi) + ") " +
                        std::to_string(buckets[i]) + " |" + std::string(bar, '@') +
                        std::string(bar_width - bar, ' ') + "|");
    }
    return lines;
}

}  // namespace pmdfwd
