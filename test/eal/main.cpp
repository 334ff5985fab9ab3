// Main for the EAL tests: one EAL per process (--no-huge --no-pci,
// its own file prefix), brought up before any test runs and cleaned up after.
#include <rte_eal.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "catch_session.hpp"

int main(int argc, char** argv) {
    const std::string prefix = "pmdfwd_ealtest_" + std::to_string(getpid());
    std::vector<std::string> args = {
        "eal_tests",   "--no-huge",     "-m",   "384",         "--no-pci",      "--lcores",
        "(0-2)@(0-1)", "--file-prefix", prefix, "--log-level", "lib.eal:error", "--no-telemetry"};
    std::vector<char*> eal_argv;
    for (auto& a : args) eal_argv.push_back(a.data());
    if (rte_eal_init(int(eal_argv.size()), eal_argv.data()) < 0) return 2;
    const int rc = run_catch_session(argc, argv);
    rte_eal_cleanup();
    std::string dir = "/var/run/dpdk/" + prefix;
    (void)!system(("rm -rf " + dir).c_str());
    return rc;
}
