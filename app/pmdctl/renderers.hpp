// What pmdctl prints for each command: tables and human units made from the
// records pmdfwd returns, by their field tables (record_schemas.hpp). Pure:
// JSON in, text out; fields a renderer does not place are still shown, as
// key=value lines. One file per command renders its part.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "telemetry_client.hpp"

namespace pmdctl {

// show ports: one row per port record (/pmdfwd/port).
std::string render_ports(const std::vector<Json>& ports);
// show workers: the worker table, each worker's poll mode and time split,
// drop reasons, rx burst sizes, and, when the records carry recycle_
// fields, the recycle counters of each worker's lcore.
std::string render_workers(const std::vector<Json>& workers);
// show pools: the pool table; for recycle pools their counters, page_pool
// style, and where their free objects lie. Stock pools show "-" where a
// figure does not apply.
std::string render_pools(const std::vector<Json>& pools);
// show pools' first line: the pool model that runs and why, from
// /pmdfwd/info (empty without it).
std::string render_pool_model(const Json& info);
// show plan: /pmdfwd/info as key/value lines, then the plan's lines.
std::string render_plan(const Json& info, const Json& plan_lines);
// stats: the totals with human units, then one line per worker.
std::string render_stats(const Json& totals, const std::vector<Json>& workers);
// show xstats: one block per port of its extended stats; zero counters are
// left out unless all is set. `ports` is {"<port name>": {xstats}, ...}.
std::string render_xstats(const Json& ports, bool all);
// show log: one line when the channel is off; else destination, settings,
// what was sent and dropped, reserve and pre-filled levels, then the send
// latency histogram and its percentiles.
std::string render_log(const Json& log);
// show latency: the residence-time table of /pmdfwd/latency records; with
// histogram, each worker's buckets as bars.
std::string render_latency(const std::vector<Json>& records, bool histogram);
// show routes / show neighbours: router mode's tables (the lines of
// /pmdfwd/routes, /pmdfwd/neighbours), one row each; show router: its counters.
// `pmdctl endpoints`: every declared endpoint, or docs/cli.md's table.
std::string render_endpoints(bool markdown);
Json endpoints_json();
std::string render_routes(const Json& routes);
std::string render_neighbours(const Json& neighbours);
std::string render_router(const Json& router);
// trace show: each traced packet's headers, then its steps a line each
// (the rows of /pmdfwd/trace); its state; the drop capture's state.
std::string render_trace(const Json& rows);
std::string render_trace_state(const Json& state);
std::string render_drop_state(const Json& state);
// fields: every record's field table (key, unit, kind, help); markdown: the
// reference docs/cli.md carries.
std::string render_fields(bool markdown);
Json fields_json();
// metrics: the Prometheus metrics the exporter makes of those tables (name,
// type, labels); markdown: the reference docs/operations.md carries.
std::string render_metrics(bool markdown);
Json metrics_json();

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
