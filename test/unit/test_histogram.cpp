// The one histogram type: its buckets, its nanosecond view (the wire
// format), percentiles from either, and the one bar renderer. Pure.
#include <catch2/catch.hpp>
#include <random>

#include "histogram.hpp"

using namespace pmdfwd;

TEST_CASE("histogram view: at 1 GHz the edges are the buckets' own", "[histogram]") {
    Histogram h;
    h.record(5);     // bucket [5, 6)
    h.record(7, 3);  // [7, 8), three values
    h.record(40);    // [40, 48)
    const HistogramView v = histogram_view(h.read(), 1000000000);
    CHECK(v.count == 5);
    CHECK(v.sum_ns == 5 + 21 + 40);
    CHECK(v.min_ns == 5);
    CHECK(v.max_ns == 40);
    // From the first non-empty bucket to the last, the empty ones between too.
    REQUIRE(v.le_ns.size() == v.counts.size());
    CHECK(v.le_ns.front() == 5);
    CHECK(v.le_ns.back() == 47);
    CHECK(v.counts.front() == 1);
    CHECK(v.counts.back() == 1);
    uint64_t total = 0;
    for (size_t k = 0; k < v.le_ns.size(); ++k) {
        total += v.counts[k];
        if (k) CHECK(v.le_ns[k] > v.le_ns[k - 1]);
        if (v.le_ns[k] == 7) CHECK(v.counts[k] == 3);
    }
    CHECK(total == v.count);
    CHECK(v.percentile_ns(0.5) == 7);
    CHECK(v.percentile_ns(1.0) == 40);  // the edge 47, clamped to the largest seen
    CHECK(v.avg_ns() == 13);
}

TEST_CASE("histogram view: at a TSC rate every value is at most its bucket's edge", "[histogram]") {
    // 2.3 GHz: below 3 cycles a bucket is narrower than a nanosecond and is
    // merged with its neighbour; above, edges are rounded up.
    constexpr uint64_t kHz = 2300000000;
    std::mt19937_64 rng(7);
    std::vector<uint64_t> values;
    Histogram h;
    for (int i = 0; i < 20000; ++i) {
        const uint64_t v = rng() >> (rng() % 64);  // every magnitude
        values.push_back(v);
        h.record(v);
    }
    const HistogramSnapshot s = h.read();
    const HistogramView view = histogram_view(s, kHz);
    REQUIRE(view.le_ns.size() == view.counts.size());
    uint64_t total = 0;
    for (size_t k = 0; k < view.counts.size(); ++k) {
        total += view.counts[k];
        if (k) CHECK(view.le_ns[k] > view.le_ns[k - 1]);
    }
    CHECK(total == values.size());
    CHECK(view.le_ns.back() == kNoUpperBound);  // the largest values reach the open top bucket
    for (const uint64_t v : values) {
        const long double ns = (long double)v * 1e9L / kHz;
        // The bucket a value fell in, by its cycles; its ns edge holds it.
        const size_t i = histogram_bucket(v);
        if (i + 1 == kHistogramBuckets) continue;
        const auto top = (unsigned __int128)(histogram_bucket_high(i) - 1) * 1000000000u;
        const auto edge = uint64_t((top + kHz - 1) / kHz);
        INFO(v);
        CHECK(ns <= (long double)edge);
        CHECK(std::find(view.le_ns.begin(), view.le_ns.end(), edge) != view.le_ns.end());
    }
    // Percentiles within 25% of the exact ones (or within a nanosecond).
    std::sort(values.begin(), values.end());
    for (const double p : {0.5, 0.9, 0.99}) {
        const long double exact = (long double)values[size_t(p * values.size()) - 1] * 1e9L / kHz;
        const auto got = (long double)view.percentile_ns(p);
        INFO(p);
        CHECK(got >= exact - 1);
        if (got < 1e15L) CHECK(got <= exact * 1.25L + 1);
    }
}

