// `pmdctl show plan` and `pmdctl stats` (see renderers.hpp): key/value
// records, each number also in its unit where that reads better.
#include "record_schemas.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

// The per-worker lines of `stats` read worker records (/pmdfwd/worker), not
// the stats record, though the two share their counter keys.

// A number's human form next to it, when its unit has one that says more
// than the digits: counts and bytes from 1000 on, seconds as a duration.
std::string human_beside(const pmdfwd::Field* f, const Json& value) {
    if (!f || !(value.is_number_unsigned() || value.is_number_integer())) return "";
    const uint64_t v = number(value);
    switch (f->unit) {
        case pmdfwd::Unit::none:
        case pmdfwd::Unit::hertz:
        case pmdfwd::Unit::permille:
        case pmdfwd::Unit::nanoseconds:
            return "";
        case pmdfwd::Unit::seconds:
            return pmdfwd::human_duration(v);
        default:
            return v >= 1000 ? unit_text(f->unit, v) : "";
    }
}

}  // namespace

std::string render_plan(const Json& info, const Json& plan_lines) {
    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value", Align::kLeft}};
    // Every key the record has, in its order, whether pmdctl knows it or not:
    // a key is only looked up, so one added to pmdfwd still shows.
    if (info.is_object())
        for (const auto& [key, value] : info.items()) {
            const std::string human = human_beside(pmdfwd::kInfoRecord.find(key), value);
            t.rows.push_back({key, scalar_text(value) + (human.empty() ? "" : " (" + human + ")")});
        }
    std::string out = t.render();
    if (plan_lines.is_array()) {
        out += "\nplan:\n";
        for (const auto& line : plan_lines) out += "  " + scalar_text(line) + '\n';
    }
    return out;
}

std::string render_stats(const Json& totals, const std::vector<Json>& workers) {
    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value"}, {"human"}};
    if (totals.is_object())  // every key, as in render_plan
        for (const auto& [key, value] : totals.items())
            t.rows.push_back(
                {key, scalar_text(value), human_beside(pmdfwd::kStatsRecord.find(key), value)});
    std::string out = "totals:\n" + t.render();
    if (workers.empty()) return out;

    Table w;
    w.show_header = false;
    w.columns = {{"w", Align::kLeft},
                 {"lcore", Align::kLeft},
                 {"path", Align::kLeft},
                 {"rx", Align::kLeft},
                 {"rx_v"},
                 {"tx", Align::kLeft},
                 {"tx_v"},
                 {"d", Align::kLeft},
                 {"d_v"},
                 {"handoff", Align::kLeft},
                 {"out_v"},
                 {"in", Align::kLeft},
                 {"in_v"},
                 {"busy", Align::kLeft},
                 {"busy_v"}};
    for (const auto& r : workers) {
        w.rows.push_back(
            {"worker " + text(r, worker_field("worker")), "lcore " + text(r, worker_field("lcore")),
             worker_path(r), "rx", count_cell(r, worker_field("rx_pkts")), "tx",
             count_cell(r, worker_field("tx_pkts")), "drops", count_cell(r, worker_field("drops")),
             "handoff out", count_cell(r, worker_field("handoff_out")), "in",
             count_cell(r, worker_field("handoff_in")), "busy",
             unit_cell(r, worker_field("busy_permille"))});
    }
    return out + "\nper worker:\n" + w.render();
}

}  // namespace pmdctl
