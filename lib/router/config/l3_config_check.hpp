// Router mode's cross-field config checks, run by build_plan: interface
// addresses, static routes and neighbours must fit together (subnets,
// ports, families, duplicates, table sizes). Pure; main thread, before EAL.
#pragma once

#include <optional>

#include "config.hpp"
#include "config_error.hpp"

namespace pmdfwd {

std::optional<ConfigError> check_l3_config(const Config& cfg);

// The index of the port a route leaves on: its port key, else the port
// whose subnet holds its via. -1 when neither names a port (check_l3_config
// refuses such a route).
int route_port_index(const Config& cfg, const RouteConfig& route);

// The index of the port with a subnet holding `address` (-1: none). With
// `port` >= 0, that port only.
int connected_port_of(const Config& cfg, const IpAddress& address, int port = -1);

}  // namespace pmdfwd
