// Prometheus names and families from the field tables (see metric_names.hpp).
#include "metric_names.hpp"

#include <algorithm>

#include "histogram.hpp"

namespace pmdfwd {

namespace {

// The word a metric name ends in for a unit (Prometheus: base units, plural);
// empty where the name already says what is counted (polls, calls, events).
std::string_view unit_word(Unit u) {
    switch (u) {
        case Unit::packets:
            return "packets";
        case Unit::bytes:
            return "bytes";
        case Unit::mbufs:
            return "mbufs";
        case Unit::records:
            return "records";
        case Unit::datagrams:
            return "datagrams";
        case Unit::connections:
            return "connections";
        case Unit::requests:
            return "requests";
        case Unit::routes:
            return "routes";
        case Unit::cycles:
            return "cycles";
        case Unit::nanoseconds:
        case Unit::seconds:
            return "seconds";
        case Unit::permille:
            return "ratio";
        case Unit::hertz:
            return "hertz";
        case Unit::none:
        case Unit::polls:
        case Unit::calls:
        case Unit::events:
            return {};
    }
    return {};
}

double unit_scale(Unit u) {
    if (u == Unit::nanoseconds) return 1e-9;
    if (u == Unit::permille) return 1e-3;
    return 1;
}

// A key as a metric stem: abbreviations spelled out ("rx_pkts" ->
// "rx_packets") and a unit suffix of the key dropped, since the unit word
// replaces it ("uptime_s", "sum_ns", "busy_permille", "tsc_hz").
std::string stem_of(std::string_view key) {
    std::string out;
    size_t start = 0;
    while (start <= key.size()) {
        const size_t end = std::min(key.find('_', start), key.size());
        std::string_view word = key.substr(start, end - start);
        if (word == "pkts") word = "packets";
        if (word == "pkt") word = "packet";
        const bool last = end == key.size();
        const bool unit_suffix =
            last && start > 0 &&
            (word == "ns" || word == "s" || word == "permille" || word == "hz");
        if (!unit_suffix) {
            if (!out.empty()) out += '_';
            out += word;
        }
        start = end + 1;
    }
    return out;
}

// The stem with its unit word, unless the stem already has it ("rx_bytes",
// "ipackets", "cycles_per_packet"), and `_total` for a counter.
std::string metric_name(std::string_view prefix, std::string_view stem, Unit unit, bool counter) {
    std::string name = std::string(prefix) + std::string(stem);
    const std::string_view word = unit_word(unit);
    if (!word.empty() && stem.find(word) == std::string_view::npos) name += "_" + std::string(word);
    if (counter) name += "_total";
    return name;
}

bool is_descriptive(const Field& f) { return f.kind == Kind::info && unit_word(f.unit).empty(); }

MetricType metric_type(Kind k) {
    switch (k) {
        case Kind::counter:
            return MetricType::counter;
        case Kind::histogram:
            return MetricType::histogram;
        case Kind::label:
        case Kind::info:
        case Kind::gauge:
            break;
    }
    return MetricType::gauge;
}

}  // namespace

RecordMetrics record_metrics(const RecordSchema& s, std::string_view paths) {
    RecordMetrics m;
    m.schema = &s;
    m.paths = std::string(paths);
    // The appliance's own record names its metrics pmdfwd_<key>.
    const std::string prefix = s.name == "info" ? "pmdfwd_" : "pmdfwd_" + std::string(s.name) + "_";
    m.info.name = prefix == "pmdfwd_" ? "pmdfwd_info" : prefix + "info";
    m.info.type = MetricType::info;
    m.info.help = "1, labelled with what describes " +
                  std::string(s.name == "info" ? "the appliance" : "it") + " (" +
                  std::string(paths) + ")";
    std::vector<std::string> grouped;  // labelled groups already made families
    for (size_t i = 0; i < s.fields.size(); ++i) {
        const Field& f = s.fields[i];
        const FieldId id{uint16_t(i)};
        if (f.kind == Kind::label) {
            m.labels.push_back(id);
            m.label_names.emplace_back(f.label.empty() ? f.key : f.label);
            continue;
        }
        if (is_descriptive(f)) {
            m.info.fields.push_back(id);
            continue;
        }
        MetricFamilySpec fam;
        fam.type = metric_type(f.kind);
        fam.scale = unit_scale(f.unit);
        if (!f.group.empty() && !f.label.empty()) {
            if (std::find(grouped.begin(), grouped.end(), f.group) != grouped.end()) continue;
            grouped.emplace_back(f.group);
            const auto members = s.group(f.group);
            bool one_unit = true;
            fam.help = std::string(f.group) + " by " + std::string(f.label) + ":";
            for (size_t k = 0; k < members.size(); ++k) {
                one_unit = one_unit && members[k].unit == f.unit;
                fam.fields.push_back(FieldId{uint16_t(i + k)});
                fam.help += (k ? "; " : " ") + std::string(members[k].member) + ": " +
                            std::string(members[k].help);
            }
            fam.name = metric_name(prefix, f.group, one_unit ? f.unit : Unit::none,
                                   fam.type == MetricType::counter);
            fam.label = std::string(f.label);
        } else {
            fam.name = metric_name(prefix, stem_of(f.key), f.unit, fam.type == MetricType::counter);
            fam.help = std::string(f.help);
            fam.fields.push_back(id);
        }
        m.families.push_back(std::move(fam));
    }
    // A field that sums a labelled group ("drops", all reasons) would share
    // its group's name: PromQL sums the labelled samples instead.
    std::erase_if(m.families, [&](const MetricFamilySpec& f) {
        return f.label.empty() &&
               std::any_of(m.families.begin(), m.families.end(), [&](const MetricFamilySpec& o) {
                   return !o.label.empty() && o.name == f.name;
               });
    });
    return m;
}

std::vector<uint64_t> metric_bucket_edges_ns(uint64_t cycles_per_s) {
    constexpr uint64_t kLowest = 10, kHighest = 100ull * 1000 * 1000 * 1000;
    std::vector<uint64_t> edges;
    // Bucket 4b - 1 ends a power of two: its values are below 2^(b+1).
    for (size_t i = kHistogramSubBuckets - 1; i + 1 < kHistogramBuckets;
         i += kHistogramSubBuckets) {
        const uint64_t e = histogram_edge_ns(i, cycles_per_s);
        if (e >= kLowest && e <= kHighest && (edges.empty() || e > edges.back()))
            edges.push_back(e);
    }
    return edges;
}

std::string metrics_markdown(const std::vector<RecordMetrics>& records) {
    std::string out;
    for (const auto& m : records) {
        std::string labels;
        for (const auto& l : m.label_names) labels += (labels.empty() ? "" : ", ") + l;
        out += "### " + std::string(m.schema->name) + " (" + m.paths + ")\n\n";
        out +=
            "Labels on every sample: " + (labels.empty() ? std::string("none") : labels) + ".\n\n";
        out += "| metric | type | labels | help |\n|---|---|---|---|\n";
        std::string info_labels;
        for (const auto id : m.info.fields)
            info_labels +=
                (info_labels.empty() ? "" : ", ") + std::string(m.schema->fields[id.index].key);
        if (!info_labels.empty())
            out += "| `" + m.info.name + "` | info | " + info_labels + " | " + m.info.help + " |\n";
        for (const auto& f : m.families)
            out += "| `" + f.name + "` | " + std::string(to_string(f.type)) + " | " +
                   (f.label.empty() ? "" : f.label) + " | " + f.help + " |\n";
        out += "\n";
    }
    return out;
}

}  // namespace pmdfwd
