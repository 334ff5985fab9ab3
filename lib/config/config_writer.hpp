// A Config written back as TOML: every key with its value, defaults
// included, so that the text says all the running appliance does. What
// `pmdctl show config` prints and `config save` writes; what a reload
// compares, key by key (config_diff.hpp). The loader reads it back to an
// equal Config. No DPDK.
#pragma once

#include <map>
#include <string>

#include "config.hpp"

namespace pmdfwd {

std::string config_to_toml(const Config& cfg);

// Every key of cfg with its value as TOML writes it, flattened to
// `section.key` names: ports' keys by the port's name (`port.p0.mtu`), a
// route by its prefix (`route.10.9.0.0/16`), a neighbour by its port and
// address (`neighbour.p0.10.1.0.7`), each with the rest of its table.
std::map<std::string, std::string> config_keys(const Config& cfg);

}  // namespace pmdfwd
