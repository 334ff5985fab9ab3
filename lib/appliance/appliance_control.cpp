// The appliance's control-plane side (see appliance.hpp): the records the
// telemetry commands return, clearing stats, the log channel's test record.
// Runs on the telemetry thread, except worker_snapshot (any thread).
#include <rte_cycles.h>
#include <rte_mempool.h>
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "appliance.hpp"
#include "netlog_api.hpp"
#include "version.hpp"

namespace pmdfwd {

WorkerIdentity Appliance::identity(size_t i) const {
    const WorkerPlan& wp = plan_.workers[i];
    WorkerIdentity who;
    who.id = wp.id;
    who.lcore = wp.lcore;
    who.rx_port = cfg_.ports[wp.rx_port].name;
    who.rx_queue = wp.rx_queue;
    if (wp.tx_port != kNoPort) who.tx_port = cfg_.ports[size_t(wp.tx_port)].name;
    if (cfg_.forward.mode == ForwardMode::l3) who.tx_port = "routed";
    who.tx_queue = wp.tx_queue;
    who.poll = to_string(wp.poll);
    return who;
}

WorkerSnapshot Appliance::worker_snapshot(size_t i, Since since) const {
    // Read under the mutex: a clear between the read and the subtraction
    // would make the baseline newer than the counters and wrap them.
    std::lock_guard lock(baseline_mutex_);
    const WorkerSnapshot now = workers_[i].ctx->stats.read();
    return since == Since::start ? now : now.minus(workers_[i].baseline.stats);
}

Record Appliance::info() const {
    const RecordSchema& t = kInfoRecord;
    Record r(t);
    r.set(t.at("version"), kVersion);
    r.set(t.at("pid"), uint64_t(getpid()));
    r.set(t.at("config"), cfg_.source_name);
    r.set(t.at("file_prefix"), cfg_.eal.file_prefix);
    r.set(t.at("mode"), std::string(to_string(cfg_.forward.mode)));
    r.set(t.at("burst"), cfg_.forward.burst);
    r.set(t.at("tx_retries"), cfg_.forward.tx_retries);
    r.set(t.at("read_lengths"), cfg_.forward.read_lengths ? "true" : "false");
    r.set(t.at("pool_model"), std::string(to_string(plan_.pool_model)));
    r.set(t.at("pool_model_source"), std::string(plan_.pool_model_source()));
    r.set(t.at("main_lcore"), plan_.main_lcore);
    r.set(t.at("workers"), uint64_t(workers_.size()));
    r.set(t.at("ports"), uint64_t(ports_.size()));
    r.set(t.at("pools"), uint64_t(pools_.size()));
    r.set(t.at("tsc_hz"), rte_get_tsc_hz());
    r.set(
        t.at("uptime_s"),
        uint64_t(
            std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started_at_).count()));
    if (telemetry_gate_) {
        const auto& c = telemetry_gate_->counters();
#define PMDFWD_SET_TELEMETRY(name, unit, kind, help) r.set(t.at("telemetry_" #name), c.name.load());
        PMDFWD_TELEMETRY_COUNTERS(PMDFWD_SET_TELEMETRY)
#undef PMDFWD_SET_TELEMETRY
    }
    return r;
}

std::vector<std::string> Appliance::plan_lines() const { return render_plan(cfg_, plan_); }

RecycleCounts Appliance::recycle_counts_of_worker(size_t i) const {
    RecycleCounts sum;
    for (const auto& e : pools_)
        if (e.pool->recycles())
            sum += recycle_counts_of_lcore(e.pool->mempool(), workers_[i].ctx->lcore);
    return sum;
}

HistogramSnapshot Appliance::residence_snapshot(size_t i, Since since) const {
    std::lock_guard lock(baseline_mutex_);
    const HistogramSnapshot now = workers_[i].ctx->residence.read();
    return since == Since::start ? now : now.minus(workers_[i].baseline.residence);
}

