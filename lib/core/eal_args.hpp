// The EAL command line built from the config. Pure, so it is unit tested.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "plan.hpp"

namespace pmdfwd {

std::vector<std::string> build_eal_args(const Config& cfg, const Plan& plan);

// True for devargs that name a PCI device ("0000:01:00.0", "01:00.0,opt=1").
bool is_pci_devargs(const std::string& devargs);

// The device name part of devargs: everything before the first ','.
std::string devargs_name(const std::string& devargs);

// The device devargs name, spelled one way: a PCI address with its domain
// and in lower case ("01:00.0" and "0000:01:00.0" are one device), else the
// name as it is. Two ports with the same key would be one DPDK device.
std::string device_key(const std::string& devargs);

// Why an extra_args element must not reach EAL: it sets something pmdfwd
// sets itself from the config, or that its ports and control rely on
// ("--file-prefix=x", "-l", "--no-hu", ...). Empty when the element is fine.
// Long options are matched as getopt_long does, so abbreviations count.
std::string owned_eal_option(std::string_view arg);

}  // namespace pmdfwd
