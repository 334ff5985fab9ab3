// Router mode's cross-field config checks (see l3_config_check.hpp).
#include "l3_config_check.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <variant>

#include "config_place.hpp"
#include "route_rules.hpp"

namespace pmdfwd {

namespace {

// Why an interface address cannot be one (empty: it can).
std::string address_problem(const IpPrefix& p) {
    const auto& b = p.address.bytes;
    if (p.address.family == IpFamily::v4) {
        if (b[0] == 0) return "is in 0.0.0.0/8, which no interface may have";
        if (b[0] == 127) return "is a loopback address";
        if (b[0] >= 224) return "is a multicast or reserved address";
        if (p.length <= 30) {
            IpPrefix broadcast = p;
            for (unsigned bit = p.length; bit < 32; ++bit)
                broadcast.address.bytes[bit / 8] |= uint8_t(0x80 >> (bit % 8));
            if (!p.host_bits_set())
                return "is the network address of its subnet; give the interface's own address, "
                       "like " +
                       [&] {
                           IpPrefix one = p;
                           one.address.bytes[3] |= 1;
                           return one.to_string();
                       }();
            if (broadcast == p) return "is the broadcast address of its subnet";
        }
        return {};
    }
    const IpAddress unspecified{IpFamily::v6, {}};
    if (p.address == unspecified) return "is the unspecified address ::";
    IpAddress loopback{IpFamily::v6, {}};
    loopback.bytes[15] = 1;
    if (p.address == loopback) return "is the loopback address ::1";
    if (b[0] == 0xff) return "is a multicast address";
    return {};
}

// Whether two prefixes share an address: one holds the other's network.
bool overlap(const IpPrefix& a, const IpPrefix& b) {
    if (a.address.family != b.address.family) return false;
    return contains(a.length <= b.length ? a : b, (a.length <= b.length ? b : a).address);
}

// Neither [[route]], [[neighbour]], [l3] nor a port's addresses mean
// anything outside router mode: one of them there is a mistake.
std::optional<ConfigError> check_not_l3(const Config& cfg) {
    const char* why = " is used only by forward.mode = \"l3\"; remove it or set mode = \"l3\"";
    for (size_t i = 0; i < cfg.ports.size(); ++i)
        if (!cfg.ports[i].addresses.empty())
            return config_error_at(cfg, cfg.ports[i].address_locs.front(),
                                   "port[" + std::to_string(i) + "].addresses",
                                   std::string("addresses") + why);
    for (size_t i = 0; i < cfg.ports.size(); ++i)
        if (!cfg.ports[i].kernel_interface.empty())
            return config_error_at(cfg, cfg.ports[i].kernel_interface_loc,
                                   "port[" + std::to_string(i) + "].kernel_interface",
                                   std::string("kernel_interface") + why);
    if (!cfg.routes.empty())
        return config_error_at(cfg, cfg.routes.front().loc, "route",
                               std::string("[[route]]") + why);
    if (!cfg.neighbours.empty())
        return config_error_at(cfg, cfg.neighbours.front().loc, "neighbour",
                               std::string("[[neighbour]]") + why);
    if (cfg.l3_loc.line) return config_error_at(cfg, cfg.l3_loc, "l3", std::string("[l3]") + why);
    return std::nullopt;
}

std::optional<ConfigError> check_addresses(const Config& cfg, size_t& connected_v4,
                                           size_t& connected_v6) {
    struct Seen {
        IpPrefix prefix;
        size_t port;
    };
    std::vector<Seen> seen;
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        const auto& port = cfg.ports[p];
        for (size_t k = 0; k < port.addresses.size(); ++k) {
            const IpPrefix& a = port.addresses[k];
            const std::string key = "port[" + std::to_string(p) + "].addresses";
            if (const std::string why = address_problem(a); !why.empty())
                return config_error_at(cfg, port.address_locs[k], key,
                                       "'" + a.to_string() + "' " + why);
            for (const auto& s : seen) {
                if (!overlap(s.prefix, a)) continue;
                const std::string other =
                    "'" + s.prefix.to_string() + "' of port '" + cfg.ports[s.port].name + "'";
                if (s.prefix.address == a.address)
                    return config_error_at(cfg, port.address_locs[k], key,
                                           "'" + a.to_string() + "' is already " + other);
                return config_error_at(cfg, port.address_locs[k], key,
                                       "the subnet of '" + a.to_string() + "' overlaps that of " +
                                           other +
                                           "; a subnet is connected through one interface address");
            }
            seen.push_back({a, p});
            (a.address.family == IpFamily::v4 ? connected_v4 : connected_v6)++;
        }
    }
    if (seen.empty())
        return config_error_at(
            cfg, cfg.forward.mode_loc, "forward.mode",
            "mode \"l3\" routes between the ports' addresses, and no [[port]] has "
            "addresses; give each routed port addresses = [\"10.0.0.1/24\", ...]");
    return std::nullopt;
}

// Each kernel interface is one port's, and none is the interface a port's
// own device makes (net_tap's iface=, net_af_packet's iface=).
std::optional<ConfigError> check_kernel_interfaces(const Config& cfg) {
    const bool any = std::any_of(cfg.ports.begin(), cfg.ports.end(),
                                 [](const PortConfig& p) { return !p.kernel_interface.empty(); });
    if (cfg.l3.kernel_routes_table != 0 && !any)
        return config_error_at(cfg, cfg.l3.kernel_routes_loc, "l3.kernel_routes",
                               "mirrors the kernel's routes through the ports' kernel "
                               "interfaces, and no [[port]] has kernel_interface");
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        const std::string& name = cfg.ports[p].kernel_interface;
        if (name.empty()) continue;
        const std::string key = "port[" + std::to_string(p) + "].kernel_interface";
        for (size_t q = 0; q < cfg.ports.size(); ++q) {
            const PortConfig& other = cfg.ports[q];
            if (q < p && other.kernel_interface == name)
                return config_error_at(
                    cfg, cfg.ports[p].kernel_interface_loc, key,
                    "'" + name + "' is already the kernel interface of port '" + other.name + "'");
            const std::string iface = ",iface=" + name;
            const size_t at = other.devargs.find(iface);
            if (at != std::string::npos && (at + iface.size() == other.devargs.size() ||
                                            other.devargs[at + iface.size()] == ','))
                return config_error_at(cfg, cfg.ports[p].kernel_interface_loc, key,
                                       "'" + name + "' is the interface of port '" + other.name +
                                           "' (" + other.devargs +
                                           "); give the kernel interface a name of its own");
        }
    }
    return std::nullopt;
}

