// Per-worker counters: one cache-line-aligned block written only by its worker,
// read by the control thread through a sequence lock so every snapshot is
// consistent: rx + handoff_in == tx + drops + handoff_out + punted holds in each one.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "burst_histogram.hpp"
#include "counter_list.hpp"
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

// A worker's own counters, declared once: X(name, unit, kind, help). The
// snapshot, the shared counter block, their arithmetic and the worker and
// stats records (record_schemas.hpp) are all made from this list.
#define PMDFWD_WORKER_COUNTERS(X)                                                                 \
    X(rx_pkts, packets, counter,                                                                  \
      "packets received from its rx queue and the spare rx queues it polls")                      \
    X(rx_bytes, bytes, counter,                                                                   \
      "bytes received: the mbufs' packet lengths, without FCS, so they count where the PMD's "    \
      "ibytes stay 0 (0 with [forward] read_lengths = false)")                                    \
    X(tx_pkts, packets, counter, "packets that tx_burst took, from its own bursts or handed in")  \
    X(tx_bytes, bytes, counter, "bytes of those packets (0 with [forward] read_lengths = false)") \
    X(handoff_out, packets, counter,                                                              \
      "packets handed to the owner of the TX queue they leave on, over its handoff ring")         \
    X(handoff_in, packets, counter,                                                               \
      "packets taken from other workers' handoff rings and transmitted or dropped as the "        \
      "queue's owner")                                                                            \
    X(punted, packets, counter,                                                                   \
      "l3: packets handed to the control path: ARP, ND, to this router, or waiting for a "        \
      "neighbour")                                                                                \
    X(icmp_errors_gated, packets, counter,                                                        \
      "l3: drops owed an ICMP error that the worker's own gate "                                  \
      "(l3.icmp_rate_limit, per family) kept from the control path: no error sent")               \
    X(icmp_errors_punt_full, packets, counter,                                                    \
      "l3: drops owed an ICMP error that the full punt ring did not take: no "                    \
      "error sent")                                                                               \
    X(polls, polls, counter, "loop iterations: rx_burst calls on its queue")                      \
    X(empty_polls, polls, counter, "polls that returned no packet and found no handoff waiting")  \
    X(busy_tsc, cycles, counter, "TSC cycles of polls that found work")                           \
    X(idle_tsc, cycles, counter,                                                                  \
      "TSC cycles of empty polls: spinning on empty queues, the adaptive pause phase included")   \
    X(sleep_tsc, cycles, counter,                                                                 \
      "TSC cycles asleep (adaptive) or waiting on rx interrupts (interrupt)")                     \
    X(wakeups, events, counter,                                                                   \
      "sleeps and interrupt waits that ended (an interrupt wait also ends every 50 ms)")          \
    X(full_bursts, polls, counter,                                                                \
      "polls that returned a whole configured burst: the worker is behind when most do")          \
    X(stalls, events, counter,                                                                    \
      "loop gaps longer than [control] stall_us between two progress points, sleeps excluded")    \
    X(stall_tsc, cycles, counter, "TSC cycles spent in those gaps")

constexpr size_t kWorkerCounterCount = 0 PMDFWD_WORKER_COUNTERS(PMDFWD_LIST_COUNT);

struct WorkerSnapshot {
    PMDFWD_WORKER_COUNTERS(PMDFWD_LIST_U64)
    std::array<uint64_t, kDropReasonCount> drops{};
    std::array<uint64_t, kBurstBuckets> burst_hist{};

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

// Calls fn(a.x, b.x) for every counter x of two objects with the counter
// fields (snapshots or WorkerStats).
template <class A, class B, class Fn>
void for_each_counter(A& a, B& b, Fn&& fn) {
#define PMDFWD_WORKER_VISIT(name, unit, kind, help) fn(a.name, b.name);
    PMDFWD_WORKER_COUNTERS(PMDFWD_WORKER_VISIT)
#undef PMDFWD_WORKER_VISIT
    for (size_t i = 0; i < kDropReasonCount; ++i) fn(a.drops[i], b.drops[i]);
    for (size_t i = 0; i < kBurstBuckets; ++i) fn(a.burst_hist[i], b.burst_hist[i]);
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

#define PMDFWD_WORKER_COUNTER(name, unit, kind, help) Counter name;
    PMDFWD_WORKER_COUNTERS(PMDFWD_WORKER_COUNTER)
#undef PMDFWD_WORKER_COUNTER
    std::array<Counter, kDropReasonCount> drops;
    std::array<Counter, kBurstBuckets> burst_hist;

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

    // Reader side, any thread. Never waits long on the worker: a worker
    // preempted inside an update (on a busy host, for a whole time slice or
    // more) leaves the bracket open, and a reader that retried until it
    // closed would hold the control lock that pmdctl, scrapes and shutdown
    // share. Past kReadPatience it returns the newest consistent snapshot
    // any reader took instead: counters only grow, so that is what a read
    // a moment earlier would have seen, and no later read is ever smaller.
    WorkerSnapshot read() const;
    static constexpr std::chrono::microseconds kReadPatience{200};

    // Reads that ended on the last consistent snapshot instead.
    uint64_t stale_reads() const;

  private:
    std::atomic<uint64_t> seq_{0};
    // Readers only (never the worker): the newest consistent snapshot and
    // how often it was returned, on lines of their own.
    struct alignas(64) ReaderSide {
        std::mutex mutex;
        WorkerSnapshot last_consistent;
        uint64_t last_seq = 0;  // the bracket count it was taken at
        uint64_t stale_reads = 0;
    };
    mutable ReaderSide reader_;
};

}  // namespace pmdfwd
