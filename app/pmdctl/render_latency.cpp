// The poll-mode time split of `show workers` and the residence-time table of
// `show latency` (see render.hpp). Pure: JSON in, text out.
#include <algorithm>
#include <map>

#include "record_fields.hpp"
#include "render.hpp"

namespace pmdctl {

namespace {

std::string permille_cell(const Json& rec, const std::string& key) {
    return has(rec, key) ? format("%.1f%%", double(u64(rec, key)) / 10) : "-";
}

std::string ns_cell(const Json& rec, const std::string& key) {
    return has(rec, key) ? human_ns(u64(rec, key)) : "-";
}

// "lt_<ns>_ns" -> ns
std::optional<uint64_t> bucket_edge(const std::string& key) {
    if (!key.starts_with("lt_") || !key.ends_with("_ns") || key.size() <= 6) return std::nullopt;
    const std::string digits = key.substr(3, key.size() - 6);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::stoull(digits);
}

}  // namespace

const std::vector<std::string> kTimeSplitKeys = {"poll",           "busy_permille", "idle_permille",
                                                 "sleep_permille", "wakeups",       "cpu_permille",
                                                 "cpu_ns"};

std::string render_time_split(const std::vector<Json>& workers) {
    Table t;
    t.columns = {{"worker"}, {"poll", Align::kLeft}, {"busy%"}, {"spin%"}, {"sleep%"}, {"wakeups"},
                 {"cpu%"}};
    for (const auto& w : workers)
        t.rows.push_back({text(w, "worker"), text(w, "poll"), permille_cell(w, "busy_permille"),
                          permille_cell(w, "idle_permille"), permille_cell(w, "sleep_permille"),
                          count_cell(w, "wakeups"), permille_cell(w, "cpu_permille")});
    return "\ntime (busy: forwarding, spin: polling empty queues, sleep: asleep or waiting on rx "
           "interrupts; cpu: the thread's CPU time, as the kernel counts it):\n" +
           t.render();
}

std::string render_latency(const std::vector<Json>& records, bool histogram) {
    if (records.empty()) return "no workers\n";
    Table t;
    t.columns = {{"worker"},
                 {"rx", Align::kLeft},
                 {"poll", Align::kLeft},
                 {"pkts"},
                 {"min"},
                 {"avg"},
                 {"p50"},
                 {"p90"},
                 {"p99"},
                 {"p99.9"},
                 {"max"}};
    bool off = false;
    for (const auto& r : records) {
        off = off || text(r, "enabled") == "false";
        t.rows.push_back({text(r, "worker"), text(r, "rx_port") + "/" + text(r, "rx_queue"),
                          text(r, "poll"), count_cell(r, "pkts"), ns_cell(r, "min_ns"),
                          ns_cell(r, "avg_ns"), ns_cell(r, "p50_ns"), ns_cell(r, "p90_ns"),
                          ns_cell(r, "p99_ns"), ns_cell(r, "p999_ns"), ns_cell(r, "max_ns")});
    }
    std::string out =
        "residence time since the last clear: from a packet's rx burst to the end of that "
        "burst's transmit\n" +
        t.render() + "(percentiles: the upper edge of their bucket, within 25%)\n";
    if (off) out += "latency is off for this pmdfwd ([forward] latency = false)\n";
    if (!histogram) return out;
    for (const auto& r : records) {
        std::map<uint64_t, uint64_t> buckets;
        if (r.is_object())
            for (const auto& [key, value] : r.items())
                if (const auto edge = bucket_edge(key)) buckets[*edge] = u64(r, key);
        if (buckets.empty()) continue;
        uint64_t most = 0;
        for (const auto& [edge, n] : buckets) most = std::max(most, n);
        Table h;
        h.show_header = false;
        h.columns = {{"", Align::kLeft}, {""}, {"", Align::kLeft}};
        constexpr size_t kBar = 40;
        for (const auto& [edge, n] : buckets) {
            const size_t bar = std::min(kBar, size_t(double(n) * double(kBar) / double(most)));
            h.rows.push_back({"< " + human_ns(edge), std::to_string(n),
                              "|" + std::string(bar, '@') + std::string(kBar - bar, ' ') + "|"});
        }
        out += "\nworker " + text(r, "worker") + ":\n" + h.render();
    }
    return out;
}

}  // namespace pmdctl
