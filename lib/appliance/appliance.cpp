// Composition root (see appliance.hpp): start-up in order, housekeeping and
// shutdown in reverse. Main lcore; the ControlTarget methods, which run on
// the telemetry thread, are in appliance_control.cpp.
#include "appliance.hpp"

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <spdlog/spdlog.h>

#include "devargs.hpp"
#include "l3_forward.hpp"
#include "netlog_sink.hpp"
#include "pmd_quirks.hpp"

namespace pmdfwd {

Result<std::unique_ptr<Appliance>> Appliance::start(const Config& cfg, const Plan& plan,
                                                    const std::string& pool_prefix,
                                                    ShutdownReport* unwound) {
    std::unique_ptr<Appliance> app(new Appliance(cfg, plan));
    if (auto st = app->build(pool_prefix); !st) {
        // Unwound here rather than in the destructor, so that the audit of
        // what was built reaches the caller: a PMD may keep mbufs from a
        // queue set-up that failed.
        ShutdownReport report = app->shutdown();
        if (unwound) *unwound = std::move(report);
        return st.error();
    }
    return app;
}

// Top to bottom, each step on what the ones before built; shutdown() undoes
// them in reverse.
Status Appliance::build(const std::string& pool_prefix) {
    // "<prefix>_spare<port>" must fit RTE_MEMPOOL_NAMESIZE with room for ids.
    if (pool_prefix.size() + 12 >= RTE_MEMPOOL_NAMESIZE)
        return make_error("pool name prefix '" + pool_prefix + "' is too long");
    if (auto st = open_telemetry_gate(); !st) return st;
    if (!cfg_.control.metrics.empty()) {
        // Listening first: an address in use fails the start before any
        // port does. Until control_attach, scrapes answer pmdfwd_up 0.
        auto exporter = MetricsExporter::start(cfg_.control.metrics, cfg_.control.metrics_allow);
        if (!exporter) return exporter.error();
        metrics_ = std::move(exporter.value());
        spdlog::info("metrics: http://{}/metrics", cfg_.control.metrics);
    }
    if (auto st = resolve_plan(); !st) return st;
    for (const auto& line : render_plan(cfg_, plan_)) spdlog::info("plan: {}", line);
    for (const auto& w : plan_.workers)
        if (!rte_lcore_is_enabled(w.lcore) || w.lcore == rte_get_main_lcore())
            return make_error("worker " + std::to_string(w.id) + ": lcore " +
                              std::to_string(w.lcore) +
                              " is not an enabled worker lcore of this EAL; check eal.lcores");
    if (auto st = create_pools(pool_prefix); !st) return st;
    if (auto st = open_ports(pool_prefix); !st) return st;
    if (cfg_.netlog.enabled)
        if (auto st = create_netlog(pool_prefix); !st) return st;
    // Port set-up allocated on this lcore: give back what its cache kept, so
    // every free buffer is reachable by the pools' owners.
    for (const auto& e : pools_) rte_mempool_cache_flush(nullptr, e.pool->mempool());
    for (auto& e : ports_) e.port->watch_link();
    if (auto st = create_handoff_rings(pool_prefix); !st) return st;
    if (cfg_.forward.mode == ForwardMode::l3)
        if (auto st = create_router(pool_prefix); !st) return st;
    trace_control_ = std::make_unique<TraceControl>(plan_.workers.size(), rte_get_tsc_hz());
    running_ = cfg_;
    stats_log_interval_s_.store(cfg_.control.stats_log_interval_s);
    loop_settings_.publish(loop_values(cfg_));
    if (auto st = wire_workers(); !st) return st;
    if (auto st = launch_workers(); !st) return st;
    if (router_) router_->start();
    if (cfg_.control.capture)
        if (auto st = open_capture(); !st) return st;
    control_attach(this);
    if (router_) {
        std::vector<std::string> port_names;
        for (const auto& port : cfg_.ports) port_names.push_back(port.name);
        router_endpoints_ = std::make_unique<RouterEndpoints>(*router_, std::move(port_names));
    }
    TracePortNames trace_ports;
    for (size_t p = 0; p < ports_.size(); ++p) {
        trace_ports.by_index.push_back(cfg_.ports[p].name);
        trace_ports.ethdev_ids.push_back(ports_[p].port->id());
    }
    RouteNamer route_of;
    if (router_)
        route_of = [router = router_.get()](const IpAddress& a) -> std::string {
            const auto r = router->route_of(a);
            if (!r) return {};
            return r->prefix.to_string() + " (" + r->origin +
                   (r->via.empty() ? "" : ", via " + r->via) +
                   (r->port.empty() ? "" : ", port " + r->port) + ")";
        };
    trace_endpoints_ = std::make_unique<TraceEndpoints>(*trace_control_, std::move(trace_ports),
                                                        std::move(route_of));
    bind_config_endpoints();
    return Ok{};
}

// First, so that no request reaches DPDK's socket unchecked for longer than
// EAL's start-up took.
Status Appliance::open_telemetry_gate() {
    if (!cfg_.control.telemetry) return Ok{};
    TelemetryGateOptions options;
    options.runtime_dir = rte_eal_get_runtime_dir();
    options.idle_timeout_ms = cfg_.control.telemetry_idle_s * 1000;
    options.max_clients = cfg_.control.telemetry_max_clients;
    options.limits = {RTE_MAX_ETHPORTS, RTE_MAX_HEAPS, RTE_MAX_MEMZONE, RTE_MEMPOOL_NAMESIZE};
    auto gate = TelemetryGate::open(std::move(options));
    if (!gate) {
        // EAL started with --no-telemetry (as the tests do): nothing to guard.
        if (gate.error().code == -ENOENT) return Ok{};
        return gate.error();
    }
    telemetry_gate_ = std::move(gate.value());
    return Ok{};
}

// Last, once every port and queue exists: a capture's request names a port
// and takes all of its queues.
Status Appliance::open_capture() {
    auto server = CaptureServer::open();
    if (!server) return server.error();
    capture_ = std::move(server.value());
    std::string devices;
    for (const auto& port : cfg_.ports)
        devices += (devices.empty() ? "'" : ", '") + device_key(port.devargs) + "'";
    spdlog::info("capture: dpdk-dumpcap --file-prefix {} -i <device> captures from {}",
                 cfg_.eal.file_prefix, devices);
    return Ok{};
}

// tx = "auto" needs each device's queue limits, known only once EAL has
// probed it: the plan is built again with them.
Status Appliance::resolve_plan() {
    std::vector<PortLimits> limits;
    for (const auto& port : cfg_.ports) {
        auto l = probe_port_limits(port);
        if (!l) return l.error();
        limits.push_back(l.value());
    }
    auto planned = build_plan(cfg_, &limits);
    if (const auto* e = std::get_if<ConfigError>(&planned)) return make_error(e->to_string());
    plan_ = std::get<Plan>(std::move(planned));
    ports_.resize(limits.size());
    for (size_t p = 0; p < limits.size(); ++p) ports_[p].limits = limits[p];
    return Ok{};
}

// The plan's pools, and each worker's entry pointing at its own.
Status Appliance::create_pools(const std::string& pool_prefix) {
    const PoolConfig& pc = cfg_.pool;
    for (const PoolPlan& pp : plan_.pools) {
        const std::string name = pool_prefix + "_" + pp.suffix;
        const int socket = int(rte_lcore_to_socket_id(pp.socket_lcore));
        auto pool = pp.recycle
                        ? Pool::create_recycle(name, pc.mbufs, pc.cache, pc.data_room, socket,
                                               pp.owner_lcore, pc.color)
                        : Pool::create(name, pc.mbufs, pc.cache, pc.data_room, socket, pc.color);
        if (!pool) return pool.error();
        pools_.emplace_back(std::move(pool.value()), true);
    }
    workers_.resize(plan_.workers.size());
    for (const auto& w : plan_.workers) workers_[w.id].pool = pools_[w.pool].pool->mempool();
    return Ok{};
}

// Fast free is safe on port p when each of its TX queues sees one pool: one
// shared pool, or per-worker queues whose senders forward only their own
// pool's mbufs (no spare rx queues a quirk adds to the port they poll).
bool Appliance::one_pool_per_tx_queue(size_t p) const {
    if (plan_.pools.size() == 1) return true;
    if (plan_.ports[p].tx != TxMode::per_worker) return false;
    for (const auto& w : plan_.workers) {
        if (w.tx_port != int(p)) continue;
        const PortPlan& in = plan_.ports[w.rx_port];
        if (configured_queue_counts(ports_[w.rx_port].limits.driver, in.rx_queues, in.tx_queues)
                .rx > in.rx_queues)
            return false;
    }
    return true;
}

// Every port configured and started, its rx queues fed by their workers'
// pools (and by a spare pool where a quirk adds rx queues).
Status Appliance::open_ports(const std::string& pool_prefix) {
    for (size_t p = 0; p < cfg_.ports.size(); ++p) {
        PortSetup setup;
        setup.config = &cfg_.ports[p];
        setup.plan = plan_.ports[p];
        for (const auto& w : plan_.workers)
            if (w.rx_port == p) setup.rx_pools.push_back(workers_[w.id].pool);
        setup.one_pool_per_tx_queue = one_pool_per_tx_queue(p);
        for (const auto& w : plan_.workers)
            if (w.rx_port == p && w.poll == PollMode::interrupt) setup.rx_interrupts = true;
        setup.rx_ipv4_checksum = cfg_.forward.mode == ForwardMode::l3;
        setup.make_spare_pool = [&, p](uint32_t mbufs) -> Result<rte_mempool*> {
            auto spare = Pool::create(pool_prefix + "_spare" + std::to_string(p), mbufs, 0,
                                      cfg_.pool.data_room, SOCKET_ID_ANY, cfg_.pool.color);
            if (!spare) return spare.error();
            pools_.emplace_back(std::move(spare.value()));
            return pools_.back().pool->mempool();
        };
        auto port = Port::open(setup);
        if (!port) return port.error();
        ports_[p].port = std::move(port.value());
    }
    return Ok{};
}

// The log channel: its own pool (never a data path's), its own TX queue on
// its port, and the spdlog sink pointed at it.
Status Appliance::create_netlog(const std::string& pool_prefix) {
    const NetlogConfig& nc = cfg_.netlog;
    size_t p = 0;
    while (p < cfg_.ports.size() && cfg_.ports[p].name != nc.port) ++p;
    if (p == cfg_.ports.size() || plan_.ports[p].netlog_queue < 0)
        return make_error("netlog: port '" + nc.port + "' has no log channel queue in the plan");
    const Port& port = *ports_[p].port;
    // Headroom, the 42 header bytes and one 1000-byte datagram, rounded up.
    constexpr uint16_t kDataRoom = 128 + 1088;
    auto pool = Pool::create(pool_prefix + "_netlog", nc.reserve, 0, kDataRoom,
                             rte_eth_dev_socket_id(port.id()));
    if (!pool) return pool.error();
    pools_.emplace_back(std::move(pool.value()));
    NetlogSetup setup;
    setup.config = nc;
    setup.port_id = port.id();
    setup.queue = uint16_t(plan_.ports[p].netlog_queue);
    setup.src_mac = port.mac();
    setup.port_name = nc.port;
    setup.reserve = pools_.back().pool->mempool();
    auto ch = NetlogChannel::create(setup);
    if (!ch) return ch.error();
    netlog_ = std::move(ch.value());
    netlog_attach(netlog_.get());
    spdlog::info("netlog: sending {} records at {} and above to {}:{} via port '{}' txq {}",
                 to_string(nc.format), nc.level, nc.dst_ip.to_string(), nc.dst_port, nc.port,
                 setup.queue);
    return Ok{};
}

// One single-producer/single-consumer ring per worker that hands off, on the
// owner's socket: the owner is the one that reads it in its loop.
Status Appliance::create_handoff_rings(const std::string& prefix) {
    for (const auto& w : plan_.workers) {
        if (w.handoff_to == kNoWorker) continue;
        const unsigned owner_lcore = plan_.workers[size_t(w.handoff_to)].lcore;
        auto ring =
            HandoffRing::create(prefix + "_h" + std::to_string(w.id), cfg_.forward.handoff_ring,
                                int(rte_lcore_to_socket_id(owner_lcore)));
        if (!ring)
            return make_error("worker " + std::to_string(w.id) + ": " + ring.error().message,
                              ring.error().code);
        workers_[w.id].handoff = std::move(ring.value());
    }
    return Ok{};
}

Status Appliance::wire_workers() {
    for (const auto& wp : plan_.workers) {
        auto w = make_worker_context(wp.lcore);
        if (!w)
            return make_error("worker " + std::to_string(wp.id) +
                              ": no EAL memory left for its context; raise eal.memory_mb");
        w->id = wp.id;
        w->lcore = wp.lcore;
        w->rx_port = ports_[wp.rx_port].port->id();
        w->rx_queue = wp.rx_queue;
        if (wp.rx_queue == 0) {
            const Port& in = *ports_[wp.rx_port].port;
            w->spare_rx_first = plan_.ports[wp.rx_port].rx_queues;
            w->spare_rx_count = uint16_t(in.rx_queues_configured() - w->spare_rx_first);
        }
        w->has_tx = wp.tx_port != kNoPort;
        if (w->has_tx) {
            const Port& out = *ports_[size_t(wp.tx_port)].port;
            w->tx = {out.id(), wp.tx_queue, out.link_cell()};
            w->tx_max_frame_bytes = max_frame_bytes(cfg_.ports[size_t(wp.tx_port)].mtu);
            w->handoff_out = workers_[wp.id].handoff.get();
            if (cfg_.forward.mode == ForwardMode::l2)
                w->l2_header = L2Header::make(cfg_.forward.next_hop_mac.at(out.name()), out.mac());
        }
        if (router_) {
            w->router = router_->view();
            w->punt = router_->punt_ring(wp.id);
            w->rcu_id = wp.id;
            set_l3_own_mac(*w, ports_[wp.rx_port].port->mac().bytes.data());
            w->l3_rx_checksum = ports_[wp.rx_port].port->rx_ipv4_checksum();
            w->l3_kernel_groups = !cfg_.ports[wp.rx_port].kernel_interface.empty();
            set_icmp_budget(*w, cfg_.l3.icmp_rate_limit, cfg_.l3.icmp_rate_burst, rte_get_tsc_hz());
            for (size_t p = 0; p < wp.l3_tx_queue.size(); ++p) {
                if (wp.l3_tx_queue[p] < 0) continue;
                const Port& out = *ports_[p].port;
                w->l3_tx[p] = {out.id(), uint16_t(wp.l3_tx_queue[p]), out.link_cell()};
                w->l3_max_frame[p] = max_routed_frame_bytes(cfg_.ports[p].mtu);
            }
        }
        for (const auto& sender : plan_.workers)
            if (sender.handoff_to == int(wp.id)) {
                const Port& out = *ports_[size_t(sender.tx_port)].port;
                w->handoff_in[w->handoff_in_count++] = {
                    workers_[sender.id].handoff.get(),
                    {out.id(), sender.tx_queue, out.link_cell()}};
            }
        // Its frees of other workers' recycle pools go home in batches.
        for (size_t k = 0; k < plan_.pools.size(); ++k)
            if (plan_.pools[k].recycle && k != wp.pool)
                w->defer_flush[w->defer_flush_count++] =
                    make_defer_flush(pools_[k].pool->mempool(), wp.lcore);
        w->pool = workers_[wp.id].pool;
        w->pool_recycles = plan_.pools[wp.pool].recycle;
        w->mode = cfg_.forward.mode;
        w->burst = cfg_.forward.burst;
        w->tx_retries = cfg_.forward.tx_retries;
        w->poll = wp.poll;
        if (wp.poll != PollMode::busy) w->idle_polls = cfg_.poll.idle_polls_for(wp.poll);
        w->max_sleep_us = cfg_.poll.max_sleep_us;
        w->latency = cfg_.forward.latency;
        w->read_lengths = cfg_.forward.read_lengths;
        w->stall_cycles = uint64_t(cfg_.control.stall_us) * rte_get_tsc_hz() / 1000000;
        w->stop = &stop_workers_;
        w->settings = &loop_settings_;
        w->settings_version = loop_settings_.version();
        w->observe = trace_control_->switch_of(wp.id);
        w->observe_mark = trace_control_->mark_of(wp.id);
        workers_[wp.id].ctx = std::move(w);
    }
    return Ok{};
}

// Router mode: its tables, each worker's ring to the control path, and the
// control path's own pool (audited with the others at shutdown).
Status Appliance::create_router(const std::string& pool_prefix) {
    // Requests, replies and ICMP errors in flight on the control TX queues.
    constexpr uint32_t kControlPoolMbufs = 1023;
    auto pool = Pool::create(pool_prefix + "_l3", kControlPoolMbufs, 0, cfg_.pool.data_room,
                             SOCKET_ID_ANY, cfg_.pool.color);
    if (!pool) return pool.error();
    pools_.emplace_back(std::move(pool.value()));
    std::vector<RouterPort> ports;
    for (size_t p = 0; p < ports_.size(); ++p) {
        const Port& port = *ports_[p].port;
        ports.push_back({cfg_.ports[p].name, port.id(), plan_.ports[p].control_queue, port.mac(),
                         cfg_.ports[p].addresses, cfg_.ports[p].mtu, cfg_.ports[p].kernel_interface,
                         port.link_cell()});
    }
    auto router = Router::create(cfg_, std::move(ports), unsigned(plan_.workers.size()),
                                 SOCKET_ID_ANY, pool_prefix + "_rt", pools_.back().pool->mempool());
    if (!router) return router.error();
    router_ = std::move(router.value());
    return Ok{};
}

Status Appliance::launch_workers() {
    for (auto& e : workers_) {
        WorkerContext& w = *e.ctx;
        if (int rc = rte_eal_remote_launch(worker_main, &w, w.lcore); rc != 0)
            return make_error("worker " + std::to_string(w.id) +
                                  ": rte_eal_remote_launch on lcore " + std::to_string(w.lcore) +
                                  " failed: " + std::to_string(rc),
                              rc);
        e.launched = true;
    }
    std::vector<const WorkerContext*> contexts;
    std::vector<std::string> names;
    for (size_t i = 0; i < workers_.size(); ++i) {
        const WorkerIdentity who = identity(i);
        contexts.push_back(workers_[i].ctx.get());
        names.push_back("worker " + std::to_string(who.id) + " (lcore " +
                        std::to_string(who.lcore) + ", " + who.rx_port + " rxq " +
                        std::to_string(who.rx_queue) + ")");
    }
    stall_watch_ = std::make_unique<StallWatch>(
        std::move(contexts), std::move(names),
        uint64_t(cfg_.control.stall_us) * rte_get_tsc_hz() / 1000000, rte_get_tsc_hz());
    return Ok{};
}

void Appliance::housekeeping() {
    if (stall_watch_) stall_watch_->sample();
    if (netlog_) netlog_->refill();
    watch_pools();
    // A link sample costs a few system calls per port (net_tap: an fdinfo
    // read and two ioctls); a TX shortfall in the ~100 ms before a link
    // change is seen still counts as tx_full.
    constexpr auto kLinkWatchInterval = std::chrono::milliseconds(100);
    if (const auto now = Clock::now(); now >= next_link_watch_) {
        for (auto& e : ports_) e.port->watch_link();
        next_link_watch_ = now + kLinkWatchInterval;
    }
    if (router_endpoints_) router_endpoints_->summarize_route_changes();
    if (trace_control_) trace_control_->housekeeping();
    std::vector<std::unique_ptr<MetricsExporter>> retired;
    {
        std::lock_guard lock(retired_mutex_);
        retired.swap(retired_metrics_);
    }
}

// A data pool that ran dry is logged (and so sent on the log channel) at most
// once a second per pool and per port: seen as allocation failures (exact,
// for recycle pools), as an empty pool when sampled, or as a port's
// rx_nombuf growing.
void Appliance::watch_pools() {
    const auto now = Clock::now();
    const auto quiet = [&](Clock::time_point& last) {
        if (now - last < std::chrono::seconds(1)) return true;
        last = now;
        return false;
    };
    for (auto& e : ports_) {
        const uint64_t nombuf = e.port->stats().rx_nombuf;
        const uint64_t grown = nombuf - std::min(nombuf, e.last_rx_nombuf);
        e.last_rx_nombuf = nombuf;
        if (grown != 0 && !quiet(e.last_warning))
            spdlog::warn(
                "port '{}': {} receive buffer allocations failed since the last check: "
                "the pool of its rx queues is exhausted",
                e.port->name(), grown);
    }
    for (auto& e : pools_) {
        if (!e.data) continue;
        rte_mempool* mp = e.pool->mempool();
        uint64_t failures = 0;
        if (e.pool->recycles()) {
            const uint64_t empty = recycle_counts(mp).alloc_empty;
            failures = empty - std::min(empty, e.last_alloc_empty);
            e.last_alloc_empty = empty;
        }
        const unsigned avail = rte_mempool_avail_count(mp);
        if ((failures == 0 && avail != 0) || quiet(e.last_warning)) continue;
        spdlog::warn(
            "pool '{}' exhausted: {} of {} mbufs in use, {} allocation failures since "
            "the last check",
            e.pool->name(), mp->size - avail, mp->size, failures);
    }
}

Appliance::~Appliance() { shutdown(); }

// build() in reverse. A start that failed half-way comes here too, so every
// step copes with what was not built.
ShutdownReport Appliance::shutdown() {
    ShutdownReport report;
    if (shut_down_) return report;
    shut_down_ = true;
    router_endpoints_.reset();
    trace_endpoints_.reset();
    config_bindings_.clear();
    control_detach(this);
    metrics_.reset();
    {
        std::lock_guard lock(retired_mutex_);
        retired_metrics_.clear();
    }
    telemetry_gate_.reset();
    stop_workers_.store(true);
    for (const auto& e : workers_)
        if (e.launched) rte_eal_wait_lcore(e.ctx->lcore);
    // Punted packets and those waiting for a neighbour go home; nothing
    // reads the router's tables any more.
    if (router_) {
        router_->stop();
        router_.reset();
    }
    // Bursts handed off but not yet transmitted when the workers stopped.
    for (auto& e : workers_) {
        report.handoff_drained += e.handoff.drain();
        e.handoff = HandoffRing{};
    }
    report.drained += report.handoff_drained;

    // The final lines are logged while every port still runs, so the log
    // channel can send them; then it stops, before any port does.
    std::vector<WorkerSnapshot> finals;
    for (size_t i = 0; i < workers_.size() && workers_[i].ctx; ++i) {
        finals.push_back(workers_[i].ctx->stats.read());
        report.workers.push_back(worker_record(identity(i), finals.back()));
        spdlog::info("final worker {}: {}", i, report.workers.back().to_line());
    }
    report.totals = totals_record(finals, in_flight_level(finals));
    if (!finals.empty()) spdlog::info("final totals: {}", report.totals.to_line());
    for (const auto& e : ports_)
        if (e.port)
            spdlog::info("final port '{}': {}", e.port->name(),
                         port_counters_record(e.port->stats()).to_line());
    if (netlog_) {
        spdlog::info("netlog: {}", netlog_->stats().to_line());
        netlog_detach();
        netlog_.reset();  // its buffers go home
    }
    for (auto& e : ports_)
        if (e.port) report.drained += e.port->stop_and_drain();
    if (report.drained)
        spdlog::info("freed {} mbufs left in rx queues and handoff rings at stop", report.drained);
    // After the drain's last rx_burst: a capture still attached keeps its
    // callbacks, and they would write the statistics this frees. Before the
    // ports close, so no capture request reaches a closed port.
    capture_.reset();
    ports_.clear();  // close devices: PMDs return the mbufs their rings hold

    for (const auto& e : pools_) {
        report.audits.push_back(e.pool->audit());
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

}  // namespace pmdfwd
