// spdlog set-up for the appliance: console (stderr) plus an optional file.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "config.hpp"
#include "error.hpp"

namespace pmdfwd {

// Installs the "pmdfwd" logger as spdlog's default.
Status setup_logging(const LogConfig& cfg);

}  // namespace pmdfwd
