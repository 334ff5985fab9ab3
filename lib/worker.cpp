// The busy-poll loop (see worker.hpp). Runs on a worker lcore: no locks, no
// heap, no syscalls, no logging; counters published once per poll.
#include "worker.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "forward.hpp"

namespace pmdfwd {

namespace {

template <ForwardMode kMode>
void poll_loop(WorkerContext& w) {
    rte_mbuf* pkts[kMaxBurst];
    WorkerStats& s = w.stats;
    uint64_t prev_tsc = rte_rdtsc();
    while (!w.stop->load(std::memory_order_relaxed)) {
        const uint16_t n = rte_eth_rx_burst(w.rx_port, w.rx_queue, pkts, w.burst);
        if (n == 0) {
            const uint64_t now = rte_rdtsc();
            s.begin_update();
            s.polls.add(1);
            s.empty_polls.add(1);
            s.idle_tsc.add(now - prev_tsc);
            s.end_update();
            prev_tsc = now;
            continue;
        }
        const BurstOutcome out = forward_burst<kMode>(w, pkts, n);
        const uint64_t now = rte_rdtsc();
        s.begin_update();
        s.polls.add(1);
        s.busy_tsc.add(now - prev_tsc);
        s.rx_pkts.add(n);
        s.rx_bytes.add(out.rx_bytes);
        s.tx_pkts.add(out.tx_pkts);
        s.tx_bytes.add(out.tx_bytes);
        for (size_t i = 0; i < kDropReasonCount; ++i)
            if (out.drops[i]) s.drops[i].add(out.drops[i]);
        s.burst_hist[burst_bucket(n)].add(1);
        if (n == w.burst) s.full_bursts.add(1);
        s.end_update();
        prev_tsc = now;
    }
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
