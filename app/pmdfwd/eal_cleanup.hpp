// rte_eal_cleanup with a deadline, for the main thread's last step. A DPDK
// secondary process (dpdk-dumpcap) that dies while it holds EAL's shared
// memory lock leaves it held for good, and rte_eal_cleanup would wait on it
// for ever after every port and pool was already closed and audited.
#pragma once

#include <functional>

namespace pmdfwd {

// Runs rte_eal_cleanup; if it has not returned after `limit_s` seconds,
// logs why, runs `finish` (what the exit still owes: files to remove, the
// last log line) and ends the process with `exit_code`.
void eal_cleanup_bounded(unsigned limit_s, int exit_code, const std::function<void()>& finish);

}  // namespace pmdfwd
