// The resolved plan: which worker lcore polls which (port, rx queue) and which
// TX queue it owns on its output port. Pure: computed and checked before EAL.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "config.hpp"
#include "config_error.hpp"

namespace pmdfwd {

constexpr int kNoPort = -1;
constexpr unsigned kPktmbufHeadroom = 128;  // RTE_PKTMBUF_HEADROOM in Debian's build
constexpr unsigned kL2Overhead = 18 + 4;    // Ethernet header + FCS + one VLAN tag

struct WorkerPlan {
    unsigned id = 0;
    unsigned lcore = 0;
    unsigned rx_port = 0;  // index into Config::ports
    uint16_t rx_queue = 0;
    int tx_port = kNoPort;  // index into Config::ports, or kNoPort: no pair, drop all
    uint16_t tx_queue = 0;
};

struct PortPlan {
    uint16_t rx_queues = 0;  // polled by workers
    uint16_t tx_queues = 0;  // owned by workers (one per sending worker)
};

struct Plan {
    unsigned main_lcore = 0;
    std::vector<WorkerPlan> workers;
    std::vector<PortPlan> ports;
    std::vector<unsigned> unused_lcores;
    std::vector<std::string> warnings;
};

using PlanResult = std::variant<Plan, ConfigError>;

// Cross-field validation plus worker assignment.
PlanResult build_plan(const Config& cfg);

// Lines describing the plan, as printed at start, by --check and by the CLI.
std::vector<std::string> render_plan(const Config& cfg, const Plan& plan);

}  // namespace pmdfwd
