// Burst forwarding for one worker: takes a received burst, rewrites it (l2),
// transmits on the worker's own TX queue, and frees whatever it cannot send.
// Contract: every mbuf handed in is either transmitted or freed and counted.
#pragma once

#include <rte_mbuf.h>

#include <array>

#include "worker.hpp"

namespace pmdfwd {

struct BurstOutcome {
    uint64_t rx_bytes = 0;
    uint64_t tx_pkts = 0;
    uint64_t tx_bytes = 0;
    std::array<uint64_t, kDropReasonCount> drops{};
};

template <ForwardMode kMode>
BurstOutcome forward_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n);

}  // namespace pmdfwd
