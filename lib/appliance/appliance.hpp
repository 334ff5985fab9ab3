// The composition root: builds pools, ports, workers and the control plane in
// order on an initialised EAL, and tears them down in reverse. Main lcore.
// State is kept per worker, per port and per pool, each entry owning what it
// names, in the order the plan gives.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "capture_server.hpp"
#include "config.hpp"
#include "config_diff.hpp"
#include "control.hpp"
#include "endpoint_binding.hpp"
#include "error.hpp"
#include "handoff_ring.hpp"
#include "loop_settings.hpp"
#include "metrics_exporter.hpp"
#include "netlog_channel.hpp"
#include "plan.hpp"
#include "pool.hpp"
#include "port.hpp"
#include "recycle_mempool.hpp"
#include "router.hpp"
#include "router_endpoints.hpp"
#include "stall_watch.hpp"
#include "stats_records.hpp"
#include "telemetry_gate.hpp"
#include "trace_control.hpp"
#include "trace_endpoints.hpp"
#include "worker.hpp"

namespace pmdfwd {

struct ShutdownReport {
    std::vector<Record> workers;  // final per-worker stats
    Record totals{kStatsRecord};
    uint64_t drained = 0;          // mbufs left in rx queues and handoff rings, freed at stop
    uint64_t handoff_drained = 0;  // of those, the ones in handoff rings
    std::vector<PoolAudit> audits;
    bool pools_full() const {
        for (const auto& a : audits)
            if (a.missing() != 0) return false;
        return true;
    }
};

// What a reload found and did.
struct ReloadReport {
    std::vector<ConfigChange> changes;
    bool refused = false;  // a change needs a restart: nothing was applied
    bool applied = false;
    std::string error;  // the file's error (file:line:column), or what failed applying
    // The verdict, then a line a change.
    std::vector<std::string> lines(bool dry_run) const;
};

class Appliance final : public ControlTarget {
  public:
    // Pools, ports and workers from a validated plan, which is built again
    // against the devices' queue limits (tx = "auto"). pool_prefix keeps
    // mempool and ring names unique when a test starts several appliances.
    // On failure what was built is shut down, and its report (the audit of
    // every pool it had made) goes to *unwound.
    static Result<std::unique_ptr<Appliance>> start(const Config& cfg, const Plan& plan,
                                                    const std::string& pool_prefix = "pmdfwd",
                                                    ShutdownReport* unwound = nullptr);
    ~Appliance() override;

    // Stop workers after their current burst, drain and stop ports, log final
    // stats, close ports, audit pools. Idempotent.
    ShutdownReport shutdown();

    bool stop_requested() const { return stop_requested_.load(); }
    // Re-reads the config file, checks it as --check does (but against
    // this machine) and compares it with the running config; unless
    // dry_run, or a change needs a restart, or the file has an error,
    // applies what changed. The caller holds control_mutex().
    ReloadReport reload(bool dry_run);
    // The running config: the file's at start or last reload, with the
    // routes added and deleted at run time.
    Config running_config() const;
    uint32_t stats_log_interval_s() const { return stats_log_interval_s_.load(); }
    // Main lcore, every few tens of ms: refill the log channel's pre-filled
    // buffers, sample the links, and log (rate limited) any data pool that
    // ran dry.
    void housekeeping();
    // How often housekeeping should run: often enough for the stall watch
    // to see a stall of [control] stall_us in its phase.
    uint64_t housekeeping_period_ms() const {
        return stall_watch_ ? stall_watch_->period_ms() : 20;
    }
    // True when, at the last housekeeping, every worker's loop was making
    // progress (what the systemd watchdog is fed on).
    bool workers_progressing() const { return !stall_watch_ || stall_watch_->all_progressing(); }
    WorkerSnapshot worker_snapshot(size_t i, Since since = Since::clear) const;
    HistogramSnapshot residence_snapshot(size_t i, Since since = Since::clear) const;
    uint64_t worker_cpu_ns(size_t i) const;  // its thread's CPU time since start
    const Port& port_at(size_t i) const { return *ports_[i].port; }
    const Plan& resolved_plan() const { return plan_; }
    rte_mempool* worker_pool(size_t i) const { return workers_[i].pool; }

    // ControlTarget (telemetry thread).
    Record info() const override;
    std::vector<std::string> plan_lines() const override;
    size_t worker_count() const override { return workers_.size(); }
    Record worker(size_t i, Since since) const override;
    size_t port_count() const override { return ports_.size(); }
    Record port(size_t i, Since since) const override;
    size_t pool_count() const override { return pools_.size(); }
    Record pool(size_t i, Since since) const override;
    Record latency(size_t i, Since since) const override;
    Record totals(Since since) const override;
    Record netlog() const override;
    Record log_test(size_t bytes, size_t count) const override;
    void clear_stats() override;
    void module_records(std::vector<Record>& out) const override;
    void request_stop() override { stop_requested_.store(true); }

