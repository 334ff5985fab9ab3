// The appliance's side of the control protocol, declared once: its
// endpoints (the records they answer with are the shared ones of
// record_schemas.hpp). pmdctl and the docs read these; lib/control serves
// them through ControlTarget. Pure: no DPDK.
#pragma once

#include "endpoint.hpp"
#include "record_schemas.hpp"

namespace pmdfwd {

namespace fields {
inline constexpr Field kConfigLineFields[] = {
    {"line", Unit::none, Kind::info,
     "a line of the running config's TOML; one over 120 bytes goes on in the next row, this "
     "one ending in a backslash"},
};
}  // namespace fields
inline constexpr RecordSchema kConfigLineRecord{
    "config_line", "A line of the running config as TOML.", fields::kConfigLineFields};

}  // namespace pmdfwd

namespace pmdfwd::endpoints {

inline constexpr Endpoint kInfo{
    .path = "/pmdfwd/info",
    .help = "Version, mode, burst, counts of workers/ports/pools, uptime.",
    .schema = &kInfoRecord,
    .returns =
        "version, pid, config, mode, burst, pool model, counts of workers, ports and "
        "pools, TSC rate, uptime, and what the telemetry socket did"};
inline constexpr Endpoint kPlan{
    .path = "/pmdfwd/plan",
    .help = "The resolved plan: ports, queues, which lcore polls which queue.",
    .shape = Shape::lines,
    .returns = "the resolved plan, one line each (ports, queues, which lcore polls which queue)"};
inline constexpr Endpoint kWorkers{.path = "/pmdfwd/workers",
                                   .help = "List of worker ids.",
                                   .shape = Shape::ids,
                                   .returns = "worker ids (`[0, 1]`)"};
inline constexpr Endpoint kWorker{
    .path = "/pmdfwd/worker",
    .help = "Stats of one worker since the last clear. Parameters: int worker_id",
    .schema = &kWorkerRecord,
    .parameter = "worker id",
    .returns =
        "what it polls and sends on, its counters, drop reasons, time shares, rx burst "
        "sizes and CPU share since the last clear; with pool model `recycle`, the "
        "`recycle_<counter>` fields as counted on the worker's lcore, summed over the "
        "recycle pools. Each keeps `rx_pkts + handoff_in == tx_pkts + drops + "
        "handoff_out`; there is no per-worker `in_flight`"};
inline constexpr Endpoint kLatency{
    .path = "/pmdfwd/latency",
    .help =
        "Residence time (rx burst to tx done) of one worker's packets: percentiles, buckets. "
        "Parameters: int worker_id",
    .schema = &kLatencyRecord,
    .parameter = "worker id",
    .returns =
        "the worker, and its residence-time histogram `residence` (`residence_count` ... "
        "`residence_buckets`) since the last clear"};
inline constexpr Endpoint kPorts{.path = "/pmdfwd/ports",
                                 .help = "List of pmdfwd port indexes.",
                                 .shape = Shape::ids,
                                 .returns = "port indexes (the order of `[[port]]` in the config)"};
inline constexpr Endpoint kPort{
    .path = "/pmdfwd/port",
    .help = "Config, link and ethdev stats of one port. Parameters: int port_index",
    .schema = &kPortRecord,
    .parameter = "port index",
    .returns =
        "config, link (`up`/`down`/`gone`, see show ports) and ethdev counters since the "
        "last clear"};
inline constexpr Endpoint kPools{.path = "/pmdfwd/pools",
                                 .help = "List of pool indexes.",
                                 .shape = Shape::ids,
                                 .returns = "pool indexes"};
inline constexpr Endpoint kPool{
    .path = "/pmdfwd/pool",
    .help = "Size, cache, available and in-use mbufs of one pool. Parameters: int pool_index",
    .schema = &kPoolRecord,
    .parameter = "pool index",
    .returns =
        "sizes, levels and the mempool ops; for a recycle pool also its owner lcore, its "
        "free levels and the driver's counters since the last clear (see show pools)"};
inline constexpr Endpoint kStats{
    .path = "/pmdfwd/stats",
    .help = "Totals over all workers since the last clear.",
    .schema = &kStatsRecord,
    .returns =
        "`workers`, the sums over workers of the worker counters, drop reasons and time "
        "shares (no burst sizes, no recycle counters), then `in_flight`; `rx_pkts == "
        "tx_pkts + drops + in_flight`"};
inline constexpr Endpoint kClear{
    .path = "/pmdfwd/clear",
    .help = "Clear worker and port stats (a baseline; counters keep running).",
    .shape = Shape::action,
    .schema = &kResultRecord,
    .returns = "`{\"result\": \"stats cleared\"}`"};
inline constexpr Endpoint kShutdown{
    .path = "/pmdfwd/shutdown",
    .help = "Graceful stop: workers finish their burst, ports stop, pools audited.",
    .shape = Shape::action,
    .schema = &kResultRecord,
    .returns = "`{\"result\": \"shutdown requested\"}`"};

inline constexpr Endpoint kReload{
    .path = "/pmdfwd/reload",
    .help = "Re-read the config file, check it, apply what may change live. Parameters: dry-run",
    .shape = Shape::lines,
    .parameter = "`dry-run` to check and show the changes without applying them; none to apply",
    .returns =
        "a verdict line (`applied`, `dry run`, `refused` or `error`), then a line a changed key "
        "(`live` or `restart`, `key: before -> after`)"};
inline constexpr Endpoint kConfig{
    .path = "/pmdfwd/config",
    .help = "The running config as TOML, run-time changes included. Parameters: int first_row",
    .shape = Shape::page,
    .schema = &kConfigLineRecord,
    .parameter = "first row (0 takes a new snapshot of the running config)",
    .returns = "the running config, a row a line of TOML"};

inline constexpr const Endpoint* kApplianceEndpoints[] = {
    &kInfo,  &kPlan, &kWorkers, &kWorker, &kLatency,  &kPorts,  &kPort,
    &kPools, &kPool, &kStats,   &kClear,  &kShutdown, &kReload, &kConfig,
};

}  // namespace pmdfwd::endpoints
