// DPDK's own log lines (EAL, PMDs, libraries) into pmdfwd's spdlog logger,
// and so to standard error, the [log] file and the log channel: rte_log's
// stream becomes a FILE whose writes end here, on whichever thread called
// rte_log. Each line goes on as "dpdk: <line>" at the level DPDK gave it.
#pragma once

#include "error.hpp"

namespace pmdfwd {

// After setup_logging and before rte_eal_init, so that EAL's own start-up
// lines are covered. Until it is called, or if it fails, DPDK writes where it
// would have (the terminal, and syslog once EAL has started).
Status route_dpdk_log();
// After rte_eal_cleanup: DPDK's lines go straight to standard error again, so
// that none reaches spdlog's logger while it is destroyed at exit.
void unroute_dpdk_log();

}  // namespace pmdfwd
