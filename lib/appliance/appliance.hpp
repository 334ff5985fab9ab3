// The composition root: builds pools, ports, workers and the control plane in
// order on an initialised EAL, and tears them down in reverse. Main lcore.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "config.hpp"
#include "control.hpp"
#include "error.hpp"
#include "netlog_channel.hpp"
#include "plan.hpp"
#include "pool.hpp"
#include "port.hpp"
#include "recycle_mempool.hpp"
#include "stats_records.hpp"
#include "telemetry_gate.hpp"
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
    // Main lcore, every few tens of ms: refill the log channel's pre-filled
    // buffers, and log (rate limited) any data pool that ran dry.
    void housekeeping();
    WorkerSnapshot worker_snapshot(size_t i) const;        // since last clear
    HistogramSnapshot residence_snapshot(size_t i) const;  // since last clear
    uint64_t worker_cpu_ns(size_t i) const;                // its thread's CPU time since start
    const Port& port_at(size_t i) const { return *ports_[i]; }
    const Plan& resolved_plan() const { return plan_; }
    rte_mempool* worker_pool(size_t i) const { return worker_pool_[i]; }

    // ControlTarget (telemetry thread).
    Record info() const override;
    std::vector<std::string> plan_lines() const override;
    size_t worker_count() const override { return workers_.size(); }
    Record worker(size_t i) const override;
    size_t port_count() const override { return ports_.size(); }
    Record port(size_t i) const override;
    size_t pool_count() const override { return pools_.size(); }
    Record pool(size_t i) const override;
    Record latency(size_t i) const override;
    Record totals() const override;
    Record netlog() const override;
    Record log_test(size_t bytes) const override;
    void clear_stats() override;
    void request_stop() override { stop_requested_.store(true); }

  private:
    Appliance(const Config& cfg, const Plan& plan) : cfg_(cfg), plan_(plan) {}
    Status build(const std::string& pool_prefix);
    Status resolve_plan();
    Status create_pools(const std::string& pool_prefix);
    Status create_handoff_rings(const std::string& prefix);
    Status wire_workers();
    uint64_t drain_handoff_rings();
    Status create_netlog(const std::string& pool_prefix);
    Status open_telemetry_gate();
    void watch_pools();
    bool one_pool_per_tx_queue(size_t port) const;
    WorkerIdentity identity(size_t i) const;
    RecycleCounts recycle_counts_of_worker(size_t i) const;  // raw, no baseline

    Config cfg_;
    Plan plan_;
    std::vector<std::unique_ptr<Pool>> pools_;  // worker pools first, then spare pools
    std::vector<rte_mempool*> worker_pool_;     // by worker id (all the same for "shared")
    std::vector<rte_ring*> handoff_rings_;      // by sender worker id; null: sends itself
    std::unique_ptr<NetlogChannel> netlog_;
    std::unique_ptr<TelemetryGate> telemetry_gate_;  // null: no telemetry socket
    size_t data_pool_count_ = 0;                     // pools_ before spare and netlog pools
    std::vector<uint64_t> last_alloc_empty_;         // per data pool, for watch_pools
    std::vector<uint64_t> last_rx_nombuf_;           // per port
    std::vector<std::chrono::steady_clock::time_point> last_pool_warning_;
    std::vector<std::chrono::steady_clock::time_point> last_port_warning_;
    std::vector<PortLimits> limits_;  // probed at start
    std::vector<std::unique_ptr<Port>> ports_;
    std::vector<WorkerContextPtr> workers_;
    std::vector<bool> launched_;
    bool shut_down_ = false;

    alignas(64) std::atomic<bool> stop_workers_{false};
    alignas(64) std::atomic<bool> stop_requested_{false};

    mutable std::mutex baseline_mutex_;  // control plane only
    std::vector<WorkerSnapshot> worker_baseline_;
    std::vector<HistogramSnapshot> residence_baseline_;
    struct CpuBaseline {
        uint64_t cpu_ns = 0;  // the worker thread's CPU time
        std::chrono::steady_clock::time_point at;
    };
    std::vector<CpuBaseline> cpu_baseline_;
    std::vector<PortStats> port_baseline_;
    std::vector<RecycleCounts> pool_recycle_baseline_;
    std::vector<RecycleCounts> worker_recycle_baseline_;
    std::chrono::steady_clock::time_point started_at_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point next_link_watch_{};
};

}  // namespace pmdfwd
