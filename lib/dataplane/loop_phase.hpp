// What a worker's loop is doing, as it tells the main lcore on its heartbeat
// line: the phase a stall is reported in. Pure.
#pragma once

#include <cstdint>
#include <string_view>

namespace pmdfwd {

enum class LoopPhase : uint8_t {
    rx,       // rte_eth_rx_burst on its queues
    forward,  // rewriting headers, checking lengths, counting
    tx,       // rte_eth_tx_burst and its retries
    handoff,  // taking other workers' bursts, or handing its own over
    idle,     // an empty poll: flushing deferred frees, counting
    sleep,    // asleep or waiting on rx interrupts by choice: not a stall
};

constexpr std::string_view to_string(LoopPhase p) {
    switch (p) {
        case LoopPhase::rx:
            return "rx";
        case LoopPhase::forward:
            return "forward";
        case LoopPhase::tx:
            return "tx";
        case LoopPhase::handoff:
            return "handoff";
        case LoopPhase::idle:
            return "idle";
        case LoopPhase::sleep:
            return "sleep";
    }
    return "?";
}

}  // namespace pmdfwd