TEST_CASE("histogram view: empty, and since a base", "[histogram]") {
    const HistogramView empty = histogram_view(HistogramSnapshot{}, 2000000000);
    CHECK(empty.count == 0);
    CHECK(empty.le_ns.empty());
    CHECK(empty.percentile_ns(0.99) == 0);
    CHECK(histogram_bars(empty).empty());

    Histogram h;
    h.record(1000);
    const HistogramSnapshot base = h.read();
    h.record(2000000);
    const HistogramView since = histogram_view(h.read().minus(base), 1000000000);
    CHECK(since.count == 1);
    CHECK(since.le_ns.size() == 1);
    // The min since the base is the edge of the first bucket that grew.
    CHECK(since.min_ns <= 2000000);
    CHECK(since.min_ns >= 2000000 * 4 / 5);
    CHECK(since.max_ns == 2000000);
}

TEST_CASE("histogram bars: one line per bucket, bpftrace style", "[histogram]") {
    // Labels padded to the widest, counts right-aligned to the widest, empty
    // buckets inside the range printed, bars floor(count * width / most):
    // 617283 of 1234567 is 4.99999 of 10.
    HistogramView v;
    v.count = 1851855;
    v.le_ns = {1, 3, 7, 15};
    v.counts = {5, 1234567, 0, 617283};
    CHECK(histogram_bars(v, 10) == std::vector<std::string>{
                                       "<= 1ns         5 |          |",
                                       "<= 3ns   1234567 |@@@@@@@@@@|",
                                       "<= 7ns         0 |          |",
                                       "<= 15ns   617283 |@@@@      |",
                                   });
    // The open top bucket is labelled by the edge below it.
    v.le_ns = {1073741823, 2147483647, kNoUpperBound};
    v.counts = {3, 0, 1};
    CHECK(histogram_bars(v) == std::vector<std::string>{
                                   "<= 1.07s  3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|",
                                   "<= 2.15s  0 |                                        |",
                                   "> 2.15s   1 |@@@@@@@@@@@@@                           |",
                               });
}

TEST_CASE("tsc histogram: buckets tile the line, within 25%", "[latency]") {
    for (size_t i = 0; i + 1 < kHistogramBuckets; ++i) {
        INFO(i);
        CHECK(histogram_bucket_high(i) == histogram_bucket_low(i + 1));
        CHECK(histogram_bucket(histogram_bucket_low(i)) == i);
        CHECK(histogram_bucket(histogram_bucket_high(i) - 1) == i);
        if (histogram_bucket_low(i) >= 4)
            CHECK(double(histogram_bucket_high(i)) / double(histogram_bucket_low(i)) <= 1.25);
    }
    CHECK(histogram_bucket(UINT64_MAX) == kHistogramBuckets - 1);
}

TEST_CASE("tsc histogram: percentiles, weights and differences", "[latency]") {
    Histogram h;
    for (uint64_t v = 1; v <= 1000; ++v) h.record(v);
    h.record(100000, 10);  // one burst of 10 packets
    const HistogramSnapshot s = h.read();
    CHECK(s.count == 1010);
    CHECK(s.min == 1);
    CHECK(s.max == 100000);
    CHECK(s.mean() == (500500 + 1000000) / 1010);
    const uint64_t p50 = s.percentile(0.5);
    CHECK(p50 >= 505);
    CHECK(p50 <= 505 * 5 / 4);
    CHECK(s.percentile(0.995) == 100000);  // clamped to max
    CHECK(s.percentile(1e-9) == 1);

    // Since a base: only what came after, min and max from its buckets.
    h.record(3000);
    h.record(5000);
    const HistogramSnapshot d = h.read().minus(s);
    CHECK(d.count == 2);
    CHECK(d.min >= histogram_bucket_low(histogram_bucket(3000)));
    CHECK(d.min <= 3000);
    CHECK(d.max >= 5000);
    CHECK(d.max < histogram_bucket_high(histogram_bucket(5000)));
    CHECK(HistogramSnapshot{}.percentile(0.5) == 0);

    const LatencySummary l = summarize(s, 1000000000);  // 1 GHz: cycles are ns
    CHECK(l.min_ns == 1);
    CHECK(l.max_ns == 100000);
    CHECK(l.p50_ns == double(p50));
}
