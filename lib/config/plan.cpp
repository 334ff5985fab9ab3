// Cross-field config checks and worker/queue assignment (see plan.hpp).
#include "plan.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "config_place.hpp"
#include "devargs.hpp"
#include "l3_config_check.hpp"
#include "lcore_list.hpp"
#include "memory_plan.hpp"
#include "pmd_quirks.hpp"

namespace pmdfwd {

namespace {

std::variant<std::vector<int>, ConfigError> resolve_pairs(const Config& cfg) {
    std::vector<int> out(cfg.ports.size(), kNoPort);
    for (const auto& pair : cfg.forward.pairs) {
        const int from = port_index(cfg, pair.from);
        const int to = port_index(cfg, pair.to);
        for (const auto* name : {&pair.from, &pair.to})
            if (port_index(cfg, *name) == kNoPort)
                return config_error_at(
                    cfg, pair.loc, "forward.pairs",
                    "pair names port '" + *name + "', which is not a configured [[port]]");
        if (out[size_t(from)] != kNoPort)
            return config_error_at(cfg, pair.loc, "forward.pairs",
                                   "port '" + pair.from + "' is the source of more than one pair");
        out[size_t(from)] = to;
    }
    return out;
}

// Per-worker queues unless the port says owner, or says auto and the device
// cannot give every sender a queue of its own.
std::optional<ConfigError> assign_tx_queues(const Config& cfg, size_t p, const PortLimits* limits,
                                            Plan& plan) {
    const PortConfig& port = cfg.ports[p];
    PortPlan& pp = plan.ports[p];
    std::vector<WorkerPlan*> senders, pollers;
    for (auto& w : plan.workers) {
        if (w.tx_port == int(p)) senders.push_back(&w);
        if (w.rx_port == p) pollers.push_back(&w);
    }
    // The log channel's queue is never a worker's: one more on its port.
    const uint16_t extra = cfg.netlog.enabled && cfg.netlog.port == port.name ? 1 : 0;
    const auto fits = [&](uint16_t tx) {
        const QueueCounts q =
            configured_queue_counts(limits->driver, pp.rx_queues, uint16_t(tx + extra));
        return q.rx <= limits->max_rx_queues && q.tx <= limits->max_tx_queues;
    };
    if (limits && pp.rx_queues > limits->max_rx_queues)
        return config_error_at(cfg, port.loc, "port[" + std::to_string(p) + "].rx_queues",
                               "port '" + port.name + "' (" + limits->driver + ") allows at most " +
                                   std::to_string(limits->max_rx_queues) +
                                   " rx queues but the plan needs " + std::to_string(pp.rx_queues) +
                                   "; lower rx_queues for this port");
    const SourceLoc loc = port.tx_loc.line ? port.tx_loc : port.loc;
    const std::string key = "port[" + std::to_string(p) + "].tx";
    pp.tx = port.tx;
    pp.tx_resolved = port.tx != TxMode::auto_select || limits;
    if (port.tx == TxMode::auto_select)
        pp.tx = !limits || fits(uint16_t(senders.size())) ? TxMode::per_worker : TxMode::owner;
    if (pp.tx == TxMode::per_worker) {
        if (limits && !fits(uint16_t(senders.size())))
            return config_error_at(
                cfg, loc, key,
                "port '" + port.name + "' (" + limits->driver + ") allows at most " +
                    std::to_string(limits->max_tx_queues) + " tx queues but tx = " +
                    "\"per-worker\" needs " + std::to_string(senders.size() + extra) +
                    " (one per sending worker" + (extra ? ", one for the log channel" : "") +
                    "); set tx = \"owner\" or \"auto\"");
        for (auto* w : senders) w->tx_queue = pp.tx_queues++;
        if (extra) pp.netlog_queue = pp.tx_queues++;
        return std::nullopt;
    }
    if (senders.empty()) {
        if (limits && !fits(0))
            return config_error_at(cfg, loc, key,
                                   "port '" + port.name + "' (" + limits->driver +
                                       ") cannot set up a tx queue for the log channel");
        if (extra) pp.netlog_queue = pp.tx_queues++;
        return std::nullopt;
    }
    // Owner mode: queue q belongs to the worker polling rx queue q, so the
    // owner sits on the port it transmits on; a port nobody polls gets one
    // queue, owned by its first sender.
    std::vector<WorkerPlan*> owners = pollers.empty() ? std::vector{senders.front()} : pollers;
    if (owners.size() > senders.size()) owners.resize(senders.size());  // no queue nobody uses
    if (limits) {
        uint16_t most = 1;
        while (most < owners.size() && fits(uint16_t(most + 1))) ++most;
        if (!fits(most))
            return config_error_at(
                cfg, loc, key,
                "port '" + port.name + "' (" + limits->driver + ") cannot set up " +
                    (extra ? "a tx queue for its workers and one for the log channel; "
                             "put [netlog] on another port"
                           : "even one tx queue"));
        owners.resize(most);
    }
    pp.tx_queues = uint16_t(owners.size());
    for (size_t k = 0; k < senders.size(); ++k) {
        WorkerPlan* w = senders[k];
        const auto own = std::find(owners.begin(), owners.end(), w);
        const size_t q = own != owners.end() ? size_t(own - owners.begin()) : k % owners.size();
        w->tx_queue = uint16_t(q);
        if (owners[q] != w) w->handoff_to = int(owners[q]->id);
    }
    if (extra) pp.netlog_queue = pp.tx_queues++;
    return std::nullopt;
}

// l3 mode: every worker may send on every port with addresses, so each has
// a TX queue of its own there, and the control path one more (ARP, ND,
// ICMP). Handing bursts off would need a ring per (worker, port) pair and
// per-packet sorting on the owner: devices too small for this are refused.
std::optional<ConfigError> assign_l3_tx_queues(const Config& cfg, size_t p,
                                               const PortLimits* limits, Plan& plan) {
    const PortConfig& port = cfg.ports[p];
    PortPlan& pp = plan.ports[p];
    const SourceLoc loc = port.tx_loc.line ? port.tx_loc : port.loc;
    const std::string key = "port[" + std::to_string(p) + "].tx";
    if (port.tx == TxMode::owner)
        return config_error_at(
            cfg, loc, key,
            "mode \"l3\" gives every worker a TX queue of its own on each routed port; "
            "tx = \"owner\" is for \"patch\" and \"l2\"");
    pp.tx = TxMode::per_worker;
    const bool routed = !port.addresses.empty();
    const uint16_t extra = cfg.netlog.enabled && cfg.netlog.port == port.name ? 1 : 0;
    const uint16_t wanted = uint16_t((routed ? plan.workers.size() + 1 : 0) + extra);
    if (limits) {
        const QueueCounts q = configured_queue_counts(limits->driver, pp.rx_queues, wanted);
        if (q.rx > limits->max_rx_queues || q.tx > limits->max_tx_queues)
            return config_error_at(
                cfg, loc, key,
                "port '" + port.name + "' (" + limits->driver + ") allows at most " +
                    std::to_string(limits->max_tx_queues) + " tx queues but mode \"l3\" needs " +
                    std::to_string(wanted) + " (one per worker, one for the control path" +
                    (extra ? ", one for the log channel" : "") + ")");
    }
    for (auto& w : plan.workers) {
        w.l3_tx_queue.resize(cfg.ports.size(), -1);
        if (routed) w.l3_tx_queue[p] = pp.tx_queues++;
    }
    if (routed) pp.control_queue = pp.tx_queues++;
    if (extra) pp.netlog_queue = pp.tx_queues++;
    return std::nullopt;
}

// Model "shared": one stock pool for every worker, on the first worker's
// socket; otherwise one pool per worker on its socket, recycle pools owned by
// their worker's lcore.
void plan_pools(const Config& cfg, Plan& plan) {
    plan.pool_model = cfg.pool.model;
    plan.pool_model_default = cfg.pool.model_loc.line == 0;
    if (cfg.pool.model == PoolModel::shared) {
        const unsigned first = plan.workers.front().lcore;
        plan.pools.push_back({"shared", false, first, first});
        for (auto& w : plan.workers) w.pool = 0;
        return;
    }
    for (auto& w : plan.workers) {
        w.pool = unsigned(plan.pools.size());
        plan.pools.push_back(
            {"w" + std::to_string(w.id), cfg.pool.model == PoolModel::recycle, w.lcore, w.lcore});
    }
}

// A worker's pool feeds its rx ring, the tx ring it fills (and the handoff
// ring in front of it), one burst in hand, and the per-lcore caches of the
// worker and the main lcore; a cache holds up to 1.5 x its size before it
// flushes, hence 3 x cache. A stock pool handing off also fills the owner's
// cache, 2 x cache more (the recycle driver pushes that cache home every
// iteration). Model "shared" feeds every worker from one pool.
std::optional<ConfigError> check_pool_size(const Config& cfg, const Plan& plan) {
    const bool shared = plan.pool_model == PoolModel::shared;
    uint64_t shared_need = 0;
    std::string shared_why;
    for (const auto& w : plan.workers) {
        const auto& rx = cfg.ports[w.rx_port];
        unsigned tx_desc = w.tx_port == kNoPort ? 0 : cfg.ports[size_t(w.tx_port)].tx_desc;
        // l3: a TX ring on every routed port, its ring to the control path,
        // and the packets the control path holds for neighbours being
        // resolved, which may all be this worker's (l3.max_waiting_packets
        // bounds them across every neighbour).
        unsigned punt = 0;
        if (cfg.forward.mode == ForwardMode::l3) {
            for (size_t p = 0; p < w.l3_tx_queue.size(); ++p)
                if (w.l3_tx_queue[p] >= 0) tx_desc += cfg.ports[p].tx_desc;
            punt = cfg.l3.punt_ring + cfg.l3.max_waiting_packets;
        }
        const unsigned handoff = w.handoff_to == kNoWorker ? 0 : cfg.forward.handoff_ring;
        const unsigned caches = handoff && plan.pool_model == PoolModel::per_worker_stock ? 5 : 3;
        const unsigned need =
            rx.rx_desc + tx_desc + handoff + punt + cfg.forward.burst + caches * cfg.pool.cache;
        const std::string why =
            "rx_desc " + std::to_string(rx.rx_desc) + " + tx_desc " + std::to_string(tx_desc) +
            (handoff ? " + handoff_ring " + std::to_string(handoff) : "") +
            (punt ? " + l3.punt_ring " + std::to_string(cfg.l3.punt_ring) +
                        " + l3.max_waiting_packets " + std::to_string(cfg.l3.max_waiting_packets)
                  : "") +
            " + burst " + std::to_string(cfg.forward.burst) + " + " + std::to_string(caches) +
            " x cache " + std::to_string(cfg.pool.cache);
        if (shared) {
            shared_need += need;
            shared_why += (shared_why.empty() ? "" : ", ") +
                          ("worker " + std::to_string(w.id) + " " + std::to_string(need));
            continue;
        }
        if (cfg.pool.mbufs >= need) continue;
        // Without a [pool] table the default is too small for this port's rings.
        const bool pool_in_file = cfg.pool.loc.line != 0;
        const std::string key =
            pool_in_file ? "pool.mbufs" : "port[" + std::to_string(w.rx_port) + "].rx_desc";
        return config_error_at(cfg, pool_in_file ? cfg.pool.loc : rx.loc, key,
                               std::to_string(cfg.pool.mbufs) +
                                   " mbufs per pool is too few for worker " + std::to_string(w.id) +
                                   " (" + why + " = " + std::to_string(need) +
                                   "); raise pool.mbufs or lower the descriptor counts");
    }
    if (shared && cfg.pool.mbufs < shared_need)
        return config_error_at(
            cfg, cfg.pool.loc, "pool.mbufs",
            std::to_string(cfg.pool.mbufs) + " mbufs in the shared pool is too few for " +
                std::to_string(plan.workers.size()) + " workers (" + shared_why + " = " +
                std::to_string(shared_need) + "); raise pool.mbufs or lower the descriptor counts");
    return std::nullopt;
}

// A worker waiting on rx interrupts needs them on its device, and must not
// owe anyone a transmit: bursts handed to it would wait for its next packet.
std::optional<ConfigError> check_poll_modes(const Config& cfg,
                                            const std::vector<PortLimits>* limits, Plan& plan) {
    for (const auto& w : plan.workers) {
        if (w.poll == PollMode::adaptive &&
            std::any_of(plan.workers.begin(), plan.workers.end(),
                        [&](const WorkerPlan& s) { return s.handoff_to == int(w.id); }))
            plan.warnings.push_back(
                "worker " + std::to_string(w.id) +
                " is adaptive and transmits what other workers hand it: after an idle spell "
                "their first bursts wait up to max_sleep_us (" +
                std::to_string(cfg.poll.max_sleep_us) +
                " us) in its handoff rings, which may fill (handoff_full)");
        if (w.poll != PollMode::interrupt) continue;
        const PortConfig& port = cfg.ports[w.rx_port];
        const bool own_key = port.poll_loc.line != 0;
        const SourceLoc loc = own_key ? port.poll_loc : cfg.poll.mode_loc;
        const std::string key =
            own_key ? "port[" + std::to_string(w.rx_port) + "].poll" : "poll.mode";
        const std::string driver =
            limits ? (*limits)[w.rx_port].driver : std::string(vdev_driver(port.devargs));
        if (lacks_rx_interrupts(driver))
            return config_error_at(
                cfg, loc, key,
                "port '" + port.name + "' (" + driver +
                    ") has no rx interrupts, so its workers cannot poll = \"interrupt\"; "
                    "use \"adaptive\" (spins, then sleeps) or \"busy\"");
        for (const auto& s : plan.workers)
            if (s.handoff_to == int(w.id))
                return config_error_at(
                    cfg, loc, key,
                    "worker " + std::to_string(w.id) + " (port '" + port.name + "' rxq " +
                        std::to_string(w.rx_queue) +
                        ") would wait on rx interrupts while owning a TX queue that worker " +
                        std::to_string(s.id) +
                        " hands its bursts to; give the sending port's workers TX queues "
                        "of their own (tx = \"per-worker\") or use poll = \"adaptive\"");
    }
    return std::nullopt;
}

}  // namespace

PlanResult build_plan(const Config& cfg, const std::vector<PortLimits>* limits) {
    if (cfg.ports.empty())
        return config_error_at(cfg, {1, 1}, "port",
                               "the config declares no [[port]]; at least one is needed");
    std::set<std::string> names;
    for (size_t i = 0; i < cfg.ports.size(); ++i) {
        const auto& p = cfg.ports[i];
        const std::string key = "port[" + std::to_string(i) + "].name";
        if (!names.insert(p.name).second)
            return config_error_at(cfg, p.loc, key, "port name '" + p.name + "' is used twice");
        const unsigned needed = kPktmbufHeadroom + p.mtu + kL2Overhead;
        if (cfg.pool.data_room < needed)
            return config_error_at(cfg, p.loc, "port[" + std::to_string(i) + "].mtu",
                                   "mtu " + std::to_string(p.mtu) +
                                       " needs pool.data_room >= " + std::to_string(needed) +
                                       " (it is " + std::to_string(cfg.pool.data_room) + ")");
    }

    // EAL would probe one device once: the second port would find no port id.
    for (size_t i = 0; i < cfg.ports.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (device_key(cfg.ports[i].devargs) == device_key(cfg.ports[j].devargs))
                return config_error_at(
                    cfg, cfg.ports[i].devargs_loc, "port[" + std::to_string(i) + "].devargs",
                    "port '" + cfg.ports[i].name + "' uses device '" +
                        device_key(cfg.ports[i].devargs) + "', as port '" + cfg.ports[j].name +
                        "' does; each device backs one port");

    // dpdk-dumpcap is a DPDK secondary process: it maps pmdfwd's memory from
    // the files EAL keeps in hugetlbfs, and --no-huge memory has none.
    if (cfg.control.capture && !cfg.eal.hugepages)
        return config_error_at(
            cfg, cfg.control.capture_loc, "control.capture",
            std::string("capture needs hugepages: dpdk-dumpcap attaches as a DPDK secondary "
                        "process and maps pmdfwd's memory from hugetlbfs, which a run "
                        "without hugepages does not have; set eal.hugepages = true") +
                (cfg.eal.hugepages_loc.line ? "" : " (it is not set, and defaults to false)") +
                ", or capture = false");

    // A driver library loaded with -d comes before EAL's plugins, and shifts
    // the index of every mempool driver after it; dpdk-dumpcap loads only the
    // plugins, and a pool records its driver as such an index.
    if (cfg.control.capture)
        for (const auto& arg : cfg.eal.extra_args)
            if (arg.size() >= 2 && arg[0] == '-' && arg[1] == 'd')
                return config_error_at(
                    cfg, cfg.eal.extra_args_loc, "eal.extra_args",
                    "'" + arg +
                        "' loads a driver library that dpdk-dumpcap does not load, so "
                        "their mempool drivers would differ and a capture's pool would run "
                        "the wrong one here; remove it, or set control.capture = false");

    if (cfg.netlog.enabled) {
        const PortConfig* nl = cfg.find_port(cfg.netlog.port);
        // The longest datagram: 1000 bytes of payload, UDP and IPv4 headers, DF set.
        constexpr unsigned kNetlogIpLen = 1000 + 8 + 20;
        if (nl && nl->mtu < kNetlogIpLen)
            return config_error_at(cfg, cfg.netlog.port_loc, "netlog.port",
                                   "port '" + nl->name + "' has mtu " + std::to_string(nl->mtu) +
                                       "; the log channel's datagrams need " +
                                       std::to_string(kNetlogIpLen));
    }

    if (auto e = check_l3_config(cfg)) return *e;

    auto pairs = resolve_pairs(cfg);
    if (auto* e = std::get_if<ConfigError>(&pairs)) return *e;
    const auto& out_port = std::get<std::vector<int>>(pairs);

    if (cfg.forward.mode == ForwardMode::l2) {
        for (const auto& [name, mac] : cfg.forward.next_hop_mac)
            if (port_index(cfg, name) == kNoPort)
                return config_error_at(
                    cfg, cfg.forward.next_hop_loc, "forward.next_hop_mac." + name,
                    "names port '" + name + "', which is not a configured [[port]]");
        // Point at the table that lacks the entry, or at the mode that needs it.
        const SourceLoc missing_loc =
            cfg.forward.next_hop_loc.line ? cfg.forward.next_hop_loc : cfg.forward.mode_loc;
        for (const int to : out_port)
            if (to != kNoPort && !cfg.forward.next_hop_mac.count(cfg.ports[size_t(to)].name))
                return config_error_at(cfg, missing_loc, "forward.next_hop_mac",
                                       "l2 mode sends on port '" + cfg.ports[size_t(to)].name +
                                           "' but next_hop_mac has no entry for it");
    } else if (!cfg.forward.next_hop_mac.empty()) {
        return config_error_at(
            cfg, cfg.forward.next_hop_loc, "forward.next_hop_mac",
            "next_hop_mac is used only by mode \"l2\"; remove it or set mode = \"l2\"");
    }

    const auto lcores = parse_lcore_list(cfg.eal.lcores);
    if (!lcores.error.empty())
        return config_error_at(cfg, cfg.eal.lcores_loc, "eal.lcores",
                               "'" + cfg.eal.lcores + "': " + lcores.error);

    Plan plan;
    plan.main_lcore = lcores.lcores.front();
    plan.ports.resize(cfg.ports.size());
    unsigned worker_count = 0;
    for (const auto& p : cfg.ports) worker_count += p.rx_queues;
    const size_t available = lcores.lcores.size() - 1;
    if (worker_count == 0)
        return config_error_at(cfg, {1, 1}, "port",
                               "no port has rx_queues > 0, so nothing would be polled");
    if (worker_count > available) {
        const std::string why = "the ports need " + std::to_string(worker_count) +
                                " worker lcores (one per port rx queue) but '" + cfg.eal.lcores +
                                "' gives " + std::to_string(available) +
                                " after the main lcore; add lcores or lower rx_queues";
        if (cfg.eal.lcores_loc.line)
            return config_error_at(cfg, cfg.eal.lcores_loc, "eal.lcores", why);
        // eal.lcores is the default, not in the file: blame the first port
        // whose queues go past the default's workers.
        size_t p = 0;
        for (unsigned sum = 0; p + 1 < cfg.ports.size(); ++p)
            if ((sum += cfg.ports[p].rx_queues) > available) break;
        return config_error_at(cfg, cfg.ports[p].loc, "port[" + std::to_string(p) + "].rx_queues",
                               why + " (eal.lcores is not set, so its default applies)");
    }

    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        for (uint16_t q = 0; q < cfg.ports[p].rx_queues; ++q) {
            WorkerPlan w;
            w.id = unsigned(plan.workers.size());
            w.lcore = lcores.lcores[w.id + 1];
            w.rx_port = unsigned(p);
            w.rx_queue = q;
            w.tx_port = out_port[p];
            w.poll = cfg.ports[p].poll_of_queue(q, cfg.poll.mode);
            plan.workers.push_back(w);
        }
        plan.ports[p].rx_queues = cfg.ports[p].rx_queues;
    }
    for (size_t i = worker_count + 1; i < lcores.lcores.size(); ++i)
        plan.unused_lcores.push_back(lcores.lcores[i]);
    plan_pools(cfg, plan);

    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        const PortLimits* port_limits = limits ? &(*limits)[p] : nullptr;
        if (cfg.forward.mode == ForwardMode::l3) {
            if (auto e = assign_l3_tx_queues(cfg, p, port_limits, plan)) return *e;
        } else if (auto e = assign_tx_queues(cfg, p, port_limits, plan)) {
            return *e;
        }
    }

