// `pmdctl show workers` (see renderers.hpp): the worker table, the time
// split, drop reasons, rx burst sizes and the recycle counters of each
// worker's lcore, each from its group of the worker record's table.
#include <span>

#include "record_schemas.hpp"
#include "record_view.hpp"
#include "recycle_table.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

using pmdfwd::Field;
using pmdfwd::kWorkerRecord;

const Field& field(std::string_view key) { return *kWorkerRecord.find(key); }

std::string worker_label(const Json& w) { return "worker " + text(w, "worker"); }

// Columns of fields: a header from the table, a cell by the field's unit.
void add_field_columns(Table& t, std::span<const std::string_view> keys, Shown& shown) {
    for (const auto key : keys) {
        t.columns.push_back({std::string(field(key).header())});
        shown.insert(std::string(key));
    }
}
void add_field_cells(std::vector<std::string>& row, const Json& w,
                     std::span<const std::string_view> keys) {
    for (const auto key : keys) row.push_back(unit_cell(w, field(key)));
}

// Where each worker's time went, by the loop's clock and the kernel's.
std::string time_split(const std::vector<Json>& workers, Shown& shown) {
    static constexpr std::string_view kSplit[] = {"busy_permille", "idle_permille",
                                                  "sleep_permille", "wakeups", "cpu_permille"};
    Table t;
    t.columns = {{"worker"}, {"poll", Align::kLeft}};
    add_field_columns(t, kSplit, shown);
    shown.insert({"poll", "cpu_ns"});
    for (const auto& w : workers) {
        std::vector<std::string> row{text(w, "worker"), text(w, "poll")};
        add_field_cells(row, w, kSplit);
        t.rows.push_back(std::move(row));
    }
    return "\ntime (busy: forwarding, spin: polling empty queues, sleep: asleep or waiting on rx "
           "interrupts; cpu: the thread's CPU time, as the kernel counts it):\n" +
           t.render();
}

// Only the reasons that happened, only on the workers that had them.
std::string drop_reasons(const std::vector<Json>& workers, Shown& shown) {
    std::vector<const Field*> reasons;
    for (const auto& f : kWorkerRecord.group("drops")) {
        shown.insert(std::string(f.key));
        if (any_nonzero(workers, f.key)) reasons.push_back(&f);
    }
    if (reasons.empty()) return "\ndrops by reason: none\n";
    Table d;
    d.columns.push_back({"worker"});
    for (const auto* f : reasons) d.columns.push_back({std::string(f->header())});
    for (const auto& w : workers) {
        bool any = false;
        std::vector<std::string> row{text(w, "worker")};
        for (const auto* f : reasons) {
            any = any || u64(w, f->key);
            row.push_back(unit_cell(w, *f));
        }
        if (any) d.rows.push_back(std::move(row));
    }
    return "\ndrops by reason:\n" + d.render();
}

// Polls by how many packets they returned, and how many were a full burst.
std::string burst_sizes(const std::vector<Json>& workers, Shown& shown) {
    std::vector<const Field*> sizes;
    for (const auto& f : kWorkerRecord.group("burst_sizes"))
        if (any_has(workers, f.key)) {
            sizes.push_back(&f);
            shown.insert(std::string(f.key));
        }
    if (sizes.empty()) return "";
    Table b;
    b.columns.push_back({"worker"});
    for (const auto* f : sizes) b.columns.push_back({std::string(f->header())});
    const bool full = any_has(workers, "full_bursts");
    if (full) b.columns.push_back({"full"});
    for (const auto& w : workers) {
        std::vector<std::string> row{text(w, "worker")};
        for (const auto* f : sizes) row.push_back(unit_cell(w, *f));
        if (full) row.push_back(unit_cell(w, field("full_bursts")));
        b.rows.push_back(std::move(row));
    }
    return "\nrx burst sizes (polls that returned packets):\n" + b.render();
}

// Whether each loop moves: a hung worker first, then the stalls counted.
std::string loop_health(const std::vector<Json>& workers, Shown& shown) {
    shown.insert({"stalls", "stall_tsc", "quiet_ns", "hung"});
    std::string out;
    for (const auto& w : workers) {
        if (u64(w, "hung"))
            out += "  " + worker_label(w) + ": HUNG: its loop has made no progress for " +
                   unit_cell(w, field("quiet_ns")) + "\n";
        if (u64(w, "stalls"))
            out += "  " + worker_label(w) + ": " + unit_cell(w, field("stalls")) +
                   " stall(s) longer than [control] stall_us, " + unit_cell(w, field("stall_tsc")) +
                   " cycles in them\n";
    }
    if (out.empty()) return has(workers.front(), "hung") ? "\nloops: all moving, no stalls\n" : "";
    return "\nloops:\n" + out;
}

}  // namespace

std::string render_workers(const std::vector<Json>& workers) {
    if (workers.empty()) return "no workers\n";
    static constexpr std::string_view kCounts[] = {"rx_pkts", "tx_pkts", "drops", "handoff_out",
                                                   "handoff_in"};
    static constexpr std::string_view kLoad[] = {"busy_permille", "cycles_per_pkt"};
    Shown shown = {"worker",   "lcore", "rx_port",     "rx_queue",   "tx_port",
                   "tx_queue", "polls", "empty_polls", "full_bursts"};
    Table t;
    t.columns = {{"worker"}, {"lcore"}, {"rx -> tx", Align::kLeft}};
    add_field_columns(t, kCounts, shown);
    t.columns.push_back({"empty%"});
    add_field_columns(t, kLoad, shown);
    for (const auto& w : workers) {
        std::vector<std::string> row{text(w, "worker"), text(w, "lcore"), worker_path(w)};
        add_field_cells(row, w, kCounts);
        row.push_back(pmdfwd::percent(u64(w, "empty_polls"), u64(w, "polls")));
        add_field_cells(row, w, kLoad);
        t.rows.push_back(std::move(row));
    }
    std::string out = t.render();
    out += loop_health(workers, shown);
    if (has(workers.front(), "poll")) out += time_split(workers, shown);
    out += drop_reasons(workers, shown);
    out += burst_sizes(workers, shown);
    out +=
        recycle_table(workers,
                      {.title = "recycle counters on each worker's lcore (since the last clear):",
                       .label = {"worker"},
                       .label_key = "worker",
                       .counters = kWorkerRecord.group("recycle"),
                       .every = "worker"},
                      shown);
    std::string details;
    for (const auto& w : workers) details += details_line(worker_label(w), w, shown);
    if (!details.empty()) out += "\nother counters:\n" + details;
    return out;
}

}  // namespace pmdctl
