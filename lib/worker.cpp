// The busy-poll loop (see worker.hpp). Runs on a worker lcore: no locks, no
// heap, no syscalls, no logging. Counters accumulate in locals and are
// published to WorkerStats in one seqlock-bracketed update every
// kPublishEveryBursts busy polls, on every empty poll, and at stop.
#include "worker.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "forward.hpp"

namespace pmdfwd {

namespace {

// 16 bursts of 32 are ~0.3 us of work at line rate: readers see counters at
// most that stale, and the ~15 counter stores are paid once per 512 packets.
constexpr unsigned kPublishEveryBursts = 16;
// An empty poll takes tens of ns: idle counters are at most ~50 us stale.
constexpr unsigned kPublishEveryIdlePolls = 1024;

// Counts since the last publish: locals of the loop, so no store leaves the
// core until WorkerStats::publish.
using PendingCounts = WorkerSnapshot;

void publish(WorkerStats& s, PendingCounts& p) {
    s.publish(p);
    p = PendingCounts{};
}

// The TSC is read on every empty poll (idle: nothing to save) and once per
// kPublishEveryBursts busy polls, not on every poll: a read costs ~10 ns in a
// VM guest, a fifth of a 32-packet burst's budget at full rate. A stretch of
// busy polls ending in an empty one is counted as busy, so busy_tsc includes
// at most one empty poll per idle transition.
template <ForwardMode kMode>
void poll_loop(WorkerContext& w) {
    rte_mbuf* pkts[kMaxBurst];
    PendingCounts p;
    unsigned busy_since_tsc = 0;
    unsigned idle_since_publish = 0;
    uint64_t prev_tsc = rte_rdtsc();
    while (!w.stop->load(std::memory_order_relaxed)) {
        const uint16_t n = rte_eth_rx_burst(w.rx_port, w.rx_queue, pkts, w.burst);
        if (n == 0) {
            const uint64_t now = rte_rdtsc();
            (busy_since_tsc ? p.busy_tsc : p.idle_tsc) += now - prev_tsc;
            prev_tsc = now;
            busy_since_tsc = 0;
            p.polls++;
            p.empty_polls++;
            // Publish busy counts as soon as traffic pauses, so readers never
            // wait for the next burst; while idle, only every
            // kPublishEveryIdlePolls, so a reader is not starved by a writer
            // rewriting the counter lines every few nanoseconds.
            if (p.rx_pkts != 0 || ++idle_since_publish == kPublishEveryIdlePolls) {
                publish(w.stats, p);
                idle_since_publish = 0;
            }
            continue;
        }
        const BurstOutcome out = forward_burst<kMode>(w, pkts, n);
        p.polls++;
        p.rx_pkts += n;
        p.rx_bytes += out.rx_bytes;
        p.tx_pkts += out.tx_pkts;
        p.tx_bytes += out.tx_bytes;
        for (size_t i = 0; i < kDropReasonCount; ++i) p.drops[i] += out.drops[i];
        p.burst_hist[burst_bucket(n)]++;
        p.full_bursts += n == w.burst;
        if (++busy_since_tsc == kPublishEveryBursts) {
            const uint64_t now = rte_rdtsc();
            p.busy_tsc += now - prev_tsc;
            prev_tsc = now;
            busy_since_tsc = 0;
            publish(w.stats, p);
        }
    }
    const uint64_t now = rte_rdtsc();
    (busy_since_tsc ? p.busy_tsc : p.idle_tsc) += now - prev_tsc;
    publish(w.stats, p);
}

}  // namespace

int worker_main(void* arg) {
    auto& w = *static_cast<WorkerContext*>(arg);
    if (w.mode == ForwardMode::l2)
        poll_loop<ForwardMode::l2>(w);
    else
        poll_loop<ForwardMode::patch>(w);
    return 0;
}

}  // namespace pmdfwd