    // A polled port that feeds no pair is a mistake, unless its workers are
    // there to own its TX queues (a sink fed by handoff).
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        if (cfg.forward.mode == ForwardMode::l3) break;
        if (cfg.ports[p].rx_queues == 0 || out_port[p] != kNoPort) continue;
        const bool owns = std::any_of(plan.workers.begin(), plan.workers.end(), [&](const auto& s) {
            return s.handoff_to != kNoWorker && plan.workers[size_t(s.handoff_to)].rx_port == p;
        });
        if (!owns)
            plan.warnings.push_back("port '" + cfg.ports[p].name +
                                    "' is polled but is the source of no pair: its packets are "
                                    "dropped as no_route");
    }

    if (auto e = check_poll_modes(cfg, limits, plan)) return *e;
    if (auto e = check_pool_size(cfg, plan)) return *e;
    if (auto e = check_memory_fits(cfg, plan)) return *e;
    return plan;
}

std::vector<std::string> render_plan(const Config& cfg, const Plan& plan) {
    std::vector<std::string> lines;
    lines.push_back(std::string("mode ") + to_string(cfg.forward.mode) + ", burst " +
                    std::to_string(cfg.forward.burst) + ", tx_retries " +
                    std::to_string(cfg.forward.tx_retries) +
                    (cfg.forward.read_lengths ? "" : ", frame lengths not read") + ", main lcore " +
                    std::to_string(plan.main_lcore) + ", " + std::to_string(plan.workers.size()) +
                    " worker(s), pool model " + to_string(plan.pool_model) +
                    (plan.pool_model_default ? " (the default)" : " (pool.model)") + ", " +
                    std::to_string(cfg.pool.mbufs) +
                    (plan.pool_model == PoolModel::shared ? " mbufs shared" : " mbufs/worker"));
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        const auto& port = cfg.ports[p];
        const PortPlan& pp = plan.ports[p];
        std::string tx = std::string(to_string(pp.tx));
        if (!pp.tx_resolved)
            tx = "auto";
        else if (port.tx == TxMode::auto_select)
            tx += " (auto)";
        lines.push_back("port " + std::to_string(p) + " '" + port.name + "' " + port.devargs +
                        ": rx_queues " + std::to_string(pp.rx_queues) + ", tx_queues " +
                        std::to_string(pp.tx_queues) + ", tx " + tx + ", mtu " +
                        std::to_string(port.mtu));
    }
    for (const auto& w : plan.workers) {
        std::string line = "worker " + std::to_string(w.id) + " on lcore " +
                           std::to_string(w.lcore) + ": polls '" + cfg.ports[w.rx_port].name +
                           "' rxq " + std::to_string(w.rx_queue);
        const std::string queue = w.tx_port == kNoPort ? ""
                                                       : "'" + cfg.ports[size_t(w.tx_port)].name +
                                                             "' txq " + std::to_string(w.tx_queue);
        if (cfg.forward.mode == ForwardMode::l3) {
            std::string sends;
            for (size_t p = 0; p < w.l3_tx_queue.size(); ++p)
                if (w.l3_tx_queue[p] >= 0)
                    sends += (sends.empty() ? "" : ", ") + ("'" + cfg.ports[p].name + "' txq " +
                                                            std::to_string(w.l3_tx_queue[p]));
            line += " -> routes to " + sends;
        } else if (w.tx_port == kNoPort)
            line += " -> no pair (drop)";
        else if (w.handoff_to == kNoWorker)
            line += " -> sends on " + queue;
        else
            line +=
                " -> hands off to worker " + std::to_string(w.handoff_to) + ", owner of " + queue;
        std::string from;
        for (const auto& s : plan.workers)
            if (s.handoff_to == int(w.id))
                from += (from.empty() ? "" : ", ") + std::to_string(s.id);
        if (!from.empty()) line += "; transmits for worker(s) " + from;
        if (w.poll != PollMode::busy)
            line += "; poll " + std::string(to_string(w.poll)) + " (idle_polls " +
                    std::to_string(cfg.poll.idle_polls_for(w.poll)) +
                    (w.poll == PollMode::adaptive
                         ? ", max_sleep_us " + std::to_string(cfg.poll.max_sleep_us)
                         : std::string()) +
                    ")";
        lines.push_back(line);
    }
    if (!plan.unused_lcores.empty()) {
        std::string line = "unused lcores:";
        for (const unsigned l : plan.unused_lcores) line += " " + std::to_string(l);
        lines.push_back(line);
    }
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        const PortPlan& pp = plan.ports[p];
        if (pp.control_queue < 0) continue;
        std::string addresses;
        for (const auto& a : cfg.ports[p].addresses)
            addresses += (addresses.empty() ? "" : " ") + a.to_string();
        lines.push_back("l3: port '" + cfg.ports[p].name + "' " + addresses +
                        "; control path on txq " + std::to_string(pp.control_queue));
    }
    if (cfg.forward.mode == ForwardMode::l3)
        lines.push_back("l3: " + std::to_string(cfg.routes.size()) + " static route(s), " +
                        std::to_string(cfg.neighbours.size()) + " static neighbour(s)");
    for (size_t p = 0; p < cfg.ports.size(); ++p)
        if (plan.ports[p].netlog_queue >= 0)
            lines.push_back("netlog: " + std::string(to_string(cfg.netlog.format)) +
                            " records at " + cfg.netlog.level + " and above to " +
                            cfg.netlog.dst_ip.to_string() + ":" +
                            std::to_string(cfg.netlog.dst_port) + " via '" + cfg.ports[p].name +
                            "' txq " + std::to_string(plan.ports[p].netlog_queue));
    if (cfg.control.capture) {
        std::string devices;
        for (const auto& port : cfg.ports)
            devices += (devices.empty() ? "" : ", ") + device_key(port.devargs);
        lines.push_back("capture: dpdk-dumpcap --file-prefix " + cfg.eal.file_prefix +
                        " -i <device> (" + devices + ")");
    }
    for (const auto& w : plan.warnings) lines.push_back("warning: " + w);
    return lines;
}

}  // namespace pmdfwd
