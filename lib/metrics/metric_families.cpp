// Records to Prometheus families (see metric_families.hpp).
#include "metric_families.hpp"

#include <limits>
#include <string>

#include "protocol.hpp"

namespace pmdfwd {

namespace {

using prometheus::ClientMetric;
using PromType = prometheus::MetricType;

prometheus::MetricFamily family(const MetricFamilySpec& spec) {
    prometheus::MetricFamily f;
    f.name = spec.name;
    f.help = spec.help;
    switch (spec.type) {
        case pmdfwd::MetricType::counter:
            f.type = PromType::Counter;
            break;
        case pmdfwd::MetricType::histogram:
            f.type = PromType::Histogram;
            break;
        case pmdfwd::MetricType::gauge:
        case pmdfwd::MetricType::info:
            f.type = PromType::Gauge;
            break;
    }
    return f;
}

std::string label_value(const Record& r, FieldId id) {
    if (const auto* n = r.number(id)) return std::to_string(*n);
    if (const auto* t = r.text(id)) return *t;
    return {};
}

void set_value(ClientMetric& m, PromType type, double v) {
    if (type == PromType::Counter)
        m.counter.value = v;
    else
        m.gauge.value = v;
}

// Cumulative counts at each fixed edge, exact because every edge is a
// bucket edge of the histogram and the view's buckets are whole buckets.
ClientMetric::Histogram to_histogram(const HistogramView& v, const std::vector<uint64_t>& edges) {
    ClientMetric::Histogram h;
    h.sample_count = v.count;
    h.sample_sum = double(v.sum_ns) * 1e-9;
    size_t k = 0;
    uint64_t below = 0;
    for (const uint64_t edge : edges) {
        while (k < v.le_ns.size() && v.le_ns[k] <= edge) below += v.counts[k++];
        h.bucket.push_back({below, double(edge) * 1e-9});
    }
    h.bucket.push_back({v.count, std::numeric_limits<double>::infinity()});
    return h;
}

}  // namespace

MetricFamilies::MetricFamilies(uint64_t tsc_hz) : edges_ns_(metric_bucket_edges_ns(tsc_hz)) {
    for (const auto& spec : exported_metrics()) {
        Kind k{&spec, family(spec.info), {}};
        for (const auto& f : spec.families) k.families.push_back(family(f));
        kinds_.push_back(std::move(k));
    }
}

void MetricFamilies::add(const Record& r) {
    for (auto& kind : kinds_) {
        const RecordMetrics& spec = *kind.spec;
        if (spec.schema != &r.schema()) continue;
        std::vector<ClientMetric::Label> labels;
        for (size_t i = 0; i < spec.labels.size(); ++i)
            labels.push_back({spec.label_names[i], label_value(r, spec.labels[i])});
        ClientMetric info;
        info.label = labels;
        for (const auto id : spec.info.fields)
            if (r.number(id) || r.text(id))
                info.label.push_back(
                    {std::string(spec.schema->fields[id.index].key), label_value(r, id)});
        if (info.label.size() > labels.size()) {
            info.gauge.value = 1;
            kind.info.metric.push_back(std::move(info));
        }
        for (size_t i = 0; i < spec.families.size(); ++i) {
            const MetricFamilySpec& fs = spec.families[i];
            prometheus::MetricFamily& out = kind.families[i];
            for (const auto id : fs.fields) {
                ClientMetric m;
                m.label = labels;
                if (!fs.label.empty())
                    m.label.push_back(
                        {fs.label, std::string(spec.schema->fields[id.index].member)});
                if (const auto* h = r.histogram(id)) {
                    m.histogram = to_histogram(*h, edges_ns_);
                } else if (const auto* n = r.number(id)) {
                    set_value(m, out.type, double(*n) * fs.scale);
                } else {
                    continue;  // a field the record leaves out
                }
                out.metric.push_back(std::move(m));
            }
        }
        return;
    }
}

std::vector<prometheus::MetricFamily> MetricFamilies::take(bool up) {
    std::vector<prometheus::MetricFamily> out;
    prometheus::MetricFamily up_family;
    up_family.name = kUpMetric;
    up_family.help = "1 while pmdfwd's appliance runs and answers; 0 once it is shutting down";
    up_family.type = PromType::Gauge;
    up_family.metric.emplace_back();
    up_family.metric.back().gauge.value = up ? 1 : 0;
    out.push_back(std::move(up_family));
    for (auto& kind : kinds_) {
        if (!kind.info.metric.empty()) out.push_back(std::move(kind.info));
        for (auto& f : kind.families)
            if (!f.metric.empty()) out.push_back(std::move(f));
    }
    kinds_.clear();
    return out;
}

}  // namespace pmdfwd
