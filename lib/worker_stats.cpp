// Seqlock reader and snapshot arithmetic for WorkerStats.
#include "worker_stats.hpp"

#include <immintrin.h>

namespace pmdfwd {

WorkerSnapshot WorkerSnapshot::minus(const WorkerSnapshot& b) const {
    WorkerSnapshot d = *this;
    d.rx_pkts -= b.rx_pkts;
    d.rx_bytes -= b.rx_bytes;
    d.tx_pkts -= b.tx_pkts;
    d.tx_bytes -= b.tx_bytes;
    d.polls -= b.polls;
    d.empty_polls -= b.empty_polls;
    d.busy_tsc -= b.busy_tsc;
    d.idle_tsc -= b.idle_tsc;
    for (size_t i = 0; i < d.drops.size(); ++i) d.drops[i] -= b.drops[i];
    for (size_t i = 0; i < d.burst_hist.size(); ++i) d.burst_hist[i] -= b.burst_hist[i];
    d.full_bursts -= b.full_bursts;
    return d;  // in_flight is a level, not a counter: kept as is
}

WorkerSnapshot WorkerStats::read() const {
    WorkerSnapshot s;
    for (;;) {
        const uint64_t before = seq_.load(std::memory_order_acquire);
        if (before & 1) {
            _mm_pause();
            continue;
        }
        s.rx_pkts = rx_pkts.get();
        s.rx_bytes = rx_bytes.get();
        s.tx_pkts = tx_pkts.get();
        s.tx_bytes = tx_bytes.get();
        s.polls = polls.get();
        s.empty_polls = empty_polls.get();
        s.busy_tsc = busy_tsc.get();
        s.idle_tsc = idle_tsc.get();
        s.in_flight = in_flight.get();
        for (size_t i = 0; i < s.drops.size(); ++i) s.drops[i] = drops[i].get();
        for (size_t i = 0; i < s.burst_hist.size(); ++i) s.burst_hist[i] = burst_hist[i].get();
        s.full_bursts = full_bursts.get();
        std::atomic_thread_fence(std::memory_order_acquire);
        if (seq_.load(std::memory_order_relaxed) == before) return s;
    }
}

}  // namespace pmdfwd
