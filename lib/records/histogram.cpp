// Reading, differences, the nanosecond view and the bars of Histogram (see
// histogram.hpp).
#include "histogram.hpp"

#include <algorithm>
#include <optional>
#include <span>

#include "units.hpp"

namespace pmdfwd {

uint64_t histogram_bucket_low(size_t i) {
    if (i < kHistogramSubBuckets) return i;
    const size_t top = i / kHistogramSubBuckets + 1, sub = i % kHistogramSubBuckets;
    return uint64_t(kHistogramSubBuckets + sub) << (top - 2);
}

uint64_t histogram_bucket_high(size_t i) {
    if (i < kHistogramSubBuckets) return i + 1;
    const size_t top = i / kHistogramSubBuckets + 1, sub = i % kHistogramSubBuckets;
    return uint64_t(kHistogramSubBuckets + sub + 1) << (top - 2);
}

HistogramSnapshot Histogram::read() const {
    HistogramSnapshot s;
    for (size_t i = 0; i < kHistogramBuckets; ++i)
        s.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
    s.count = count_.load(std::memory_order_relaxed);
    s.sum = sum_.load(std::memory_order_relaxed);
    s.min = min_.load(std::memory_order_relaxed);
    s.max = max_.load(std::memory_order_relaxed);
    return s;
}

namespace {

// The bucket holding the p-quantile (0 < p <= 1) of these counts; nullopt
// when they are all 0.
std::optional<size_t> quantile_bucket(std::span<const uint64_t> counts, double p) {
    uint64_t total = 0;
    for (const auto c : counts) total += c;
    if (total == 0) return std::nullopt;
    const auto rank = std::max<uint64_t>(1, uint64_t(p * double(total) + 0.999999));
    uint64_t seen = 0;
    for (size_t i = 0; i < counts.size(); ++i)
        if ((seen += counts[i]) >= rank) return i;
    return counts.size() - 1;
}

// cycles * 1e9 / rate, rounded; 128-bit so that a sum of hours of cycles
// does not overflow on the way.
uint64_t to_ns(uint64_t cycles, uint64_t cycles_per_s) {
    const unsigned __int128 scaled = (unsigned __int128)cycles * 1000000000u + cycles_per_s / 2;
    const unsigned __int128 ns = scaled / cycles_per_s;
    return ns > kNoUpperBound ? kNoUpperBound : uint64_t(ns);
}

}  // namespace

uint64_t histogram_edge_ns(size_t i, uint64_t cycles_per_s) {
    if (i + 1 == kHistogramBuckets) return kNoUpperBound;
    const unsigned __int128 top = (unsigned __int128)(histogram_bucket_high(i) - 1) * 1000000000u;
    const unsigned __int128 ns = (top + cycles_per_s - 1) / cycles_per_s;
    return ns >= kNoUpperBound ? kNoUpperBound - 1 : uint64_t(ns);
}

uint64_t HistogramSnapshot::percentile(double p) const {
    const auto i = quantile_bucket(buckets, p);
    return i ? std::clamp(histogram_bucket_high(*i) - 1, std::min(min, max), max) : 0;
}

HistogramSnapshot HistogramSnapshot::minus(const HistogramSnapshot& base) const {
    HistogramSnapshot d;
    d.count = count - base.count;
    d.sum = sum - base.sum;
    size_t first = kHistogramBuckets, last = 0;
    for (size_t i = 0; i < kHistogramBuckets; ++i) {
        d.buckets[i] = buckets[i] - base.buckets[i];
        if (d.buckets[i] == 0) continue;
        first = std::min(first, i);
        last = i;
    }
    if (first == kHistogramBuckets) return HistogramSnapshot{};  // nothing since base
    d.min = histogram_bucket(min) == first ? min : histogram_bucket_low(first);
    d.max = histogram_bucket(max) == last ? max : histogram_bucket_high(last) - 1;
    return d;
}

HistogramView histogram_view(const HistogramSnapshot& s, uint64_t cycles_per_s) {
    HistogramView v;
    if (cycles_per_s == 0) cycles_per_s = 1;
    size_t first = kHistogramBuckets, last = 0;
    for (size_t i = 0; i < kHistogramBuckets; ++i)
        if (s.buckets[i]) {
            first = std::min(first, i);
            last = i;
        }
    if (first == kHistogramBuckets) return v;
    for (size_t i = first; i <= last; ++i) {
        const uint64_t le = histogram_edge_ns(i, cycles_per_s);
        if (!v.le_ns.empty() && v.le_ns.back() == le) {
            v.counts.back() += s.buckets[i];  // narrower than a nanosecond
            continue;
        }
        v.le_ns.push_back(le);
        v.counts.push_back(s.buckets[i]);
    }
    v.count = s.count;
    v.sum_ns = to_ns(s.sum, cycles_per_s);
    // A read racing the first record may see its count before its min.
    v.min_ns = to_ns(std::min(s.min, s.max), cycles_per_s);
    v.max_ns = to_ns(s.max, cycles_per_s);
    return v;
}

uint64_t HistogramView::percentile_ns(double p) const {
    const auto k = quantile_bucket(counts, p);
    return k ? std::clamp(le_ns[*k], std::min(min_ns, max_ns), max_ns) : 0;
}

LatencySummary summarize(const HistogramSnapshot& s, uint64_t cycles_per_s) {
    LatencySummary out;
    out.count = s.count;
    if (s.count == 0 || cycles_per_s == 0) return out;
    const double ns_per_cycle = 1e9 / double(cycles_per_s);
    out.min_ns = double(std::min(s.min, s.max)) * ns_per_cycle;
    out.avg_ns = double(s.sum) / double(s.count) * ns_per_cycle;
    out.p50_ns = double(s.percentile(0.50)) * ns_per_cycle;
    out.p90_ns = double(s.percentile(0.90)) * ns_per_cycle;
    out.p99_ns = double(s.percentile(0.99)) * ns_per_cycle;
    out.p999_ns = double(s.percentile(0.999)) * ns_per_cycle;
    out.max_ns = double(s.max) * ns_per_cycle;
    return out;
}

std::vector<std::string> histogram_bars(const HistogramView& v, size_t bar_width) {
    std::vector<std::string> labels, counts, lines;
    size_t label_w = 0, count_w = 0;
    uint64_t most = 0;
    for (size_t k = 0; k < v.counts.size(); ++k) {
        if (v.le_ns[k] != kNoUpperBound)
            labels.push_back("<= " + human_ns(v.le_ns[k]));
        else  // the open top bucket
            labels.push_back(k ? "> " + human_ns(v.le_ns[k - 1]) : std::string("any"));
        counts.push_back(std::to_string(v.counts[k]));
        label_w = std::max(label_w, labels.back().size());
        count_w = std::max(count_w, counts.back().size());
        most = std::max(most, v.counts[k]);
    }
    for (size_t k = 0; k < v.counts.size(); ++k) {
        const size_t bar = std::min(
            bar_width, size_t(double(v.counts[k]) * double(bar_width) / double(most ? most : 1)));
        lines.push_back(labels[k] + std::string(label_w - labels[k].size(), ' ') + "  " +
                        std::string(count_w - counts[k].size(), ' ') + counts[k] + " |" +
                        std::string(bar, '@') + std::string(bar_width - bar, ' ') + "|");
    }
    return lines;
}

}  // namespace pmdfwd
