// Config to TOML (see config_writer.hpp), through toml++'s own formatter, so
// every string is quoted and escaped as TOML wants.
#include "config_writer.hpp"

#include <toml++/toml.h>

#include <sstream>

namespace pmdfwd {

namespace {

template <class T>
toml::array strings_of(const std::vector<T>& items) {
    toml::array a;
    for (const auto& i : items) {
        if constexpr (std::is_same_v<T, std::string>)
            a.push_back(i);
        else
            a.push_back(i.to_string());
    }
    return a;
}

toml::table eal_table(const EalConfig& e) {
    return toml::table{{"lcores", e.lcores},
                       {"memory_mb", int64_t(e.memory_mb)},
                       {"hugepages", e.hugepages},
                       {"file_prefix", e.file_prefix},
                       {"extra_args", strings_of(e.extra_args)}};
}

toml::table port_table(const PortConfig& p) {
    toml::table t{{"name", p.name},
                  {"devargs", p.devargs},
                  {"rx_queues", int64_t(p.rx_queues)},
                  {"rx_desc", int64_t(p.rx_desc)},
                  {"tx_desc", int64_t(p.tx_desc)},
                  {"mtu", int64_t(p.mtu)},
                  {"promiscuous", p.promiscuous},
                  {"tx", to_string(p.tx)}};
    if (!p.poll.empty()) {
        toml::array modes;
        for (const PollMode m : p.poll) modes.push_back(to_string(m));
        t.insert("poll", std::move(modes));
    }
    if (!p.addresses.empty()) t.insert("addresses", strings_of(p.addresses));
    if (!p.kernel_interface.empty()) t.insert("kernel_interface", p.kernel_interface);
    return t;
}

toml::table forward_table(const ForwardConfig& f) {
    toml::table t{{"mode", to_string(f.mode)},
                  {"burst", int64_t(f.burst)},
                  {"tx_retries", int64_t(f.tx_retries)},
                  {"handoff_ring", int64_t(f.handoff_ring)},
                  {"latency", f.latency},
                  {"read_lengths", f.read_lengths}};
    if (!f.pairs.empty()) {
        toml::array pairs;
        for (const auto& p : f.pairs) pairs.push_back(toml::array{p.from, p.to});
        t.insert("pairs", std::move(pairs));
    }
    if (!f.next_hop_mac.empty()) {
        toml::table macs;
        for (const auto& [port, mac] : f.next_hop_mac) macs.insert(port, mac.to_string());
        t.insert("next_hop_mac", std::move(macs));
    }
    return t;
}

toml::table poll_table(const PollConfig& p) {
    toml::table t{{"mode", to_string(p.mode)}, {"max_sleep_us", int64_t(p.max_sleep_us)}};
    if (p.idle_polls) t.insert("idle_polls", int64_t(p.idle_polls));
    return t;
}

toml::table pool_table(const PoolConfig& p) {
    return toml::table{{"model", to_string(p.model)},
                       {"mbufs", int64_t(p.mbufs)},
                       {"cache", int64_t(p.cache)},
                       {"data_room", int64_t(p.data_room)},
                       {"color", p.color}};
}

toml::table control_table(const ControlConfig& c) {
    toml::table t{{"telemetry", c.telemetry},
                  {"stats_log_interval_s", int64_t(c.stats_log_interval_s)},
                  {"telemetry_idle_s", int64_t(c.telemetry_idle_s)},
                  {"telemetry_max_clients", int64_t(c.telemetry_max_clients)},
                  {"metrics_allow_remote", c.metrics_allow_remote},
                  {"stall_us", int64_t(c.stall_us)},
                  {"capture", c.capture}};
    if (!c.metrics.empty()) t.insert("metrics", c.metrics);
    if (!c.metrics_allow.empty()) t.insert("metrics_allow", strings_of(c.metrics_allow));
    return t;
}

toml::table log_table(const LogConfig& l) {
    toml::table t{{"level", l.level}};
    if (!l.file.empty()) t.insert("file", l.file);
    return t;
}

toml::table netlog_table(const NetlogConfig& n) {
    toml::table t{{"enabled", n.enabled},
                  {"src_port", int64_t(n.src_port)},
                  {"dst_port", int64_t(n.dst_port)},
                  {"level", n.level},
                  {"format", to_string(n.format)},
                  {"facility", to_string(n.facility)},
                  {"reserve", int64_t(n.reserve)},
                  {"prefill", int64_t(n.prefill)},
                  {"rate_limit", int64_t(n.rate_limit)},
                  {"rate_burst", int64_t(n.rate_burst)},
                  {"send_path", to_string(n.send_path)}};
    if (!n.port.empty()) {
        t.insert("port", n.port);
        t.insert("src_ip", n.src_ip.to_string());
        t.insert("dst_ip", n.dst_ip.to_string());
        t.insert("dst_mac", n.dst_mac.to_string());
    }
    return t;
}

toml::table l3_table(const L3Config& l) {
    toml::table t{{"max_routes", int64_t(l.max_routes)},
                  {"max_neighbours", int64_t(l.max_neighbours)},
                  {"max_neighbours_per_port", int64_t(l.max_neighbours_per_port)},
                  {"max_resolving", int64_t(l.max_resolving)},
                  {"neighbour_queue", int64_t(l.neighbour_queue)},
                  {"max_waiting_packets", int64_t(l.max_waiting_packets)},
                  {"resolve_retries", int64_t(l.resolve_retries)},
                  {"resolve_interval_ms", int64_t(l.resolve_interval_ms)},
                  {"reachable_s", int64_t(l.reachable_s)},
                  {"icmp_rate_limit", int64_t(l.icmp_rate_limit)},
                  {"icmp_rate_burst", int64_t(l.icmp_rate_burst)},
                  {"punt_ring", int64_t(l.punt_ring)},
                  {"max_ecmp_groups", int64_t(l.max_ecmp_groups)},
                  {"kernel_rate_limit", int64_t(l.kernel_rate_limit)},
                  {"kernel_rate_burst", int64_t(l.kernel_rate_burst)}};
    if (l.max_routes_v6) t.insert("max_routes_v6", int64_t(l.max_routes_v6));
    if (l.kernel_routes_table)
        t.insert("kernel_routes",
                 toml::table{{"table", int64_t(l.kernel_routes_table)},
                             {"receive_buffer_kb", int64_t(l.kernel_routes_buffer_kb)}});
    return t;
}

toml::table route_table(const RouteConfig& r) {
    toml::table t{{"prefix", r.prefix.to_string()}};
    if (r.via) t.insert("via", r.via->to_string());
    if (!r.port.empty()) t.insert("port", r.port);
    return t;
}

toml::table neighbour_table(const NeighbourConfig& n) {
    return toml::table{
        {"address", n.address.to_string()}, {"mac", n.mac.to_string()}, {"port", n.port}};
}

template <class T, class F>
toml::array tables_of(const std::vector<T>& items, F make) {
    toml::array a;
    for (const auto& i : items) a.push_back(make(i));
    return a;
}

// One document, so that nested tables get their full names; toml++
// writes a table's keys sorted.
toml::table config_document(const Config& cfg) {
    toml::table doc{{"eal", eal_table(cfg.eal)},
                    {"forward", forward_table(cfg.forward)},
                    {"poll", poll_table(cfg.poll)},
                    {"pool", pool_table(cfg.pool)},
                    {"control", control_table(cfg.control)},
                    {"log", log_table(cfg.log)},
                    {"netlog", netlog_table(cfg.netlog)},
                    {"l3", l3_table(cfg.l3)}};
    if (!cfg.ports.empty()) doc.insert("port", tables_of(cfg.ports, port_table));
    if (!cfg.routes.empty()) doc.insert("route", tables_of(cfg.routes, route_table));
    if (!cfg.neighbours.empty())
        doc.insert("neighbour", tables_of(cfg.neighbours, neighbour_table));
    return doc;
}

std::string value_text(const toml::node& n) {
    std::ostringstream out;
    if (const auto* t = n.as_table())
        out << toml::toml_formatter(*t);
    else if (const auto* a = n.as_array())
        out << toml::toml_formatter(*a);
    else
        n.visit([&](const auto& v) { out << toml::toml_formatter(v); });
    std::string s = out.str();
    for (char& c : s)
        if (c == '\n') c = ' ';
    return s;
}

// An array of tables' entries by what names them: a port by its name (a
// key each), a route by its prefix, a neighbour by its port and address.
void flatten_tables(const std::string& section, const toml::array& a,
                    std::map<std::string, std::string>& out) {
    for (const auto& e : a) {
        const auto* t = e.as_table();
        if (!t) continue;
        const auto text = [&](std::string_view key) {
            const auto* n = t->get(key);
            return n && n->as_string() ? n->as_string()->get() : std::string("?");
        };
        if (section == "port") {
            const std::string name = text("name");
            for (auto&& [k, v] : *t)
                if (k.str() != "name")
                    out[section + "." + name + "." + std::string(k.str())] = value_text(v);
            continue;
        }
        toml::table rest = *t;
        std::string id;
        if (section == "route") {
            id = text("prefix");
            rest.erase("prefix");
        } else {
            id = text("port") + "." + text("address");
            rest.erase("port");
            rest.erase("address");
        }
        out[section + "." + id] = value_text(rest);
    }
}

}  // namespace

std::string config_to_toml(const Config& cfg) {
    std::ostringstream out;
    out << toml::toml_formatter(config_document(cfg)) << "\n";
    return out.str();
}

std::map<std::string, std::string> config_keys(const Config& cfg) {
    std::map<std::string, std::string> out;
    for (auto&& [k, v] : config_document(cfg)) {
        const std::string section(k.str());
        if (const auto* a = v.as_array(); a && a->is_array_of_tables()) {
            flatten_tables(section, *a, out);
            continue;
        }
        const auto* t = v.as_table();
        if (!t) continue;
        for (auto&& [key, value] : *t)
            out[section + "." + std::string(key.str())] = value_text(value);
    }
    return out;
}

}  // namespace pmdfwd
