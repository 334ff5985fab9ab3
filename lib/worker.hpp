// A forwarding worker: the per-lcore context and the busy-poll loop that runs
// on it. One worker owns one (port, rx queue) and one TX queue on its output
// port; nothing here is written by any other core except the stop flag.
#pragma once

#include <atomic>
#include <cstdint>

#include "config.hpp"
#include "l2_header.hpp"
#include "worker_stats.hpp"

namespace pmdfwd {

constexpr uint16_t kMaxBurst = 512;

struct alignas(64) WorkerContext {
    // Read-only after launch.
    unsigned id = 0;
    unsigned lcore = 0;
    uint16_t rx_port = 0;
    uint16_t rx_queue = 0;
    uint16_t tx_port = 0;
    uint16_t tx_queue = 0;
    bool has_tx = false;
    ForwardMode mode = ForwardMode::patch;
    uint16_t burst = 32;
    uint16_t tx_retries = 0;
    L2Header l2_header;
    const std::atomic<bool>* stop = nullptr;  // written once by the main lcore

    // Written only by the worker.
    WorkerStats stats;
};

// rte_lcore_function_t entry: arg is a WorkerContext*. Returns 0 after *stop.
int worker_main(void* arg);

}  // namespace pmdfwd
