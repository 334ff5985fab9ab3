// Burst forwarding for one worker: takes a received burst, rewrites it (l2),
// transmits it on the worker's own TX queue or hands it to the queue's owner,
// and frees whatever it cannot pass on. The owner side drains handoff rings.
// Contract: every mbuf handed in is transmitted, handed off, or freed and counted.
#pragma once

#include <rte_mbuf.h>

#include <array>

#include "worker_context.hpp"

namespace pmdfwd {

struct BurstOutcome {
    uint64_t rx_bytes = 0;
    uint64_t tx_pkts = 0;
    uint64_t tx_bytes = 0;
    uint64_t handoff_out = 0;
    uint64_t handoff_in = 0;
    std::array<uint64_t, kDropReasonCount> drops{};
};

template <ForwardMode kMode>
BurstOutcome forward_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n);

// Takes up to one burst from each handoff ring and transmits it; `scratch`
// holds kMaxBurst pointers. Returns packets taken in handoff_in.
BurstOutcome transmit_handoffs(const WorkerContext& w, rte_mbuf** scratch);

}  // namespace pmdfwd