std::vector<RoutedPort> routed_ports(const Config& cfg) {
    std::vector<RoutedPort> ports;
    for (const auto& p : cfg.ports) ports.push_back({p.name, p.addresses});
    return ports;
}

// The rules themselves are route_rules.cpp's, which `route add` follows too.
std::optional<ConfigError> check_routes(const Config& cfg, size_t& routes_v4, size_t& routes_v6) {
    const std::vector<RoutedPort> ports = routed_ports(cfg);
    std::set<std::pair<IpFamily, std::string>> prefixes;
    for (size_t i = 0; i < cfg.routes.size(); ++i) {
        const RouteConfig& r = cfg.routes[i];
        const std::string key = "route[" + std::to_string(i) + "]";
        const IpFamily family = r.prefix.address.family;
        int port = -1;
        if (!r.port.empty()) {
            port = port_index(cfg, r.port);
            if (port < 0)
                return config_error_at(
                    cfg, r.port_loc, key + ".port",
                    "names port '" + r.port + "', which is not a configured [[port]]");
        }
        const auto verdict = check_route(r.prefix, r.via, port, ports);
        if (const auto* problem = std::get_if<RouteProblem>(&verdict)) {
            switch (problem->key) {
                case RouteProblem::Key::prefix:
                    return config_error_at(cfg, r.prefix_loc, key + ".prefix", problem->message);
                case RouteProblem::Key::via:
                    return config_error_at(cfg, r.via_loc, key + ".via", problem->message);
                case RouteProblem::Key::port:
                    return config_error_at(cfg, r.port_loc.line ? r.port_loc : r.loc, key + ".port",
                                           problem->message);
            }
        }
        if (!prefixes.insert({family, r.prefix.to_string()}).second)
            return config_error_at(cfg, r.prefix_loc, key + ".prefix",
                                   "'" + r.prefix.to_string() + "' has another [[route]] already");
        (family == IpFamily::v4 ? routes_v4 : routes_v6)++;
    }
    return std::nullopt;
}

