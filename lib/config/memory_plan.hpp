// The EAL memory a plan needs (pools, router tables, rings), estimated from
// DPDK 22.11's layouts before EAL starts, so that --check refuses a config
// that would fail at start for want of eal.memory_mb. Pure; main thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "config_error.hpp"
#include "plan.hpp"

namespace pmdfwd {

// One thing that takes EAL memory, the config key that sizes it most, and
// where that key is (line 0: not in the file).
struct MemoryPart {
    std::string what;  // "pools: 2 x 8192 mbufs of 2176 bytes"
    uint64_t bytes = 0;
    std::string key;  // "pool.mbufs"
    SourceLoc loc;
};

std::vector<MemoryPart> plan_memory(const Config& cfg, const Plan& plan);

// "memory: about N MiB of eal.memory_mb M (part X MiB, ...)", for the plan.
std::string memory_line(const Config& cfg, const Plan& plan);

// The parts' sum against eal.memory_mb: an error at the key of the largest
// part (at eal.memory_mb when that key is not in the file), naming each.
std::optional<ConfigError> check_memory_fits(const Config& cfg, const Plan& plan);

}  // namespace pmdfwd
