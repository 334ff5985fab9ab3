// Router mode's cross-field config checks (see l3_config_check.hpp).
#include "l3_config_check.hpp"

#include <set>
#include <string>

namespace pmdfwd {

namespace {

ConfigError at(const Config& cfg, SourceLoc loc, std::string key, std::string message) {
    return ConfigError{cfg.source_name, loc.line, loc.column, std::move(key), std::move(message)};
}

const char* family_name(IpFamily f) { return f == IpFamily::v4 ? "IPv4" : "IPv6"; }

int port_index(const Config& cfg, const std::string& name) {
    for (size_t i = 0; i < cfg.ports.size(); ++i)
        if (cfg.ports[i].name == name) return int(i);
    return -1;
}

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

bool is_own_address(const Config& cfg, const IpAddress& address) {
    for (const auto& port : cfg.ports)
        for (const auto& a : port.addresses)
            if (a.address == address) return true;
    return false;
}

// Neither [[route]], [[neighbour]], [l3] nor a port's addresses mean
// anything outside router mode: one of them there is a mistake.
std::optional<ConfigError> check_not_l3(const Config& cfg) {
    const char* why = " is used only by forward.mode = \"l3\"; remove it or set mode = \"l3\"";
    for (size_t i = 0; i < cfg.ports.size(); ++i)
        if (!cfg.ports[i].addresses.empty())
            return at(cfg, cfg.ports[i].address_locs.front(),
                      "port[" + std::to_string(i) + "].addresses", std::string("addresses") + why);
    if (!cfg.routes.empty())
        return at(cfg, cfg.routes.front().loc, "route", std::string("[[route]]") + why);
    if (!cfg.neighbours.empty())
        return at(cfg, cfg.neighbours.front().loc, "neighbour", std::string("[[neighbour]]") + why);
    if (cfg.l3_loc.line) return at(cfg, cfg.l3_loc, "l3", std::string("[l3]") + why);
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
                return at(cfg, port.address_locs[k], key, "'" + a.to_string() + "' " + why);
            for (const auto& s : seen) {
                if (!overlap(s.prefix, a)) continue;
                const std::string other =
                    "'" + s.prefix.to_string() + "' of port '" + cfg.ports[s.port].name + "'";
                if (s.prefix.address == a.address)
                    return at(cfg, port.address_locs[k], key,
                              "'" + a.to_string() + "' is already " + other);
                return at(cfg, port.address_locs[k], key,
                          "the subnet of '" + a.to_string() + "' overlaps that of " + other +
                              "; a subnet is connected through one interface address");
            }
            seen.push_back({a, p});
            (a.address.family == IpFamily::v4 ? connected_v4 : connected_v6)++;
        }
    }
    if (seen.empty())
        return at(cfg, cfg.forward.mode_loc, "forward.mode",
                  "mode \"l3\" routes between the ports' addresses, and no [[port]] has "
                  "addresses; give each routed port addresses = [\"10.0.0.1/24\", ...]");
    return std::nullopt;
}

