// What a worker's loop takes from the config that a reload may change (poll
// parameters, the stall threshold, router mode's ICMP error gate): the
// control side publishes a new set under a sequence number, and each worker
// adopts it at its next progress point, copying it into its own context, so
// that no other core writes a worker's state and the loop reads its own
// fields as before.
#pragma once

#include <atomic>
#include <cstdint>

namespace pmdfwd {

struct LoopValues {
    uint64_t idle_polls_adaptive = 0;
    uint64_t idle_polls_interrupt = 0;
    uint64_t stall_cycles = UINT64_MAX;
    uint64_t icmp_interval_tsc = 0;
    uint64_t icmp_burst_tsc = 0;
    uint32_t max_sleep_us = 0;
};

class alignas(64) LoopSettings {
  public:
    // Control side, one writer: the values, then a new even version.
    void publish(const LoopValues& v) {
        const uint64_t s = seq_.load(std::memory_order_relaxed);
        seq_.store(s + 1, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_release);
        idle_adaptive_.store(v.idle_polls_adaptive, std::memory_order_relaxed);
        idle_interrupt_.store(v.idle_polls_interrupt, std::memory_order_relaxed);
        stall_cycles_.store(v.stall_cycles, std::memory_order_relaxed);
        icmp_interval_.store(v.icmp_interval_tsc, std::memory_order_relaxed);
        icmp_burst_.store(v.icmp_burst_tsc, std::memory_order_relaxed);
        max_sleep_us_.store(v.max_sleep_us, std::memory_order_relaxed);
        seq_.store(s + 2, std::memory_order_release);
    }
    uint64_t version() const { return seq_.load(std::memory_order_acquire); }
    // Worker: the values of `version`, or false when a publish was under
    // way (try again at the next progress point).
    bool read(LoopValues& v, uint64_t& version) const {
        const uint64_t s = seq_.load(std::memory_order_acquire);
        if (s & 1) return false;
        v.idle_polls_adaptive = idle_adaptive_.load(std::memory_order_relaxed);
        v.idle_polls_interrupt = idle_interrupt_.load(std::memory_order_relaxed);
        v.stall_cycles = stall_cycles_.load(std::memory_order_relaxed);
        v.icmp_interval_tsc = icmp_interval_.load(std::memory_order_relaxed);
        v.icmp_burst_tsc = icmp_burst_.load(std::memory_order_relaxed);
        v.max_sleep_us = uint32_t(max_sleep_us_.load(std::memory_order_relaxed));
        std::atomic_thread_fence(std::memory_order_acquire);
        if (seq_.load(std::memory_order_relaxed) != s) return false;
        version = s;
        return true;
    }

  private:
    std::atomic<uint64_t> seq_{0};
    std::atomic<uint64_t> idle_adaptive_{0}, idle_interrupt_{0}, stall_cycles_{UINT64_MAX},
        icmp_interval_{0}, icmp_burst_{0}, max_sleep_us_{0};
};

}  // namespace pmdfwd
