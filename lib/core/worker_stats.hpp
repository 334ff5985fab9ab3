// Per-worker counters: one cache-line-aligned block written only by its worker,
// read by the control thread through a sequence lock so every snapshot is
// consistent: rx + handoff_in == tx + drops + handoff_out holds in each one.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "burst_histogram.hpp"
#include "drop_reasons.hpp"

namespace pmdfwd {

// A counter with one writer: a relaxed load and store (a plain add on x86), no
// locked instruction; readers on other threads see whole values.
class Counter {
  public:
    void add(uint64_t n) {
        v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    uint64_t get() const { return v_.load(std::memory_order_relaxed); }

  private:
    std::atomic<uint64_t> v_{0};
};

struct WorkerSnapshot {
    uint64_t rx_pkts = 0, rx_bytes = 0, tx_pkts = 0, tx_bytes = 0;
    uint64_t polls = 0, empty_polls = 0, busy_tsc = 0, idle_tsc = 0;
    uint64_t sleep_tsc = 0;    // asleep (adaptive) or waiting on rx interrupts
    uint64_t wakeups = 0;      // sleeps and interrupt waits that ended
    uint64_t handoff_out = 0;  // bursts' packets handed to the owner of a TX queue
    uint64_t handoff_in = 0;   // packets taken from handoff rings to transmit
    std::array<uint64_t, kDropReasonCount> drops{};
    std::array<uint64_t, kBurstBuckets> burst_hist{};
    uint64_t full_bursts = 0;

    uint64_t total_drops() const {
        uint64_t t = 0;
        for (const auto d : drops) t += d;
        return t;
    }
    // Handed off and not yet taken by the owner. Meaningful for a sum over
    // all workers, where rx == tx + drops + in_flight.
    uint64_t in_flight() const { return handoff_out > handoff_in ? handoff_out - handoff_in : 0; }
    // Counters only grow, so "since clear" is a subtraction (OVS pmd-stats-clear).
    WorkerSnapshot minus(const WorkerSnapshot& base) const;
    WorkerSnapshot& operator+=(const WorkerSnapshot& other);
};

// The one list of counters: calls fn(a.x, b.x) for every counter x of two
// objects with the counter fields (snapshots or WorkerStats).
template <class A, class B, class Fn>
void for_each_counter(A& a, B& b, Fn&& fn) {
    fn(a.rx_pkts, b.rx_pkts);
    fn(a.rx_bytes, b.rx_bytes);
    fn(a.tx_pkts, b.tx_pkts);
    fn(a.tx_bytes, b.tx_bytes);
    fn(a.polls, b.polls);
    fn(a.empty_polls, b.empty_polls);
    fn(a.busy_tsc, b.busy_tsc);
    fn(a.idle_tsc, b.idle_tsc);
    fn(a.sleep_tsc, b.sleep_tsc);
    fn(a.wakeups, b.wakeups);
    fn(a.handoff_out, b.handoff_out);
    fn(a.handoff_in, b.handoff_in);
    for (size_t i = 0; i < kDropReasonCount; ++i) fn(a.drops[i], b.drops[i]);
    for (size_t i = 0; i < kBurstBuckets; ++i) fn(a.burst_hist[i], b.burst_hist[i]);
    fn(a.full_bursts, b.full_bursts);
}

class alignas(64) WorkerStats {
  public:
    // Writer side: bracket each burst's updates so readers see all or none.
    void begin_update() {
        seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_release);
    }
    void end_update() {
        seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

    Counter rx_pkts, rx_bytes, tx_pkts, tx_bytes;
    Counter polls, empty_polls, busy_tsc, idle_tsc, sleep_tsc, wakeups;
    Counter handoff_out, handoff_in;
    std::array<Counter, kDropReasonCount> drops;
    std::array<Counter, kBurstBuckets> burst_hist;
    Counter full_bursts;

    // Writer side: adds a batch of counts in one bracketed update.
    void publish(const WorkerSnapshot& delta) {
        begin_update();
        for_each_counter(*this, delta, [](Counter& c, uint64_t v) { c.add(v); });
        end_update();
    }

    // Writer side: publishes the counts gathered since the last call and
    // starts them again from zero.
    void publish_and_clear(WorkerSnapshot& pending) {
        publish(pending);
        pending = WorkerSnapshot{};
    }

    // Reader side, any thread.
    WorkerSnapshot read() const;

  private:
    std::atomic<uint64_t> seq_{0};
};

}  // namespace pmdfwd
