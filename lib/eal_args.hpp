// The EAL command line built from the config. Pure, so it is unit tested.
#pragma once

#include <string>
#include <vector>

#include "config.hpp"
#include "plan.hpp"

namespace pmdfwd {

std::vector<std::string> build_eal_args(const Config& cfg, const Plan& plan);

// True for devargs that name a PCI device ("0000:01:00.0", "01:00.0,opt=1").
bool is_pci_devargs(const std::string& devargs);

// The device name part of devargs: everything before the first ','.
std::string devargs_name(const std::string& devargs);

}  // namespace pmdfwd
