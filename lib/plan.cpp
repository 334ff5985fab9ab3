// Cross-field config checks and worker/queue assignment (see plan.hpp).
#include "plan.hpp"

#include <set>

#include "lcore_list.hpp"

namespace pmdfwd {

namespace {

ConfigError at(const Config& cfg, SourceLoc loc, std::string key, std::string message) {
    return ConfigError{cfg.source_name, loc.line, loc.column, std::move(key), std::move(message)};
}

int port_index(const Config& cfg, const std::string& name) {
    for (size_t i = 0; i < cfg.ports.size(); ++i)
        if (cfg.ports[i].name == name) return int(i);
    return kNoPort;
}

std::variant<std::vector<int>, ConfigError> resolve_pairs(const Config& cfg) {
    std::vector<int> out(cfg.ports.size(), kNoPort);
    for (const auto& pair : cfg.forward.pairs) {
        const int from = port_index(cfg, pair.from);
        const int to = port_index(cfg, pair.to);
        for (const auto* name : {&pair.from, &pair.to})
            if (port_index(cfg, *name) == kNoPort)
                return at(cfg, pair.loc, "forward.pairs",
                          "pair names port '" + *name + "', which is not a configured [[port]]");
        if (out[size_t(from)] != kNoPort)
            return at(cfg, pair.loc, "forward.pairs",
                      "port '" + pair.from + "' is the source of more than one pair");
        out[size_t(from)] = to;
    }
    return out;
}

}  // namespace

PlanResult build_plan(const Config& cfg) {
    if (cfg.ports.empty())
        return at(cfg, {1, 1}, "port", "the config declares no [[port]]; at least one is needed");
    std::set<std::string> names;
    for (size_t i = 0; i < cfg.ports.size(); ++i) {
        const auto& p = cfg.ports[i];
        const std::string key = "port[" + std::to_string(i) + "].name";
        if (!names.insert(p.name).second)
            return at(cfg, p.loc, key, "port name '" + p.name + "' is used twice");
        const unsigned needed = kPktmbufHeadroom + p.mtu + kL2Overhead;
        if (cfg.pool.data_room < needed)
            return at(cfg, p.loc, "port[" + std::to_string(i) + "].mtu",
                      "mtu " + std::to_string(p.mtu) + " needs pool.data_room >= " +
                          std::to_string(needed) + " (it is " +
                          std::to_string(cfg.pool.data_room) + ")");
    }

    auto pairs = resolve_pairs(cfg);
    if (auto* e = std::get_if<ConfigError>(&pairs)) return *e;
    const auto& out_port = std::get<std::vector<int>>(pairs);

    if (cfg.forward.mode == ForwardMode::l2) {
        for (const auto& [name, mac] : cfg.forward.next_hop_mac)
            if (port_index(cfg, name) == kNoPort)
                return at(cfg, cfg.forward.next_hop_loc, "forward.next_hop_mac." + name,
                          "names port '" + name + "', which is not a configured [[port]]");
        // Point at the table that lacks the entry, or at the mode that needs it.
        const SourceLoc missing_loc =
            cfg.forward.next_hop_loc.line ? cfg.forward.next_hop_loc : cfg.forward.mode_loc;
        for (const int to : out_port)
            if (to != kNoPort && !cfg.forward.next_hop_mac.count(cfg.ports[size_t(to)].name))
                return at(cfg, missing_loc, "forward.next_hop_mac",
                          "l2 mode sends on port '" + cfg.ports[size_t(to)].name +
                              "' but next_hop_mac has no entry for it");
    } else if (!cfg.forward.next_hop_mac.empty()) {
        return at(cfg, cfg.forward.next_hop_loc, "forward.next_hop_mac",
                  "next_hop_mac is used only by mode \"l2\"; remove it or set mode = \"l2\"");
    }

    const auto lcores = parse_lcore_list(cfg.eal.lcores);
    if (!lcores.error.empty())
        return at(cfg, cfg.eal.lcores_loc, "eal.lcores",
                  "'" + cfg.eal.lcores + "': " + lcores.error);

    Plan plan;
    plan.main_lcore = lcores.lcores.front();
    plan.ports.resize(cfg.ports.size());
    unsigned worker_count = 0;
    for (const auto& p : cfg.ports) worker_count += p.rx_queues;
    const size_t available = lcores.lcores.size() - 1;
    if (worker_count == 0)
        return at(cfg, {1, 1}, "port", "no port has rx_queues > 0, so nothing would be polled");
    if (worker_count > available) {
        const std::string why = "the ports need " + std::to_string(worker_count) +
                                " worker lcores (one per port rx queue) but '" + cfg.eal.lcores +
                                "' gives " + std::to_string(available) +
                                " after the main lcore; add lcores or lower rx_queues";
        if (cfg.eal.lcores_loc.line) return at(cfg, cfg.eal.lcores_loc, "eal.lcores", why);
        // eal.lcores is the default, not in the file: blame the first port
        // whose queues go past the default's workers.
        size_t p = 0;
        for (unsigned sum = 0; p + 1 < cfg.ports.size(); ++p)
            if ((sum += cfg.ports[p].rx_queues) > available) break;
        return at(cfg, cfg.ports[p].loc, "port[" + std::to_string(p) + "].rx_queues",
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
            if (w.tx_port != kNoPort) w.tx_queue = plan.ports[size_t(w.tx_port)].tx_queues++;
            plan.workers.push_back(w);
        }
        plan.ports[p].rx_queues = cfg.ports[p].rx_queues;
        if (cfg.ports[p].rx_queues > 0 && out_port[p] == kNoPort)
            plan.warnings.push_back("port '" + cfg.ports[p].name +
                                    "' is polled but is the source of no pair: its packets are "
                                    "dropped as no_route");
    }
    for (size_t i = worker_count + 1; i < lcores.lcores.size(); ++i)
        plan.unused_lcores.push_back(lcores.lcores[i]);

    // A worker's pool feeds its rx ring, the tx ring it fills, one burst in
    // hand, and the per-lcore caches of the worker and the main lcore; a
    // cache holds up to 1.5 x its size before it flushes, hence 3 x cache.
    for (const auto& w : plan.workers) {
        const auto& rx = cfg.ports[w.rx_port];
        const unsigned tx_desc = w.tx_port == kNoPort ? 0 : cfg.ports[size_t(w.tx_port)].tx_desc;
        const unsigned need = rx.rx_desc + tx_desc + cfg.forward.burst + 3 * cfg.pool.cache;
        if (cfg.pool.mbufs >= need) continue;
        // Without a [pool] table the default is too small for this port's rings.
        const bool pool_in_file = cfg.pool.loc.line != 0;
        const std::string key =
            pool_in_file ? "pool.mbufs" : "port[" + std::to_string(w.rx_port) + "].rx_desc";
        return at(cfg, pool_in_file ? cfg.pool.loc : rx.loc, key,
                  std::to_string(cfg.pool.mbufs) + " mbufs per pool is too few for worker " +
                      std::to_string(w.id) + " (rx_desc " + std::to_string(rx.rx_desc) +
                      " + tx_desc " + std::to_string(tx_desc) + " + burst " +
                      std::to_string(cfg.forward.burst) + " + 3 x cache " +
                      std::to_string(cfg.pool.cache) + " = " + std::to_string(need) +
                      "); raise pool.mbufs or lower the descriptor counts");
    }
    return plan;
}

std::vector<std::string> render_plan(const Config& cfg, const Plan& plan) {
    std::vector<std::string> lines;
    lines.push_back(std::string("mode ") + to_string(cfg.forward.mode) + ", burst " +
                    std::to_string(cfg.forward.burst) + ", tx_retries " +
                    std::to_string(cfg.forward.tx_retries) + ", main lcore " +
                    std::to_string(plan.main_lcore) + ", " + std::to_string(plan.workers.size()) +
                    " worker(s), pool " + std::to_string(cfg.pool.mbufs) + " mbufs/worker");
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        const auto& port = cfg.ports[p];
        lines.push_back("port " + std::to_string(p) + " '" + port.name + "' " + port.devargs +
                        ": rx_queues " + std::to_string(plan.ports[p].rx_queues) +
                        ", tx_queues " + std::to_string(plan.ports[p].tx_queues) + ", mtu " +
                        std::to_string(port.mtu));
    }
    for (const auto& w : plan.workers) {
        std::string line = "worker " + std::to_string(w.id) + " on lcore " +
                           std::to_string(w.lcore) + ": polls '" + cfg.ports[w.rx_port].name +
                           "' rxq " + std::to_string(w.rx_queue);
        if (w.tx_port == kNoPort)
            line += " -> no pair (drop)";
        else
            line += " -> sends on '" + cfg.ports[size_t(w.tx_port)].name + "' txq " +
                    std::to_string(w.tx_queue);
        lines.push_back(line);
    }
    if (!plan.unused_lcores.empty()) {
        std::string line = "unused lcores:";
        for (const unsigned l : plan.unused_lcores) line += " " + std::to_string(l);
        lines.push_back(line);
    }
    for (const auto& w : plan.warnings) lines.push_back("warning: " + w);
    return lines;
}

}  // namespace pmdfwd
