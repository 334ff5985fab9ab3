// Composition root (see appliance.hpp). Main lcore, except the ControlTarget
// methods, which run on the telemetry thread.
#include "appliance.hpp"

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "version.hpp"

namespace pmdfwd {

Result<std::unique_ptr<Appliance>> Appliance::start(const Config& cfg, const Plan& plan,
                                                    const std::string& pool_prefix) {
    std::unique_ptr<Appliance> app(new Appliance(cfg, plan));
    if (auto st = app->build(pool_prefix); !st) return st.error();  // destructor unwinds
    return app;
}

Status Appliance::build(const std::string& pool_prefix) {
    // "<prefix>_spare<port>" must fit RTE_MEMPOOL_NAMESIZE with room for ids.
    if (pool_prefix.size() + 12 >= RTE_MEMPOOL_NAMESIZE)
        return make_error("pool name prefix '" + pool_prefix + "' is too long");
    for (const auto& w : plan_.workers) {
        if (!rte_lcore_is_enabled(w.lcore) || w.lcore == rte_get_main_lcore())
            return make_error("worker " + std::to_string(w.id) + ": lcore " +
                              std::to_string(w.lcore) +
                              " is not an enabled worker lcore of this EAL; check eal.lcores");
        auto pool = Pool::create(pool_prefix + "_w" + std::to_string(w.id), cfg_.pool.mbufs,
                                 cfg_.pool.cache, cfg_.pool.data_room,
                                 int(rte_lcore_to_socket_id(w.lcore)));
        if (!pool) return pool.error();
        pools_.push_back(std::move(pool.value()));
    }
    for (size_t p = 0; p < cfg_.ports.size(); ++p) {
        PortSetup setup;
        setup.config = &cfg_.ports[p];
        setup.plan = plan_.ports[p];
        for (const auto& w : plan_.workers)
            if (w.rx_port == p) setup.rx_pools.push_back(pools_[w.id]->mempool());
        setup.make_spare_pool = [&, p](uint32_t mbufs) -> Result<rte_mempool*> {
            auto spare = Pool::create(pool_prefix + "_spare" + std::to_string(p), mbufs, 0,
                                      cfg_.pool.data_room, SOCKET_ID_ANY);
            if (!spare) return spare.error();
            pools_.push_back(std::move(spare.value()));
            return pools_.back()->mempool();
        };
        auto port = Port::open(setup);
        if (!port) return port.error();
        ports_.push_back(std::move(port.value()));
    }
    for (const auto& wp : plan_.workers) {
        auto w = std::make_unique<WorkerContext>();
        w->id = wp.id;
        w->lcore = wp.lcore;
        w->rx_port = ports_[wp.rx_port]->id();
        w->rx_queue = wp.rx_queue;
        w->has_tx = wp.tx_port != kNoPort;
        if (w->has_tx) {
            const Port& out = *ports_[size_t(wp.tx_port)];
            w->tx_port = out.id();
            w->tx_queue = wp.tx_queue;
            if (cfg_.forward.mode == ForwardMode::l2)
                w->l2_header = L2Header::make(cfg_.forward.next_hop_mac.at(out.name()), out.mac());
        }
        w->mode = cfg_.forward.mode;
        w->burst = cfg_.forward.burst;
        w->tx_retries = cfg_.forward.tx_retries;
        w->stop = &stop_workers_;
        workers_.push_back(std::move(w));
    }
    worker_baseline_.resize(workers_.size());
    port_baseline_.resize(ports_.size());
    launched_.assign(workers_.size(), false);
    for (auto& w : workers_) {
        if (int rc = rte_eal_remote_launch(worker_main, w.get(), w->lcore); rc != 0)
            return make_error("worker " + std::to_string(w->id) + ": rte_eal_remote_launch on lcore " +
                                  std::to_string(w->lcore) + " failed: " + std::to_string(rc),
                              rc);
        launched_[w->id] = true;
    }
    control_attach(this);
    return Ok{};
}

Appliance::~Appliance() { shutdown(); }

ShutdownReport Appliance::shutdown() {
    ShutdownReport report;
    if (shut_down_) return report;
    shut_down_ = true;
    control_detach(this);
    stop_workers_.store(true);
    for (size_t i = 0; i < workers_.size(); ++i)
        if (launched_.size() > i && launched_[i]) rte_eal_wait_lcore(workers_[i]->lcore);
    for (auto& port : ports_) report.drained += port->stop_and_drain();

    std::vector<WorkerSnapshot> finals;
    for (size_t i = 0; i < workers_.size(); ++i) {
        finals.push_back(workers_[i]->stats.read());
        report.workers.push_back(worker_record(identity(i), finals.back()));
        spdlog::info("final worker {}: {}", i, report.workers.back().to_line());
    }
    report.totals = totals_record(finals);
    if (!workers_.empty()) spdlog::info("final totals: {}", report.totals.to_line());
    for (auto& port : ports_) {
        Record r;
        add_port_stats(r, port->stats());
        spdlog::info("final port '{}': {}", port->name(), r.to_line());
    }
    if (report.drained) spdlog::info("freed {} mbufs left in rx queues at stop", report.drained);
    ports_.clear();  // close devices: PMDs return the mbufs their rings hold

    for (const auto& pool : pools_) {
        report.audits.push_back(pool->audit());
        const auto& a = report.audits.back();
        if (a.missing() > 0)
            spdlog::error("pool '{}': {} of {} mbufs missing at shutdown (leak)", a.name,
                          a.missing(), a.size);
        else if (a.missing() < 0)
            spdlog::error("pool '{}': {} more mbufs than its size {} at shutdown (double free)",
                          a.name, -a.missing(), a.size);
    }
    if (report.pools_full() && !pools_.empty())
        spdlog::info("all {} pools full again at shutdown", pools_.size());
    pools_.clear();
    return report;
}

WorkerIdentity Appliance::identity(size_t i) const {
    const WorkerPlan& wp = plan_.workers[i];
    WorkerIdentity who;
    who.id = wp.id;
    who.lcore = wp.lcore;
    who.rx_port = cfg_.ports[wp.rx_port].name;
    who.rx_queue = wp.rx_queue;
    if (wp.tx_port != kNoPort) who.tx_port = cfg_.ports[size_t(wp.tx_port)].name;
    who.tx_queue = wp.tx_queue;
    return who;
}

WorkerSnapshot Appliance::worker_snapshot(size_t i) const {
    // Read under the mutex: a clear between the read and the subtraction
    // would make the baseline newer than the counters and wrap them.
    std::lock_guard lock(baseline_mutex_);
    return workers_[i]->stats.read().minus(worker_baseline_[i]);
}

Record Appliance::info() const {
    Record r;
    r.add("version", kVersion);
    r.add("pid", uint64_t(getpid()));
    r.add("config", cfg_.source_name);
    r.add("file_prefix", cfg_.eal.file_prefix);
    r.add("mode", to_string(cfg_.forward.mode));
    r.add("burst", cfg_.forward.burst);
    r.add("tx_retries", cfg_.forward.tx_retries);
    r.add("main_lcore", plan_.main_lcore);
    r.add("workers", uint64_t(workers_.size()));
    r.add("ports", uint64_t(ports_.size()));
    r.add("pools", uint64_t(pools_.size()));
    r.add("tsc_hz", rte_get_tsc_hz());
    r.add("uptime_s", uint64_t(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::steady_clock::now() - started_at_)
                                   .count()));
    return r;
}

