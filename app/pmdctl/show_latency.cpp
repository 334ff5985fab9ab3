// `pmdctl show latency` (see renderers.hpp): each worker's residence time.
#include "record_schemas.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

consteval FieldRef latency_field(std::string_view key) { return pmdfwd::kLatencyRecord.ref(key); }

constexpr FieldRef kWorker = latency_field("worker");
constexpr FieldRef kResidence = latency_field("residence");

// The residence histogram's figures, as the table heads them.
struct Figure {
    std::string_view header;
    WireKey key;
};
constexpr Figure kFigures[] = {
    {"min", wire_key(kResidence, "_min_ns")}, {"avg", wire_key(kResidence, "_avg_ns")},
    {"p50", wire_key(kResidence, "_p50_ns")}, {"p90", wire_key(kResidence, "_p90_ns")},
    {"p99", wire_key(kResidence, "_p99_ns")}, {"p99.9", wire_key(kResidence, "_p999_ns")},
    {"max", wire_key(kResidence, "_max_ns")},
};

}  // namespace

std::string render_latency(const std::vector<Json>& records, bool histogram) {
    if (records.empty()) return "no workers\n";
    Table t;
    t.columns = {{"worker"}, {"rx", Align::kLeft}, {"poll", Align::kLeft}, {"pkts"}};
    for (const auto& f : kFigures) t.columns.push_back({std::string(f.header)});
    bool off = false;
    for (const auto& r : records) {
        off = off || text(r, latency_field("enabled")) == "false";
        std::vector<std::string> row{
            text(r, kWorker),
            text(r, latency_field("rx_port")) + "/" + text(r, latency_field("rx_queue")),
            text(r, latency_field("poll")), count_cell(r, wire_key(kResidence, "_count"))};
        for (const auto& f : kFigures)
            row.push_back(has(r, f.key) ? pmdfwd::human_ns(u64(r, f.key)) : "-");
        t.rows.push_back(std::move(row));
    }
    std::string out =
        "residence time since the last clear: from a packet's rx burst to the end of that "
        "burst's transmit\n" +
        t.render() + "(percentiles: the upper edge of their bucket, within 25%)\n";
    if (off) out += "latency is off for this pmdfwd ([forward] latency = false)\n";
    if (!histogram) return out;
    for (const auto& r : records) {
        const auto lines = pmdfwd::histogram_bars(histogram_from(r, kResidence));
        if (lines.empty()) continue;
        out += "\nworker " + text(r, kWorker) + ":\n";
        for (const auto& line : lines) out += line + '\n';
    }
    return out;
}

}  // namespace pmdctl
