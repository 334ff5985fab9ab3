// The third config stage, after parsing and planning: checks against the
// machine pmdfwd runs on (its CPUs, memory, hugepages, the log file's
// directory). Kept apart so parsing and planning stay machine independent;
// the check itself takes the facts as a value, so tests choose them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "config_error.hpp"

namespace pmdfwd {

struct SystemFacts {
    // CPUs an lcore may be pinned to, ascending: online ones, within the
    // process's cpuset cgroup. Not sched_getaffinity(): a process started
    // under taskset may still pin its lcores elsewhere (EAL does). Empty:
    // unknown, not checked.
    std::vector<unsigned> cpus;
    uint64_t memory_bytes = 0;         // physical memory; 0: unknown, not checked
    uint64_t free_hugepage_bytes = 0;  // free hugepages of every size
    // Hugepage files an earlier run of this file prefix left in hugetlbfs
    // (kept linked for capture; after a crash, or a DPDK exit, they stay):
    // EAL removes them as it starts, so their pages count as free.
    uint64_t prefix_hugepage_bytes = 0;
    // The network interfaces there are now (/sys/class/net), and whether
    // /dev/net/tun opens: a port's kernel_interface is made there.
    std::vector<std::string> interfaces;
    bool tun_device = true;
};

// `file_prefix`: whose leftover hugepage files count as free ("": none).
SystemFacts read_system_facts(const std::string& file_prefix = "");

// The first thing in cfg this machine cannot do, located like any config
// error. Reads the file system for the log file only.
std::optional<ConfigError> check_against_system(const Config& cfg, const SystemFacts& facts);

// The kernel's CPU list format: "0-3,8,10-11". nullopt when malformed.
std::optional<std::vector<unsigned>> parse_cpu_list(std::string_view text);
std::string format_cpu_list(const std::vector<unsigned>& cpus);

}  // namespace pmdfwd