uint64_t Appliance::worker_cpu_ns(size_t i) const {
    const WorkerContext& w = *workers_[i].ctx;
    clockid_t clock;
    timespec ts{};
    if (!w.thread_known.load(std::memory_order_acquire) ||
        pthread_getcpuclockid(w.thread, &clock) != 0 || clock_gettime(clock, &ts) != 0)
        return 0;
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

Record Appliance::worker(size_t i, Since since) const {
    Record r = worker_record(identity(i), worker_snapshot(i, since));
    {
        // The core's share as the kernel counts it, since the last clear.
        std::lock_guard lock(baseline_mutex_);
        const WorkerBaseline& base = workers_[i].baseline;
        const bool from_start = since == Since::start;
        const uint64_t now_cpu = worker_cpu_ns(i);
        const uint64_t cpu = now_cpu - std::min(now_cpu, from_start ? 0 : base.cpu_ns);
        const auto wall = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       Clock::now() - (from_start ? started_at_ : base.at))
                                       .count());
        r.set(kWorkerRecord.at("cpu_ns"), cpu);
        r.set(kWorkerRecord.at("cpu_permille"),
              wall ? std::min<uint64_t>(1000, cpu * 1000 / wall) : 0);
    }
    const uint64_t hz = rte_get_tsc_hz();
    const uint64_t quiet = loop_quiet_cycles(workers_[i].ctx->beat, rte_rdtsc());
    r.set(kWorkerRecord.at("quiet_ns"), uint64_t(double(quiet) * 1e9 / double(hz)));
    r.set(kWorkerRecord.at("hung"), uint64_t(quiet >= StallWatch::kHungAfterMs * hz / 1000));
    if (plan_.recycles()) {
        std::lock_guard lock(baseline_mutex_);
        const RecycleCounts now = recycle_counts_of_worker(i);
        add_worker_recycle_counts(
            r, since == Since::start ? now : now.minus(workers_[i].baseline.recycle));
    }
    return r;
}

Record Appliance::latency(size_t i, Since since) const {
    return latency_record(identity(i), cfg_.forward.latency, residence_snapshot(i, since),
                          rte_get_tsc_hz());
}

Record Appliance::port(size_t i, Since since) const {
    const Port& p = *ports_[i].port;
    PortIdentity who;
    who.index = i;
    who.name = p.name();
    who.port_id = p.id();
    who.devargs = cfg_.ports[i].devargs;
    who.driver = p.driver();
    who.mac = p.mac().to_string();
    who.link = std::string(to_string(p.link()));
    who.speed_mbps = p.link_speed_mbps();
    who.mtu = cfg_.ports[i].mtu;
    who.rx_queues = p.rx_queues_configured();
    who.tx_queues = p.tx_queues_configured();
    const PortStats now = p.stats();
    std::lock_guard lock(baseline_mutex_);
    return port_record(who, since == Since::start ? now : now.minus(ports_[i].baseline));
}

Record Appliance::pool(size_t i, Since since) const {
    const Pool& p = *pools_[i].pool;
    const rte_mempool* mp = p.mempool();
    Record r = pool_record(p.audit(), mp->cache_size, rte_mempool_avail_count(mp), mp->socket_id,
                           rte_mempool_get_ops(mp->ops_index)->name);
    if (p.recycles()) {
        const RecycleCounts now = recycle_counts(mp);
        std::lock_guard lock(baseline_mutex_);
        add_recycle_pool(r, recycle_owner(mp), recycle_levels(mp),
                         since == Since::start ? now : now.minus(pools_[i].baseline));
    }
    return r;
}

Record Appliance::totals(Since since) const {
    std::vector<WorkerSnapshot> all, raw;
    for (size_t i = 0; i < workers_.size(); ++i) all.push_back(worker_snapshot(i, since));
    for (const auto& w : workers_) raw.push_back(w.ctx->stats.read());
    return totals_record(all, in_flight_level(raw));
}

void Appliance::clear_stats() {
    std::lock_guard lock(baseline_mutex_);
    for (size_t i = 0; i < workers_.size(); ++i) {
        WorkerBaseline& base = workers_[i].baseline;
        base.stats = workers_[i].ctx->stats.read();
        base.residence = workers_[i].ctx->residence.read();
        base.recycle = recycle_counts_of_worker(i);
        base.cpu_ns = worker_cpu_ns(i);
        base.at = Clock::now();
    }
    for (auto& e : ports_) e.baseline = e.port->stats();
    for (auto& e : pools_)
        if (e.pool->recycles()) e.baseline = recycle_counts(e.pool->mempool());
}

Record Appliance::netlog() const {
    if (!netlog_) {
        Record r(kLogRecord);
        r.set(kLogRecord.at("enabled"), "false");
        return r;
    }
    return netlog_->stats();
}

Record Appliance::log_test(size_t bytes, size_t count) const {
    std::string text = "netlog test record of " + std::to_string(bytes) + " bytes:";
    for (size_t i = 0; text.size() < bytes; ++i) text += " " + std::to_string(i);
    text.resize(bytes);
    for (size_t i = 0; i < count; ++i) spdlog::warn("{}", text);
    Record r(kLogTestRecord);
    r.set(kLogTestRecord.at("result"), "logged");
    r.set(kLogTestRecord.at("bytes"), uint64_t(bytes));
    r.set(kLogTestRecord.at("count"), uint64_t(count));
    r.set(kLogTestRecord.at("channel"), netlog_ ? "on" : "off");
    return r;
}

// Router mode's counters, for a scrape; its endpoints serve the rest.
void Appliance::module_records(std::vector<Record>& out) const {
    if (router_)
        out.push_back(
            router_record(router_->sizes(), router_->counters(), router_->neighbour_counters()));
}

}  // namespace pmdfwd
