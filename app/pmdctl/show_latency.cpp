// `pmdctl show latency` (see renderers.hpp): each worker's residence time.
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

std::string render_latency(const std::vector<Json>& records, bool histogram) {
    if (records.empty()) return "no workers\n";
    static constexpr std::string_view kFigures[] = {"min", "avg",  "p50", "p90",
                                                    "p99", "p999", "max"};
    Table t;
    t.columns = {{"worker"}, {"rx", Align::kLeft}, {"poll", Align::kLeft}, {"pkts"}};
    for (const auto f : kFigures) t.columns.push_back({f == "p999" ? "p99.9" : std::string(f)});
    bool off = false;
    for (const auto& r : records) {
        off = off || text(r, "enabled") == "false";
        std::vector<std::string> row{text(r, "worker"),
                                     text(r, "rx_port") + "/" + text(r, "rx_queue"),
                                     text(r, "poll"), count_cell(r, "residence_count")};
        for (const auto f : kFigures) {
            const std::string key = "residence_" + std::string(f) + "_ns";
            row.push_back(has(r, key) ? pmdfwd::human_ns(u64(r, key)) : "-");
        }
        t.rows.push_back(std::move(row));
    }
    std::string out =
        "residence time since the last clear: from a packet's rx burst to the end of that "
        "burst's transmit\n" +
        t.render() + "(percentiles: the upper edge of their bucket, within 25%)\n";
    if (off) out += "latency is off for this pmdfwd ([forward] latency = false)\n";
    if (!histogram) return out;
    for (const auto& r : records) {
        const auto lines = pmdfwd::histogram_bars(histogram_from(r, "residence"));
        if (lines.empty()) continue;
        out += "\nworker " + text(r, "worker") + ":\n";
        for (const auto& line : lines) out += line + '\n';
    }
    return out;
}

}  // namespace pmdctl
