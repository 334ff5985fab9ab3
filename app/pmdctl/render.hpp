// What pmdctl prints: aligned tables and human units built from the records
// pmdfwd returns, and the rates `watch` derives from two snapshots. Pure: JSON
// in, text out; fields it does not know are still shown, in key=value lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "telemetry_client.hpp"

namespace pmdctl {

// ---- formatting --------------------------------------------------------------

// 3 significant digits and an SI suffix: 999, 1.23K, 12.3K, 123K, 1.23M.
std::string human_count(uint64_t n);
// human_count with a B: 512B, 1.50KB, 9.87GB.
std::string human_bytes(uint64_t n);
// "45.2%"; "-" when whole is 0.
std::string percent(uint64_t part, uint64_t whole);
// "1h02m03s", "4m05s", "7s".
std::string human_duration(uint64_t seconds);
// Nanoseconds as a person reads them: exact below 1us ("511ns"), then three
// significant digits in decimal units: "1.02us", "16.4us", "1.05ms", "2.15s".
std::string human_ns(uint64_t ns);
// A JSON scalar as a person reads it: integers raw, strings bare.
std::string scalar_text(const Json& v);

// ---- tables ------------------------------------------------------------------

enum class Align { kLeft, kRight };

struct Column {
    Column(std::string header_, Align align_ = Align::kRight, std::string over_ = {})
        : header(std::move(header_)), align(align_), over(std::move(over_)) {}

    std::string header;
    Align align = Align::kRight;
    // A word printed above the header, on a line of its own, so that narrow
    // columns can carry two-word names ("alloc" over "fast"); that line is
    // printed only when some column has one.
    std::string over;
};

// Cells are padded to the widest cell (or header word) of their column and
// joined by two spaces; trailing blanks are trimmed so golden tests and diffs
// stay clean.
struct Table {
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;
    bool show_header = true;

    std::string render() const;  // one '\n'-terminated line per row
};

// ---- commands ----------------------------------------------------------------

std::string render_ports(const std::vector<Json>& ports);
// The worker table (with handoff_out/handoff_in), drop reasons, rx burst
// sizes, and, when the records carry recycle_<counter> fields, the recycle
// counters of each worker's lcore.
std::string render_workers(const std::vector<Json>& workers);
// The pool table (ops, owner lcore, sizes, in use); when some pool is a
// recycle pool, its counters page_pool style and where its free objects lie.
// Stock pools show "-" where a figure does not apply.
std::string render_pools(const std::vector<Json>& pools);
std::string render_plan(const Json& info, const Json& plan_lines);
std::string render_stats(const Json& totals, const std::vector<Json>& workers);
// One block per port: its extended stats (/ethdev/xstats); zero counters are
// left out unless all is set.
std::string render_xstats(const std::vector<std::pair<std::string, Json>>& ports, bool all);
// The log channel (/pmdfwd/log): one line when it is off; else destination,
// settings, what was sent and dropped, reserve and pre-filled levels, then the
// send-latency histogram bpftrace style and its percentiles.
std::string render_log(const Json& log);
// The "[lo, hi)  count |@@@@  |" lines of the latency_bucket_<i> fields, from
// the first non-empty bucket to the last; "" when there are none.
std::string render_latency_histogram(const Json& log, size_t bar_width = 40);

// The poll mode and time split of each worker: busy, spinning idle, asleep
// or waiting, wake-ups and the thread's CPU share; kTimeSplitKeys are the
// fields it shows.
std::string render_time_split(const std::vector<Json>& workers);
extern const std::vector<std::string> kTimeSplitKeys;
// The residence-time table of /pmdfwd/latency records (min, avg, p50, p90,
// p99, p99.9, max per worker); with histogram, each worker's buckets as bars.
std::string render_latency(const std::vector<Json>& records, bool histogram);

// ---- watch -------------------------------------------------------------------

// The counters rates are made from, taken from one worker record.
struct WorkerCounters {
    uint64_t worker = 0;
    uint64_t rx_pkts = 0, rx_bytes = 0, tx_pkts = 0, tx_bytes = 0, drops = 0;
};

WorkerCounters worker_counters(const Json& worker);

struct Snapshot {
    double t_s = 0;  // monotonic clock, seconds
    std::vector<WorkerCounters> workers;
};

struct RateRow {
    std::optional<uint64_t> worker;  // nullopt: the total row
    uint64_t rx_pkts = 0, rx_bytes = 0, tx_pkts = 0, tx_bytes = 0, drops = 0;  // deltas
    double rx_mpps = 0, tx_mpps = 0, rx_gbps = 0, tx_gbps = 0, drops_per_s = 0;
};

// One row per worker present in both snapshots, then "total". A counter that
// went down was cleared in between: its delta is its new value.
std::vector<RateRow> compute_rates(const Snapshot& prev, const Snapshot& cur);

std::string render_rates(const std::vector<RateRow>& rows, double elapsed_s, double interval_s);
// One sample for --json: {"t_s", "interval_s", "workers": [...], "total": {...}}.
Json rates_json(const std::vector<RateRow>& rows, double elapsed_s, double interval_s);

}  // namespace pmdctl
