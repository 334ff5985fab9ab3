// What a route, its next hop and a neighbour may be, for the config
// ([[route]], [[neighbour]]) and for `route add` at run time alike: one set
// of rules, so that nothing is taken at run time that a config refuses.
// Pure; any thread.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ip_prefix.hpp"

namespace pmdfwd {

// A port as the rules see it: its name and interface addresses.
struct RoutedPort {
    std::string name;
    std::vector<IpPrefix> addresses;
};

// The one thing wrong with a route, and which of its keys says it.
struct RouteProblem {
    enum class Key : uint8_t { prefix, via, port };
    Key key = Key::prefix;
    std::string message;
};

// Where a route leaves: the index of its port in `ports`.
struct RouteTarget {
    int port = -1;
};

// A route to `prefix`, through `via` if given, leaving by `port` if named
// (-1: not named; the port whose subnet holds via then). Refused: host bits
// set; a martian or link-local destination (0/8 but the default route,
// 127/8, 169.254/16, 224/4 and 240/4; ::/128, ::1/128, fe80::/10,
// ff00::/8); a port's connected subnet or one of the router's own
// addresses; via of another family, the router's own, a subnet's network
// or broadcast address, or on no connected subnet (of port); without via,
// a port lacking an address of the prefix's family.
std::variant<RouteTarget, RouteProblem> check_route(const IpPrefix& prefix,
                                                    const std::optional<IpAddress>& via, int port,
                                                    const std::vector<RoutedPort>& ports);

// Why `address` cannot be a neighbour on port `port` (empty: it can): the
// router's own, a subnet's network or broadcast address, or on no subnet
// of that port.
std::string neighbour_address_problem(const IpAddress& address, int port,
                                      const std::vector<RoutedPort>& ports);

// Why the destination `prefix` is martian or link-local (empty: it is not).
std::string martian_prefix_problem(const IpPrefix& prefix);

}  // namespace pmdfwd
