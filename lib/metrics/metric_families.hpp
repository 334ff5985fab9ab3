// Records made into Prometheus metric families by the specs of
// metric_names.hpp: counters and gauges scaled to their base unit,
// histograms as cumulative `le` buckets in seconds at fixed edges, the
// descriptive fields as one `_info` sample. Pure: no DPDK, no I/O.
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <vector>

#include "metric_names.hpp"
#include "protocol.hpp"
#include "record.hpp"

namespace pmdfwd {

class MetricFamilies {
  public:
    // `tsc_hz`: the TSC rate the histograms were recorded at, which fixes
    // their bucket edges (metric_bucket_edges_ns).
    explicit MetricFamilies(uint64_t tsc_hz);

    // Adds one record's samples; a record kind that is not exported adds none.
    void add(const Record& r);
    // `pmdfwd_up`, then every family with at least one sample, in
    // exported_metrics() order.
    std::vector<prometheus::MetricFamily> take(bool up);

  private:
    struct Kind {
        const RecordMetrics* spec;
        prometheus::MetricFamily info;
        std::vector<prometheus::MetricFamily> families;
    };
    std::vector<Kind> kinds_;
    std::vector<uint64_t> edges_ns_;
};

}  // namespace pmdfwd
