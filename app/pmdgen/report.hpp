// What pmdgen prints once a second and at the end: as a line for people or
// as one JSON object per line (--json). Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "histogram.hpp"
#include "traffic_gen.hpp"

namespace pmdgen {

struct Report {
    bool final = false;            // the summary after the drain, else one interval
    double t_s = 0;                // since the first send
    double span_s = 0;             // the time the rates are over
    pmdfwd::GenCounters counters;  // since start
    uint64_t received = 0, unique = 0, reordered = 0, duplicates = 0, late = 0;
    uint64_t sent_in_span = 0, received_in_span = 0;
    pmdfwd::LatencySummary latency;   // over the span
    pmdfwd::HistogramView histogram;  // the same, bucket by bucket
    double jitter_ns = 0;
};

// A missing probe is lost only in the summary; before, it may be in flight.
uint64_t missing(const Report& r);
std::string report_line(const Report& r);
nlohmann::json report_json(const Report& r);

}  // namespace pmdgen
