// How the field tables become Prometheus metrics: names with their unit
// (`_total`, `_bytes`, `_seconds`), types, help and labels, all derived from
// record_schemas.hpp, so a counter added to a list is exported with no other
// change. The exporter (lib/metrics) fills these families at scrape time;
// docs/operations.md's metrics reference is printed from them and a test
// holds it to them. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fields.hpp"

namespace pmdfwd {

#define PMDFWD_METRIC_TYPES(X) \
    X(counter, "counter")      \
    X(gauge, "gauge")          \
    X(histogram, "histogram")  \
    X(info, "info")

enum class MetricType : uint8_t { PMDFWD_METRIC_TYPES(PMDFWD_ENUM_MEMBER) };
inline constexpr std::string_view kMetricTypeNames[] = {PMDFWD_METRIC_TYPES(PMDFWD_ENUM_TEXT)};

constexpr std::string_view to_string(MetricType t) { return enum_name(kMetricTypeNames, t); }

// One metric family of a record kind.
struct MetricFamilySpec {
    std::string name;  // pmdfwd_worker_rx_packets_total
    MetricType type = MetricType::gauge;
    std::string help;
    double scale = 1;  // from the field's unit to the metric's (ns to s: 1e-9)
    // A group's members, told apart by this label ("reason"); empty when
    // the family is one field.
    std::string label;
    std::vector<FieldId> fields;
};

// What a record kind exports. Its label fields (worker, port, queue, pool)
// label every sample; its descriptive fields (texts, and numbers without a
// unit) become the labels of one `..._info` sample of value 1; every counter,
// gauge, histogram, and info number with a unit (a pool's size) a family.
struct RecordMetrics {
    const RecordSchema* schema = nullptr;
    std::string paths;  // the endpoints answering with it
    std::vector<FieldId> labels;
    std::vector<std::string> label_names;
    MetricFamilySpec info;  // type info; its fields are the descriptive ones
    std::vector<MetricFamilySpec> families;
};

// The metric families of one record kind; `paths` names the endpoints
// answering with it, for the info metric's help.
RecordMetrics record_metrics(const RecordSchema& s, std::string_view paths);

// `pmdfwd_up`: 1 while the appliance answers, 0 once it is shutting down.
inline constexpr char kUpMetric[] = "pmdfwd_up";

// The upper edges, in ns, at which histograms are exported as Prometheus
// buckets: every power of two of TSC cycles from about 10 ns to 100 s, the
// same for every scrape of a run, each a bucket edge of Histogram so the
// cumulative counts are exact.
std::vector<uint64_t> metric_bucket_edges_ns(uint64_t cycles_per_s);

// The reference docs/operations.md carries (a test holds it to this): one
// table per record kind, a row per family with its type, labels and help.
std::string metrics_markdown(const std::vector<RecordMetrics>& records);

}  // namespace pmdfwd