  private:
    using Clock = std::chrono::steady_clock;

    // What `clear stats` takes: later reads are differences from it
    // (control plane only, under baseline_mutex_).
    struct WorkerBaseline {
        WorkerSnapshot stats;
        HistogramSnapshot residence;
        RecycleCounts recycle;  // on the worker's lcore, over the recycle pools
        uint64_t cpu_ns = 0;    // the worker thread's CPU time
        Clock::time_point at = Clock::now();
    };
    struct PoolEntry {
        explicit PoolEntry(std::unique_ptr<Pool> p, bool data_pool = false)
            : pool(std::move(p)), data(data_pool) {}
        std::unique_ptr<Pool> pool;
        bool data = false;  // a worker's pool (not a spare or the log channel's)
        RecycleCounts baseline;
        uint64_t last_alloc_empty = 0;  // watch_pools: failures already logged
        Clock::time_point last_warning{};
    };
    struct PortEntry {
        std::unique_ptr<Port> port;
        PortLimits limits;  // probed at start
        PortStats baseline;
        uint64_t last_rx_nombuf = 0;  // watch_pools: failures already logged
        Clock::time_point last_warning{};
    };
    struct WorkerEntry {
        WorkerContextPtr ctx;
        rte_mempool* pool = nullptr;  // its rx queue's, one of pools_
        HandoffRing handoff;          // to its TX queue's owner; empty: it sends itself
        bool launched = false;
        WorkerBaseline baseline;
    };

    Appliance(const Config& cfg, const Plan& plan) : cfg_(cfg), plan_(plan) {}
    Status build(const std::string& pool_prefix);
    Status resolve_plan();
    Status create_pools(const std::string& pool_prefix);
    Status open_ports(const std::string& pool_prefix);
    Status create_handoff_rings(const std::string& prefix);
    Status wire_workers();
    Status launch_workers();
    Status create_netlog(const std::string& pool_prefix);
    Status create_router(const std::string& pool_prefix);
    Status open_telemetry_gate();
    Status open_capture();
    void watch_pools();
    LoopValues loop_values(const Config& cfg) const;
    Status apply_reload(const Config& next, const std::vector<ConfigChange>& changes);
    void bind_config_endpoints();
    bool one_pool_per_tx_queue(size_t port) const;
    WorkerIdentity identity(size_t i) const;
    RecycleCounts recycle_counts_of_worker(size_t i) const;  // raw, no baseline

    Config cfg_;
    Plan plan_;
    // Declared in build order, so that the members go in reverse: workers
    // (and their handoff rings) before ports, ports before the pools whose
    // mbufs their rings hold.
    std::vector<PoolEntry> pools_;  // the plan's pools first, then spare and log channel pools
    std::vector<PortEntry> ports_;
    // What the workers' observe switches are: it outlives them.
    std::unique_ptr<TraceControl> trace_control_;
    std::vector<WorkerEntry> workers_;
    std::unique_ptr<Router> router_;                     // mode l3 only
    std::unique_ptr<RouterEndpoints> router_endpoints_;  // while router_ and the control plane run
    std::unique_ptr<TraceEndpoints> trace_endpoints_;    // while the workers and control plane run
    std::unique_ptr<NetlogChannel> netlog_;
    std::unique_ptr<CaptureServer> capture_;         // null: [control] capture = false
    std::unique_ptr<TelemetryGate> telemetry_gate_;  // null: no telemetry socket
    std::unique_ptr<MetricsExporter> metrics_;       // null: no [control] metrics
    std::unique_ptr<StallWatch> stall_watch_;        // once the workers run
    // Exporters a reload replaced: destroyed by housekeeping, which runs
    // without the control lock their scrapes may wait for.
    std::vector<std::unique_ptr<MetricsExporter>> retired_metrics_;
    std::mutex retired_mutex_;
    Config running_;                                // under the control lock
    std::vector<EndpointBinding> config_bindings_;  // /pmdfwd/reload, /pmdfwd/config
    std::vector<std::string> config_snapshot_;      // /pmdfwd/config's pages, from row 0's
    std::atomic<uint32_t> stats_log_interval_s_{0};
    bool shut_down_ = false;

    alignas(64) std::atomic<bool> stop_workers_{false};
    LoopSettings loop_settings_;  // what the workers adopt of a reload
    alignas(64) std::atomic<bool> stop_requested_{false};

    mutable std::mutex baseline_mutex_;  // control plane only: the baselines above
    Clock::time_point started_at_ = Clock::now();
    Clock::time_point next_link_watch_{};
};

}  // namespace pmdfwd
