// The EAL command line built from the config. Pure, so it is unit tested.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "devargs.hpp"
#include "plan.hpp"

namespace pmdfwd {

std::vector<std::string> build_eal_args(const Config& cfg, const Plan& plan);

// Why an extra_args element must not reach EAL: it sets something pmdfwd
// sets itself from the config, or that its ports and control rely on
// ("--file-prefix=x", "-l", "--no-hu", ...). Empty when the element is fine.
// Long options are matched as getopt_long does, so abbreviations count.
std::string owned_eal_option(std::string_view arg);

}  // namespace pmdfwd