std::optional<ConfigError> check_routes(const Config& cfg, size_t& routes_v4, size_t& routes_v6) {
    std::set<std::pair<IpFamily, std::string>> prefixes;
    for (size_t i = 0; i < cfg.routes.size(); ++i) {
        const RouteConfig& r = cfg.routes[i];
        const std::string key = "route[" + std::to_string(i) + "]";
        const IpFamily family = r.prefix.address.family;
        if (r.prefix.host_bits_set())
            return at(cfg, r.prefix_loc, key + ".prefix",
                      "'" + r.prefix.to_string() + "' has host bits set; the prefix is '" +
                          r.prefix.network().to_string() + "'");
        if (!prefixes.insert({family, r.prefix.to_string()}).second)
            return at(cfg, r.prefix_loc, key + ".prefix",
                      "'" + r.prefix.to_string() + "' has another [[route]] already");
        for (size_t p = 0; p < cfg.ports.size(); ++p)
            for (const auto& a : cfg.ports[p].addresses)
                if (a.network() == r.prefix)
                    return at(cfg, r.prefix_loc, key + ".prefix",
                              "'" + r.prefix.to_string() + "' is the connected subnet of port '" +
                                  cfg.ports[p].name + "' already");
        int port = -1;
        if (!r.port.empty()) {
            port = port_index(cfg, r.port);
            if (port < 0)
                return at(cfg, r.port_loc, key + ".port",
                          "names port '" + r.port + "', which is not a configured [[port]]");
        }
        if (r.via) {
            if (r.via->family != family)
                return at(cfg, r.via_loc, key + ".via",
                          "'" + r.via->to_string() + "' is not " + family_name(family) +
                              ", as the prefix is");
            if (is_own_address(cfg, *r.via))
                return at(cfg, r.via_loc, key + ".via",
                          "'" + r.via->to_string() + "' is one of this router's own addresses");
            if (connected_port_of(cfg, *r.via, port) < 0)
                return at(cfg, r.via_loc, key + ".via",
                          "'" + r.via->to_string() + "' is on no connected subnet" +
                              (port >= 0 ? " of port '" + r.port + "'" : std::string()) +
                              ", so it cannot be reached; a next hop must be a neighbour on a "
                              "port's subnet");
        } else {
            const auto& addresses = cfg.ports[size_t(port)].addresses;
            bool has_family = false;
            for (const auto& a : addresses) has_family |= a.address.family == family;
            if (!has_family)
                return at(cfg, r.port_loc, key + ".port",
                          "port '" + r.port + "' has no " + family_name(family) +
                              " address to resolve on-link destinations from; give it one or "
                              "add via");
        }
        (family == IpFamily::v4 ? routes_v4 : routes_v6)++;
    }
    return std::nullopt;
}

std::optional<ConfigError> check_neighbours(const Config& cfg) {
    std::set<std::pair<std::string, std::string>> seen;
    for (size_t i = 0; i < cfg.neighbours.size(); ++i) {
        const NeighbourConfig& n = cfg.neighbours[i];
        const std::string key = "neighbour[" + std::to_string(i) + "]";
        const int port = port_index(cfg, n.port);
        if (port < 0)
            return at(cfg, n.port_loc, key + ".port",
                      "names port '" + n.port + "', which is not a configured [[port]]");
        if (is_own_address(cfg, n.address))
            return at(cfg, n.address_loc, key + ".address",
                      "'" + n.address.to_string() + "' is one of this router's own addresses");
        if (connected_port_of(cfg, n.address, port) < 0)
            return at(cfg, n.address_loc, key + ".address",
                      "'" + n.address.to_string() + "' is on no subnet of port '" + n.port + "'");
        if (!seen.insert({n.port, n.address.to_string()}).second)
            return at(cfg, n.address_loc, key + ".address",
                      "'" + n.address.to_string() + "' on port '" + n.port +
                          "' has another [[neighbour]] already");
    }
    if (cfg.neighbours.size() > cfg.l3.max_neighbours)
        return at(cfg, cfg.neighbours[cfg.l3.max_neighbours].loc, "neighbour",
                  std::to_string(cfg.neighbours.size()) +
                      " static neighbours exceed l3.max_neighbours " +
                      std::to_string(cfg.l3.max_neighbours));
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
        return at(cfg, cfg.forward.pairs.front().loc, "forward.pairs",
                  "mode \"l3\" sends each packet where its route says; pairs are for \"patch\" "
                  "and \"l2\": remove them");
    size_t v4 = 0, v6 = 0;
    if (auto e = check_addresses(cfg, v4, v6)) return e;
    // Every address is a host route too; an IPv4 subnet's network and
    // broadcast addresses are two more.
    v4 *= 4;
    v6 *= 2;
    if (auto e = check_routes(cfg, v4, v6)) return e;
    if (auto e = check_neighbours(cfg)) return e;
    for (const auto& [count, family] : {std::pair{v4, "IPv4"}, std::pair{v6, "IPv6"}})
        if (count > cfg.l3.max_routes)
            return at(cfg, cfg.l3_loc.line ? cfg.l3_loc : cfg.forward.mode_loc, "l3.max_routes",
                      std::string("the config's ") + family + " routes (" + std::to_string(count) +
                          ", each interface address counting as its subnet, itself and, in "
                          "IPv4, the subnet's network and broadcast addresses) "
                          "exceed l3.max_routes " +
                          std::to_string(cfg.l3.max_routes));
    return std::nullopt;
}

}  // namespace pmdfwd
