// The resolved plan: which worker lcore polls which (port, rx queue), and how
// each worker reaches its output port: on a TX queue of its own, or by handing
// its bursts to the worker that owns the queue. Pure: computed and checked
// before EAL, and again at start with the devices' queue limits.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "config.hpp"
#include "config_error.hpp"

namespace pmdfwd {

constexpr int kNoPort = -1;
constexpr int kNoWorker = -1;
constexpr unsigned kPktmbufHeadroom = 128;  // RTE_PKTMBUF_HEADROOM in Debian's build
constexpr unsigned kL2Overhead = 18 + 4;    // Ethernet header + FCS + one VLAN tag

struct WorkerPlan {
    unsigned id = 0;
    unsigned lcore = 0;
    unsigned pool = 0;     // index into Plan::pools: its rx queue's pool
    unsigned rx_port = 0;  // index into Config::ports
    uint16_t rx_queue = 0;
    int tx_port = kNoPort;       // index into Config::ports, or kNoPort: no pair, drop all
    uint16_t tx_queue = 0;       // the TX queue its packets leave on
    int handoff_to = kNoWorker;  // kNoWorker: it owns tx_queue; else the id of the owner
    PollMode poll = PollMode::busy;
    // l3 mode: its own TX queue on each port (index into Config::ports), or
    // -1 on a port it never sends on (one without addresses).
    std::vector<int> l3_tx_queue;
};

struct PortPlan {
    uint16_t rx_queues = 0;          // polled by workers
    uint16_t tx_queues = 0;          // each transmitted on by exactly one worker
    TxMode tx = TxMode::per_worker;  // per_worker or owner once resolved
    int netlog_queue = -1;           // the log channel's own TX queue on this port, or -1
    int control_queue = -1;          // l3: the control path's TX queue (ARP, ICMP), or -1
    bool tx_resolved = true;         // false: "auto" while the device's limits are unknown
};

// What a device allows, read at start; the plan is rebuilt against it.
struct PortLimits {
    std::string driver;
    uint16_t max_rx_queues = 0;
    uint16_t max_tx_queues = 0;
};

// A data pool, decided once from [pool] model: one per worker, or one that
// every worker shares.
struct PoolPlan {
    std::string suffix;         // the mempool is "<prefix>_<suffix>": "w<k>" or "shared"
    bool recycle = false;       // the pmdfwd_recycle driver, owned by owner_lcore; else stock ops
    unsigned owner_lcore = 0;   // recycle: its worker's lcore
    unsigned socket_lcore = 0;  // its memory is on this lcore's NUMA socket
};

struct Plan {
    unsigned main_lcore = 0;
    PoolModel pool_model = PoolModel::per_worker_stock;
    bool pool_model_default = true;  // not set in the config
    std::vector<PoolPlan> pools;  // the workers' pools (spare and log channel pools are the ports')
    std::vector<WorkerPlan> workers;
    std::vector<PortPlan> ports;
    std::vector<unsigned> unused_lcores;
    std::vector<std::string> warnings;

    bool recycles() const { return pool_model == PoolModel::recycle; }
    // Where pool_model came from: "default" or "config" ([pool] model).
    const char* pool_model_source() const { return pool_model_default ? "default" : "config"; }
};

using PlanResult = std::variant<Plan, ConfigError>;

// Cross-field validation plus worker assignment. Without limits (--check,
// before EAL) tx = "auto" is shown as per-worker and left unresolved.
PlanResult build_plan(const Config& cfg, const std::vector<PortLimits>* limits = nullptr);

// Lines describing the plan, as printed at start, by --check and by the CLI.
std::vector<std::string> render_plan(const Config& cfg, const Plan& plan);

}  // namespace pmdfwd