std::vector<std::string> Appliance::plan_lines() const { return render_plan(cfg_, plan_); }

Record Appliance::worker(size_t i) const { return worker_record(identity(i), worker_snapshot(i)); }

Record Appliance::port(size_t i) const {
    const Port& p = *ports_[i];
    Record r;
    r.add("index", uint64_t(i));
    r.add("name", p.name());
    r.add("port_id", p.id());
    r.add("devargs", cfg_.ports[i].devargs);
    r.add("driver", p.driver());
    r.add("mac", p.mac().to_string());
    r.add("link", p.link_up() ? "up" : "down");
    r.add("speed_mbps", p.link_speed_mbps());
    r.add("mtu", cfg_.ports[i].mtu);
    r.add("rx_queues", p.rx_queues_configured());
    r.add("tx_queues", p.tx_queues_configured());
    {
        std::lock_guard lock(baseline_mutex_);
        add_port_stats(r, p.stats().minus(port_baseline_[i]));
    }
    return r;
}

Record Appliance::pool(size_t i) const {
    const Pool& p = *pools_[i];
    const rte_mempool* mp = p.mempool();
    return pool_record(p.audit(), mp->cache_size, rte_mempool_avail_count(mp), mp->socket_id);
}

Record Appliance::totals() const {
    std::vector<WorkerSnapshot> all;
    for (size_t i = 0; i < workers_.size(); ++i) all.push_back(worker_snapshot(i));
    return totals_record(all);
}

void Appliance::clear_stats() {
    std::lock_guard lock(baseline_mutex_);
    for (size_t i = 0; i < workers_.size(); ++i) worker_baseline_[i] = workers_[i]->stats.read();
    for (size_t i = 0; i < ports_.size(); ++i) port_baseline_[i] = ports_[i]->stats();
}

}  // namespace pmdfwd
