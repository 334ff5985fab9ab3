// A Config written back as TOML: every key with its value, defaults
// included, so that the text says all the running appliance does. What
// `pmdctl show config` prints and `config save` writes; what a reload
// compares, key by key (config_diff.hpp). The loader reads it back to an
// equal Config. No DPDK.
#pragma once

#include <string>

#include "config.hpp"

namespace pmdfwd {

std::string config_to_toml(const Config& cfg);

}  // namespace pmdfwd
