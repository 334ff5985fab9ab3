// What a reload changes: two configs compared key by key (their TOML as
// config_writer writes it, flattened to `section.key` names: config_keys), and which of the
// changed keys the running appliance takes without a restart. No DPDK.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config.hpp"

namespace pmdfwd {

struct ConfigChange {
    std::string key;     // "l3.icmp_rate_limit", "route.10.9.0.0/16", "port.p0.mtu"
    std::string before;  // its value as TOML writes it; "" when absent
    std::string after;
    bool live = false;  // applied without a restart
};

// The keys whose values differ, in key order.
std::vector<ConfigChange> diff_configs(const Config& before, const Config& after);

// Whether a key may change while pmdfwd runs: routes, neighbours, [l3]
// rates, log levels, the log channel's target and rate, poll
// parameters, the stall threshold, the stats line and the metrics
// endpoint. Everything else needs a restart.
bool live_key(const std::string& key);

// "l3.icmp_rate_limit: 100 -> 50" and "route.10.9.0.0/16: (none) -> via ...".
std::string to_string(const ConfigChange& c);

}  // namespace pmdfwd