std::optional<ConfigError> check_neighbours(const Config& cfg) {
    const std::vector<RoutedPort> ports = routed_ports(cfg);
    std::set<std::pair<std::string, std::string>> seen;
    for (size_t i = 0; i < cfg.neighbours.size(); ++i) {
        const NeighbourConfig& n = cfg.neighbours[i];
        const std::string key = "neighbour[" + std::to_string(i) + "]";
        const int port = port_index(cfg, n.port);
        if (port < 0)
            return config_error_at(
                cfg, n.port_loc, key + ".port",
                "names port '" + n.port + "', which is not a configured [[port]]");
        if (const std::string why = neighbour_address_problem(n.address, port, ports); !why.empty())
            return config_error_at(cfg, n.address_loc, key + ".address", why);
        if (!seen.insert({n.port, n.address.to_string()}).second)
            return config_error_at(cfg, n.address_loc, key + ".address",
                                   "'" + n.address.to_string() + "' on port '" + n.port +
                                       "' has another [[neighbour]] already");
    }
    if (cfg.neighbours.size() > cfg.l3.max_neighbours)
        return config_error_at(cfg, cfg.neighbours[cfg.l3.max_neighbours].loc, "neighbour",
                               std::to_string(cfg.neighbours.size()) +
                                   " static neighbours exceed l3.max_neighbours " +
                                   std::to_string(cfg.l3.max_neighbours));
    return std::nullopt;
}

// The neighbour table's bounds must nest: a port's share and the entries
// being resolved are parts of the whole.
std::optional<ConfigError> check_neighbour_limits(const Config& cfg) {
    const L3Config& l3 = cfg.l3;
    const auto whole = " l3.max_neighbours " + std::to_string(l3.max_neighbours);
    if (l3.max_neighbours_per_port > l3.max_neighbours)
        return config_error_at(cfg, l3.max_neighbours_per_port_loc, "l3.max_neighbours_per_port",
                               "max_neighbours_per_port " +
                                   std::to_string(l3.max_neighbours_per_port) + " is more than" +
                                   whole + ", which every port shares");
    if (l3.max_resolving > l3.max_neighbours)
        return config_error_at(cfg, l3.max_resolving_loc, "l3.max_resolving",
                               "max_resolving " + std::to_string(l3.max_resolving) +
                                   " is more than" + whole +
                                   ", of which neighbours being resolved are a part");
    return std::nullopt;
}

}  // namespace

int connected_port_of(const Config& cfg, const IpAddress& address, int port) {
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        if (port >= 0 && int(p) != port) continue;
        for (const auto& a : cfg.ports[p].addresses)
            if (contains(a, address)) return int(p);
    }
    return -1;
}

int route_port_index(const Config& cfg, const RouteConfig& route) {
    if (!route.port.empty()) return port_index(cfg, route.port);
    return route.via ? connected_port_of(cfg, *route.via) : -1;
}

std::optional<ConfigError> check_l3_config(const Config& cfg) {
    if (cfg.forward.mode != ForwardMode::l3) return check_not_l3(cfg);
    if (!cfg.forward.pairs.empty())
        return config_error_at(
            cfg, cfg.forward.pairs.front().loc, "forward.pairs",
            "mode \"l3\" sends each packet where its route says; pairs are for \"patch\" "
            "and \"l2\": remove them");
    size_t v4 = 0, v6 = 0;
    if (auto e = check_addresses(cfg, v4, v6)) return e;
    if (auto e = check_kernel_interfaces(cfg)) return e;
    // Every address is a host route too; an IPv4 subnet's network and
    // broadcast addresses are two more.
    v4 *= 4;
    v6 *= 2;
    if (auto e = check_routes(cfg, v4, v6)) return e;
    if (auto e = check_neighbours(cfg)) return e;
    if (auto e = check_neighbour_limits(cfg)) return e;
    struct Family {
        size_t count;
        const char* name;
        uint32_t limit;
        const char* key;
        SourceLoc loc;
    };
    for (const Family& f :
         {Family{v4, "IPv4", cfg.l3.max_routes, "l3.max_routes", cfg.l3.max_routes_loc},
          Family{v6, "IPv6", ipv6_routes(cfg.l3),
                 cfg.l3.max_routes_v6 ? "l3.max_routes_v6" : "l3.max_routes",
                 cfg.l3.max_routes_v6 ? cfg.l3.max_routes_v6_loc : cfg.l3.max_routes_loc}})
        if (f.count > f.limit)
            return config_error_at(
                cfg, f.loc.line ? f.loc : (cfg.l3_loc.line ? cfg.l3_loc : cfg.forward.mode_loc),
                f.key,
                std::string("the config's ") + f.name + " routes (" + std::to_string(f.count) +
                    ", each interface address counting as its subnet, itself and, in "
                    "IPv4, the subnet's network and broadcast addresses) "
                    "exceed " +
                    f.key + " " + std::to_string(f.limit));
    return std::nullopt;
}

}  // namespace pmdfwd
