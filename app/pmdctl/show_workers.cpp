// `pmdctl show workers` (see renderers.hpp): the worker table, the time
// split, drop reasons, rx burst sizes and the recycle counters of each
// worker's lcore, each from its group of the worker record's table.
#include <span>

#include "record_schemas.hpp"
#include "record_view.hpp"
#include "recycle_table.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "table_columns.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

using pmdfwd::kWorkerRecord;

// A field of the worker record, the only record kind drawn here.

constexpr FieldRef kWorker = worker_field("worker");

std::string worker_label(const Json& w) { return "worker " + text(w, kWorker); }

constexpr FieldRef kPoll = worker_field("poll");
constexpr FieldRef kEmptyPolls = worker_field("empty_polls");
constexpr FieldRef kPolls = worker_field("polls");

constexpr TableColumn kWorkerTable[] = {
    field_column(kWorker),
    field_column(worker_field("lcore")),
    derived_column("rx -> tx",
                   "`port/queue` the worker polls, `->` the port/queue it sends on (`-`: the rx "
                   "port is in no forwarding pair; `routed`: router mode, where each packet's "
                   "route says)",
                   worker_path, Align::kLeft),
    field_column(worker_field("rx_pkts")),
    field_column(worker_field("tx_pkts")),
    field_column(worker_field("drops")),
    field_column(worker_field("handoff_out")),
    field_column(worker_field("handoff_in")),
    derived_column(
        "empty%",
        "share of polls that returned no packet and found no handoff waiting "
        "(`empty_polls / polls`)",
        [](const Json& w) { return pmdfwd::percent(u64(w, kEmptyPolls), u64(w, kPolls)); }),
    field_column(worker_field("busy_permille")),
    field_column(worker_field("cycles_per_pkt")),
};

constexpr TableColumn kTimeTable[] = {
    field_column(kWorker),
    field_column(kPoll, Align::kLeft),
    field_column(worker_field("busy_permille")),
    field_column(worker_field("idle_permille")),
    field_column(worker_field("sleep_permille")),
    field_column(worker_field("wakeups")),
    field_column(worker_field("cpu_permille")),
};

// Where each worker's time went, by the loop's clock and the kernel's.
std::string time_split(const std::vector<Json>& workers, Shown& shown) {
    Table t = table_of(kTimeTable, shown);
    shown.insert(worker_field("cpu_ns"));
    for (const auto& w : workers) t.rows.push_back(row_of(kTimeTable, w));
    return "\ntime (busy: forwarding, spin: polling empty queues, sleep: asleep or waiting on rx "
           "interrupts; cpu: the thread's CPU time, as the kernel counts it):\n" +
           t.render();
}

// Only the reasons that happened, only on the workers that had them.
std::string drop_reasons(const std::vector<Json>& workers, Shown& shown) {
    std::vector<FieldRef> reasons;
    for (const auto f : group_refs(field_group(kWorkerRecord, "drops"))) {
        shown.insert(f);
        if (any_nonzero(workers, f)) reasons.push_back(f);
    }
    if (reasons.empty()) return "\ndrops by reason: none\n";
    Table d;
    d.columns.push_back({"worker"});
    for (const auto f : reasons) d.columns.push_back({std::string(f.field().header())});
    for (const auto& w : workers) {
        bool any = false;
        std::vector<std::string> row{text(w, kWorker)};
        for (const auto f : reasons) {
            any = any || u64(w, f);
            row.push_back(unit_cell(w, f));
        }
        if (any) d.rows.push_back(std::move(row));
    }
    return "\ndrops by reason:\n" + d.render();
}

// Polls by how many packets they returned, and how many were a full burst.
std::string burst_sizes(const std::vector<Json>& workers, Shown& shown) {
    std::vector<FieldRef> sizes;
    for (const auto f : group_refs(field_group(kWorkerRecord, "burst_sizes")))
        if (any_has(workers, f)) {
            sizes.push_back(f);
            shown.insert(f);
        }
    if (sizes.empty()) return "";
    constexpr FieldRef kFullBursts = worker_field("full_bursts");
    Table b;
    b.columns.push_back({"worker"});
    for (const auto f : sizes) b.columns.push_back({std::string(f.field().header())});
    const bool full = any_has(workers, kFullBursts);
    if (full) b.columns.push_back({"full"});
    for (const auto& w : workers) {
        std::vector<std::string> row{text(w, kWorker)};
        for (const auto f : sizes) row.push_back(unit_cell(w, f));
        if (full) row.push_back(unit_cell(w, kFullBursts));
        b.rows.push_back(std::move(row));
    }
    return "\nrx burst sizes (polls that returned packets):\n" + b.render();
}

// Whether each loop moves: a hung worker first, then the stalls counted.
std::string loop_health(const std::vector<Json>& workers, Shown& shown) {
    constexpr FieldRef kStalls = worker_field("stalls");
    constexpr FieldRef kStallTsc = worker_field("stall_tsc");
    constexpr FieldRef kQuietNs = worker_field("quiet_ns");
    constexpr FieldRef kHung = worker_field("hung");
    shown.insert({kStalls, kStallTsc, kQuietNs, kHung});
    std::string out;
    for (const auto& w : workers) {
        if (u64(w, kHung))
            out += "  " + worker_label(w) + ": HUNG: its loop has made no progress for " +
                   unit_cell(w, kQuietNs) + "\n";
        if (u64(w, kStalls))
            out += "  " + worker_label(w) + ": " + unit_cell(w, kStalls) +
                   " stall(s) longer than [control] stall_us, " + unit_cell(w, kStallTsc) +
                   " cycles in them\n";
    }
    if (out.empty()) return has(workers.front(), kHung) ? "\nloops: all moving, no stalls\n" : "";
    return "\nloops:\n" + out;
}

}  // namespace

const std::span<const TableColumn> kWorkerTableColumns = kWorkerTable;
const std::span<const TableColumn> kWorkerTimeColumns = kTimeTable;

std::string render_workers(const std::vector<Json>& workers) {
    if (workers.empty()) return "no workers\n";
    // The path column shows the ports and queues; burst_sizes the full bursts.
    Shown shown = {worker_field("rx_port"),
                   worker_field("rx_queue"),
                   worker_field("tx_port"),
                   worker_field("tx_queue"),
                   kPolls,
                   kEmptyPolls,
                   worker_field("full_bursts")};
    Table t = table_of(kWorkerTable, shown);
    for (const auto& w : workers) t.rows.push_back(row_of(kWorkerTable, w));
    std::string out = t.render();
    out += loop_health(workers, shown);
    if (has(workers.front(), worker_field("poll"))) out += time_split(workers, shown);
    out += drop_reasons(workers, shown);
    out += burst_sizes(workers, shown);
    out +=
        recycle_table(workers,
                      {.title = "recycle counters on each worker's lcore (since the last clear):",
                       .label = {"worker"},
                       .label_field = kWorker,
                       .counters = group_refs(field_group(kWorkerRecord, "recycle")),
                       .every = "worker"},
                      shown);
    std::string details;
    for (const auto& w : workers) details += details_line(worker_label(w), w, shown);
    if (!details.empty()) out += "\nother counters:\n" + details;
    return out;
}

}  // namespace pmdctl
