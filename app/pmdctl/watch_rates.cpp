// `pmdctl watch`'s arithmetic (see renderers.hpp): rates from two samples of
// the worker records.
#include <cmath>
#include <map>

#include "record_schemas.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

// JSON rates keep 6 decimals: 1 pps in Mpps, more than any interval resolves.
constexpr double kJsonRateScale = 1e6;

double round_for_json(double v) { return std::round(v * kJsonRateScale) / kJsonRateScale; }

std::string format(const char* fmt, double v) { return pmdfwd::format_double(fmt, v); }

}  // namespace

WorkerCounters worker_counters(const Json& w) {
    WorkerCounters c;
    c.worker = u64(w, worker_field("worker"));
    c.rx_pkts = u64(w, worker_field("rx_pkts"));
    c.rx_bytes = u64(w, worker_field("rx_bytes"));
    c.tx_pkts = u64(w, worker_field("tx_pkts"));
    c.tx_bytes = u64(w, worker_field("tx_bytes"));
    c.drops = u64(w, worker_field("drops"));
    return c;
}

std::vector<RateRow> compute_rates(const Snapshot& prev, const Snapshot& cur) {
    const double dt = cur.t_s - prev.t_s;
    auto delta = [](uint64_t now, uint64_t before) { return now >= before ? now - before : now; };
    auto fill_rates = [dt](RateRow& r) {
        if (dt <= 0) return;
        r.rx_mpps = double(r.rx_pkts) / dt / 1e6;
        r.tx_mpps = double(r.tx_pkts) / dt / 1e6;
        r.rx_gbps = double(r.rx_bytes) * 8 / dt / 1e9;
        r.tx_gbps = double(r.tx_bytes) * 8 / dt / 1e9;
        r.drops_per_s = double(r.drops) / dt;
    };
    std::map<uint64_t, const WorkerCounters*> before;
    for (const auto& w : prev.workers) before[w.worker] = &w;

    std::vector<RateRow> rows;
    RateRow total;
    for (const auto& w : cur.workers) {
        const auto it = before.find(w.worker);
        if (it == before.end()) continue;
        const WorkerCounters& p = *it->second;
        RateRow r;
        r.worker = w.worker;
        r.rx_pkts = delta(w.rx_pkts, p.rx_pkts);
        r.rx_bytes = delta(w.rx_bytes, p.rx_bytes);
        r.tx_pkts = delta(w.tx_pkts, p.tx_pkts);
        r.tx_bytes = delta(w.tx_bytes, p.tx_bytes);
        r.drops = delta(w.drops, p.drops);
        fill_rates(r);
        total.rx_pkts += r.rx_pkts;
        total.rx_bytes += r.rx_bytes;
        total.tx_pkts += r.tx_pkts;
        total.tx_bytes += r.tx_bytes;
        total.drops += r.drops;
        rows.push_back(std::move(r));
    }
    fill_rates(total);
    rows.push_back(std::move(total));
    return rows;
}

std::string render_rates(const std::vector<RateRow>& rows, double elapsed_s, double interval_s) {
    Table t;
    t.columns = {{"worker", Align::kLeft},
                 {"rx Mpps"},
                 {"tx Mpps"},
                 {"rx Gbit/s"},
                 {"tx Gbit/s"},
                 {"drops/s"}};
    for (const auto& r : rows) {
        t.rows.push_back({r.worker ? std::to_string(*r.worker) : "total", format("%.3f", r.rx_mpps),
                          format("%.3f", r.tx_mpps), format("%.3f", r.rx_gbps),
                          format("%.3f", r.tx_gbps),
                          pmdfwd::human_count(uint64_t(std::llround(r.drops_per_s)))});
    }
    return format("t=%.2fs", elapsed_s) + format("  interval %.2fs\n", interval_s) + t.render();
}

// watch --json's own sample, which pmdctl makes rather than reads: no
// record of pmdfwd's has these keys, so they are strings.
Json rates_json(const std::vector<RateRow>& rows, double elapsed_s, double interval_s) {
    auto row_json = [](const RateRow& r) {
        Json j;
        if (r.worker) j["worker"] = *r.worker;
        j["rx_pkts"] = r.rx_pkts;
        j["tx_pkts"] = r.tx_pkts;
        j["rx_bytes"] = r.rx_bytes;
        j["tx_bytes"] = r.tx_bytes;
        j["drops"] = r.drops;
        j["rx_mpps"] = round_for_json(r.rx_mpps);
        j["tx_mpps"] = round_for_json(r.tx_mpps);
        j["rx_gbps"] = round_for_json(r.rx_gbps);
        j["tx_gbps"] = round_for_json(r.tx_gbps);
        j["drops_per_s"] = round_for_json(r.drops_per_s);
        return j;
    };
    Json out;
    out["t_s"] = round_for_json(elapsed_s);
    out["interval_s"] = round_for_json(interval_s);
    out["workers"] = Json::array();
    for (const auto& r : rows) {
        if (r.worker)
            out["workers"].push_back(row_json(r));
        else
            out["total"] = row_json(r);
    }
    return out;
}

}  // namespace pmdctl
