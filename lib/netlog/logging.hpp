// spdlog set-up for the appliance: console (stderr) plus an optional file,
// reopened on request (SIGHUP).
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "config.hpp"
#include "error.hpp"

namespace pmdfwd {

// Installs the "pmdfwd" logger as spdlog's default.
Status setup_logging(const LogConfig& cfg);
// Opens the [log] file again by its path (after logrotate moved it away);
// on failure the old file stays in use. Main thread, after setup_logging.
Status reopen_log_file();
// A reload: the console's and the file's level (the log channel's sink
// keeps its own: netlog_set_sink_level), the logger's the lowest of them.
void set_log_level(const std::string& level);
// The logger passes on what reaches the lowest level of its sinks.
void lower_logger_to_sinks();

}  // namespace pmdfwd
