// A forwarding worker: the per-lcore context and the busy-poll loop that runs
// on it. One worker polls one (port, rx queue); it either owns a TX queue on
// its output port or hands its bursts to the worker that does, and it
// transmits whatever other workers hand to it. Nothing here is written by any
// other core; the stop flag is written by the main lcore.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

struct rte_ring;

#include "config.hpp"
#include "l2_header.hpp"
#include "recycle_mempool.hpp"
#include "tsc_histogram.hpp"
#include "worker_stats.hpp"

namespace pmdfwd {

constexpr uint16_t kMaxBurst = 512;
constexpr unsigned kMaxWorkers = RTE_MAX_LCORE - 1;  // every lcore but the main one

// A single-producer/single-consumer ring from one sender and the TX queue its
// bursts leave on.
struct HandoffIn {
    rte_ring* ring = nullptr;
    uint16_t port = 0;
    uint16_t queue = 0;
};

struct alignas(64) WorkerContext {
    // Read-only after launch.
    unsigned id = 0;
    unsigned lcore = 0;
    uint16_t rx_port = 0;
    uint16_t rx_queue = 0;
    uint16_t tx_port = 0;
    uint16_t tx_queue = 0;
    bool has_tx = false;
    rte_ring* handoff_out = nullptr;  // set: tx_queue belongs to another worker; hand off
    // Rx queues a PMD quirk added to rx_port (net_tap pairs them with TX
    // queues); the kernel may steer a flow to any of them, so they are
    // polled too, by the worker of the port's rx queue 0.
    uint16_t spare_rx_first = 0;
    uint16_t spare_rx_count = 0;
    unsigned handoff_in_count = 0;
    HandoffIn handoff_in[kMaxWorkers];  // bursts other workers hand to this one
    rte_mempool* pool = nullptr;  // its rx queue's pool
    bool pool_recycles = false;
    // Recycle pools of other workers: frees of their mbufs on this lcore are
    // pushed back to them at the end of every loop iteration.
    unsigned defer_flush_count = 0;
    DeferFlush defer_flush[kMaxWorkers];
    ForwardMode mode = ForwardMode::patch;
    uint16_t burst = 32;
    uint16_t tx_retries = 0;
    L2Header l2_header;
    PollMode poll = PollMode::busy;
    uint64_t idle_polls = UINT64_MAX;  // empty polls in a row before backing off (busy: never)
    uint32_t max_sleep_us = 0;         // adaptive: longest single sleep
    bool latency = true;               // keep the residence histogram
    const std::atomic<bool>* stop = nullptr;  // written once by the main lcore

    // Written only by the worker.
    WorkerStats stats;
    // Its thread, once it runs, so the control plane can read the thread's
    // CPU time (the real cost of sleeping and waking).
    pthread_t thread{};
    std::atomic<bool> thread_known{false};
    // Per packet received: the time from its rx burst to the end of that
    // burst's transmit, in TSC cycles.
    alignas(64) TscHistogram residence;
};

// rte_lcore_function_t entry: arg is a WorkerContext*. Returns 0 after *stop.
int worker_main(void* arg);

}  // namespace pmdfwd
