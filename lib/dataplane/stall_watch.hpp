// The main lcore's watch over the workers' heartbeats (Heartbeat in
// worker_context.hpp): which loops move, which have gone quiet and in which
// phase, a warning per worker at most once a second when one stalled or
// hangs, and whether every loop makes progress (what the systemd watchdog is
// fed on). The workers count their own stalls exactly; this watch only
// reads, so it costs them nothing but a shared read of their heartbeat line.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "worker_context.hpp"

namespace pmdfwd {

// How long a loop has gone without progress at TSC `now`, in cycles; 0
// while it sleeps by choice (an adaptive sleep, an interrupt wait).
inline uint64_t loop_quiet_cycles(const Heartbeat& beat, uint64_t now) {
    if (beat.phase.load(std::memory_order_relaxed) == LoopPhase::sleep) return 0;
    const uint64_t last = beat.tsc.load(std::memory_order_relaxed);
    return now > last ? now - last : 0;
}

class StallWatch {
  public:
    // `names`: how the warnings name each worker ("worker 1 (lcore 2, p0 rxq 0)").
    StallWatch(std::vector<const WorkerContext*> workers, std::vector<std::string> names,
               uint64_t stall_cycles, uint64_t tsc_hz);

    // Main lcore, every period(): reads every heartbeat, logs what is due.
    void sample();
    // A reload's new threshold (any thread; sample reads it).
    void set_stall_cycles(uint64_t cycles) {
        stall_cycles_.store(cycles, std::memory_order_relaxed);
    }
    // True when, at the last sample, no loop had gone quiet for longer than
    // stall_us.
    bool all_progressing() const { return all_progressing_; }
    // How often sample() should run for a stall of stall_us to be seen in
    // its phase: half of it, within [1, 20] ms.
    uint64_t period_ms() const;
    // A loop quiet for this long is hung (pmdctl show workers marks it).
    static constexpr uint64_t kHungAfterMs = 1000;

  private:
    struct State {
        uint64_t reported_stalls = 0;  // the worker's count at the last report
        uint64_t last_report = 0;      // TSC; 0: never
        uint64_t quiet_seen = 0;       // the longest quiet seen since, in cycles
        LoopPhase phase_seen = LoopPhase::idle;
        bool seen = false;  // a quiet longer than stall_us was seen since the last report
    };
    void report(size_t i, uint64_t now, uint64_t quiet);

    std::vector<const WorkerContext*> workers_;
    std::vector<std::string> names_;
    std::vector<State> state_;
    std::atomic<uint64_t> stall_cycles_;
    uint64_t hz_;
    bool all_progressing_ = true;
};

}  // namespace pmdfwd
