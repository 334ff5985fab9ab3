// The rules for routes, next hops and neighbours (see route_rules.hpp):
// config check and run time alike.
#include "route_rules.hpp"

namespace pmdfwd {

namespace {

const char* family_name(IpFamily f) { return f == IpFamily::v4 ? "IPv4" : "IPv6"; }

IpPrefix block(const char* text) {
    std::string why;
    return *parse_ip_prefix(text, &why);
}

// Destinations no router forwards to (RFC 1812 5.3.7, RFC 4291 2.5.6 and
// 2.7): a route into one would send what no host may receive, or what
// must stay on its link.
struct Martian {
    IpPrefix prefix;
    const char* what;
};
const std::vector<Martian>& martians() {
    static const std::vector<Martian> kMartians = {
        {block("0.0.0.0/8"), "'this network' (0.0.0.0/8)"},
        {block("127.0.0.0/8"), "loopback (127.0.0.0/8)"},
        {block("169.254.0.0/16"), "link-local (169.254.0.0/16)"},
        {block("224.0.0.0/4"), "multicast (224.0.0.0/4)"},
        {block("240.0.0.0/4"), "reserved (240.0.0.0/4)"},
        {block("::/128"), "the unspecified address (::/128)"},
        {block("::1/128"), "loopback (::1/128)"},
        {block("fe80::/10"), "link-local (fe80::/10)"},
        {block("ff00::/8"), "multicast (ff00::/8)"},
    };
    return kMartians;
}

// An IPv4 subnet's network and broadcast addresses (a /31 and /32 have none).
std::string subnet_edge(const IpPrefix& subnet, const IpAddress& a) {
    if (a.family != IpFamily::v4 || subnet.address.family != IpFamily::v4 || subnet.length > 30 ||
        !contains(subnet, a))
        return {};
    const IpPrefix net = subnet.network();
    if (a == net.address) return "the network address of subnet " + net.to_string();
    IpAddress broadcast = net.address;
    for (unsigned bit = subnet.length; bit < 32; ++bit)
        broadcast.bytes[bit / 8] |= uint8_t(0x80 >> (bit % 8));
    if (a == broadcast) return "the broadcast address of subnet " + net.to_string();
    return {};
}

// Why `a` cannot be a next hop or neighbour on any port (empty: it can).
std::string host_problem(const IpAddress& a, const std::vector<RoutedPort>& ports) {
    for (const auto& p : ports)
        for (const auto& own : p.addresses) {
            if (own.address == a)
                return "'" + a.to_string() + "' is one of this router's own addresses (port '" +
                       p.name + "')";
            if (const std::string edge = subnet_edge(own, a); !edge.empty())
                return "'" + a.to_string() + "' is " + edge + " (port '" + p.name +
                       "'), which names no neighbour";
        }
    return {};
}

int connected_port(const IpAddress& a, int port, const std::vector<RoutedPort>& ports) {
    for (size_t p = 0; p < ports.size(); ++p) {
        if (port >= 0 && int(p) != port) continue;
        for (const auto& own : ports[p].addresses)
            if (contains(own, a)) return int(p);
    }
    return -1;
}

}  // namespace

std::string martian_prefix_problem(const IpPrefix& prefix) {
    for (const Martian& m : martians())
        if (prefix.length >= m.prefix.length && contains(m.prefix, prefix.address))
            return "'" + prefix.to_string() + "' is " + m.what +
                   ", which a router never forwards to";
    return {};
}

std::variant<RouteTarget, RouteProblem> check_route(const IpPrefix& prefix,
                                                    const std::optional<IpAddress>& via, int port,
                                                    const std::vector<RoutedPort>& ports) {
    using Key = RouteProblem::Key;
    const IpFamily family = prefix.address.family;
    if (prefix.host_bits_set())
        return RouteProblem{Key::prefix, "'" + prefix.to_string() +
                                             "' has host bits set; the prefix is '" +
                                             prefix.network().to_string() + "'"};
    if (std::string why = martian_prefix_problem(prefix); !why.empty())
        return RouteProblem{Key::prefix, std::move(why)};
    for (const auto& p : ports)
        for (const auto& a : p.addresses) {
            if (a.network() == prefix)
                return RouteProblem{Key::prefix, "'" + prefix.to_string() +
                                                     "' is the connected subnet of port '" +
                                                     p.name + "' already"};
            if (prefix.length == a.address.bits() && prefix.address == a.address)
                return RouteProblem{Key::prefix, "'" + prefix.to_string() +
                                                     "' is one of this router's own addresses "
                                                     "(port '" +
                                                     p.name + "')"};
        }
    const std::string port_text =
        port >= 0 ? " of port '" + ports[size_t(port)].name + "'" : std::string();
    if (via) {
        if (via->family != family)
            return RouteProblem{Key::via, "'" + via->to_string() + "' is not " +
                                              family_name(family) + ", as the prefix is"};
        if (std::string why = host_problem(*via, ports); !why.empty())
            return RouteProblem{Key::via, std::move(why)};
        const int at = connected_port(*via, port, ports);
        if (at < 0)
            return RouteProblem{Key::via, "'" + via->to_string() + "' is on no connected subnet" +
                                              port_text +
                                              ", so it cannot be reached; a next hop must be a "
                                              "neighbour on a port's subnet"};
        return RouteTarget{at};
    }
    if (port < 0) return RouteProblem{Key::port, "a route without via needs the port it leaves by"};
    for (const auto& a : ports[size_t(port)].addresses)
        if (a.address.family == family) return RouteTarget{port};
    return RouteProblem{Key::port, "port '" + ports[size_t(port)].name + "' has no " +
                                       family_name(family) +
                                       " address to resolve on-link destinations from; give it "
                                       "one or add via"};
}

std::string neighbour_address_problem(const IpAddress& address, int port,
                                      const std::vector<RoutedPort>& ports) {
    if (std::string why = host_problem(address, ports); !why.empty()) return why;
    if (connected_port(address, port, ports) < 0)
        return "'" + address.to_string() + "' is on no subnet of port '" +
               ports[size_t(port)].name + "'";
    return {};
}

}  // namespace pmdfwd
