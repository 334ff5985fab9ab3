// The poll loop (see worker.hpp). Runs on a worker lcore: no locks, no heap,
// no syscalls, no logging, except in the idle back-off of the adaptive and
// interrupt poll modes (worker_idle.cpp). Each iteration: transmit what other workers
// handed over, receive and forward a burst, push deferred frees back to their
// owners. Counters accumulate in locals and are published to WorkerStats in
// one seqlock-bracketed update every kPublishEveryBursts busy polls, on the
// first empty poll after traffic, every kPublishEveryIdlePolls idle polls, and
// at stop.
#include "worker.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>

#include "forward_burst.hpp"
#include "netlog_sink.hpp"
#include "observe_burst.hpp"
#include "worker_idle.hpp"

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

// What the bursts since the last publish did (`sums`) goes into the counts
// just before they are published, and `sums` starts again from zero.
void fold(PendingCounts& p, BurstOutcome& sums) {
    p.rx_bytes += sums.rx_bytes;
    p.tx_pkts += sums.tx_pkts;
    p.tx_bytes += sums.tx_bytes;
    p.handoff_out += sums.handoff_out;
    p.handoff_in += sums.handoff_in;
    p.punted += sums.punted;
    p.icmp_errors_gated += sums.icmp_errors_gated;
    p.icmp_errors_punt_full += sums.icmp_errors_punt_full;
    for (size_t i = 0; i < kDropReasonCount; ++i) p.drops[i] += sums.drops[i];
    sums = BurstOutcome{};
}

// A progress point: the loop read the TSC (`now`) after `prev`. The gap
// between two is a stall when it is longer than stall_us; the heartbeat
// tells the main lcore the loop moves.
inline void progress(const WorkerContext& w, PendingCounts& p, uint64_t prev, uint64_t now) {
    if (unlikely(now - prev > w.stall_cycles)) {
        p.stalls++;
        p.stall_tsc += now - prev;
        w.beat.last_stall.store(now - prev, std::memory_order_relaxed);
    }
    w.beat.tsc.store(now, std::memory_order_relaxed);
}

// A reload published new loop settings: copy them into the context.
__attribute__((noinline)) void take_settings(WorkerContext& w) {
    LoopValues v;
    if (!w.settings->read(v, w.settings_version)) return;
    w.idle_polls = w.poll == PollMode::adaptive    ? v.idle_polls_adaptive
                   : w.poll == PollMode::interrupt ? v.idle_polls_interrupt
                                                   : UINT64_MAX;
    w.max_sleep_us = v.max_sleep_us;
    w.stall_cycles = v.stall_cycles;
    w.icmp_interval_tsc = v.icmp_interval_tsc;
    w.icmp_burst_tsc = v.icmp_burst_tsc;
}

// At a progress point: one load of a line that only a reload writes.
inline void adopt_settings(WorkerContext& w) {
    if (unlikely(w.settings != nullptr && w.settings->version() != w.settings_version))
        take_settings(w);
}

// One received burst (from rx queue `queue`): forward it and count it.
// While nobody traces or captures, the switch costs a load and a branch
// not taken. Inlined into the loop (the observed path's call would make
// GCC keep it apart: 1.2 instructions a packet, callgrind).
template <ForwardMode kMode>
__attribute__((always_inline)) inline void handle_burst(const WorkerContext& w, PendingCounts& p,
                                                        BurstOutcome& sums, rte_mbuf** pkts,
                                                        uint16_t n, uint16_t queue) {
    enter_phase(w, LoopPhase::forward);
    if (unlikely(w.observe->on.load(std::memory_order_relaxed) != 0))
        observed_burst<kMode>(w, pkts, n, queue, sums);
    else if constexpr (kMode == ForwardMode::l2)
        forward_burst_outlined<kMode>(w, pkts, n, sums);  // inline, 0.6 a packet more
    else
        forward_burst<kMode>(w, pkts, n, sums);
    p.rx_pkts += n;
    p.burst_hist[burst_bucket(n)]++;
    p.full_bursts += n == w.burst;
}

// The quirk-added rx queues of the worker's port: rarely any, so out of line.
template <ForwardMode kMode>
uint64_t poll_spare_rx(const WorkerContext& w, PendingCounts& p, BurstOutcome& sums,
                       rte_mbuf** pkts) {
    uint64_t got = 0;
    for (uint16_t q = w.spare_rx_first; q < w.spare_rx_first + w.spare_rx_count; ++q) {
        enter_phase(w, LoopPhase::rx);
        const uint16_t n = rte_eth_rx_burst(w.rx_port, q, pkts, w.burst);
        if (n == 0) continue;
        handle_burst<kMode>(w, p, sums, pkts, n, q);
        got += n;
    }
    return got;
}

// Frees of other workers' recycle mbufs made on this lcore during the
// iteration (by tx_burst or by drops) go back to their owners now.
void flush_deferred_frees(const WorkerContext& w) {
    for (unsigned i = 0; i < w.defer_flush_count; ++i) flush_deferred(w.defer_flush[i]);
}

// Without the residence histogram the TSC is read on every empty poll (idle:
// nothing to save) and once per kPublishEveryBursts busy polls, not on every
// poll: a read costs ~10 ns in a VM guest, a fifth of a 32-packet burst's
// budget at full rate. A stretch of busy polls ending in an empty one is then
// counted as busy, so busy_tsc includes at most one empty poll per idle
// transition. With the histogram (kLatency) it is read once per poll, busy or
// not, and that one read both ends the burst's residence time and starts the
// next poll's.
template <ForwardMode kMode, bool kLatency>
void poll_loop(WorkerContext& w) {
    rte_mbuf* pkts[kMaxBurst];
    PendingCounts p;
    BurstOutcome sums;  // folded into p before every publish
    IdleState idle;
    idle_start(w, idle);
    unsigned busy_since_tsc = 0;  // busy polls not yet in busy_tsc (kLatency: always 0)
    unsigned busy_since_publish = 0;
    unsigned idle_since_publish = 0;
    uint64_t prev_tsc = rte_rdtsc();
    w.beat.tsc.store(prev_tsc, std::memory_order_relaxed);
    if constexpr (kMode == ForwardMode::l3) rte_rcu_qsbr_thread_online(w.router.rcu, w.rcu_id);
    while (!w.stop->load(std::memory_order_relaxed)) {
        // Between two iterations it holds no next hop: a removed one may go
        // once every worker has been here (a store to its own line).
        if constexpr (kMode == ForwardMode::l3) rte_rcu_qsbr_quiescent(w.router.rcu, w.rcu_id);
        // Bursts handed over by other workers go first: they have waited
        // longest. Any packet handled before the main rx_burst makes the poll
        // a busy one.
        uint64_t other_work = 0;
        if (w.handoff_in_count != 0) {
            enter_phase(w, LoopPhase::handoff);
            other_work = transmit_handoffs(w, pkts, sums);
        }
        uint64_t received = 0;
        if (unlikely(w.spare_rx_count != 0)) received = poll_spare_rx<kMode>(w, p, sums, pkts);
        enter_phase(w, LoopPhase::rx);
        const uint16_t n = rte_eth_rx_burst(w.rx_port, w.rx_queue, pkts, w.burst);
        received += n;
        if (received == 0 && other_work == 0) {
            enter_phase(w, LoopPhase::idle);
            flush_deferred_frees(w);
            const uint64_t now = rte_rdtsc();
            progress(w, p, prev_tsc, now);
            adopt_settings(w);
            (busy_since_tsc ? p.busy_tsc : p.idle_tsc) += now - prev_tsc;
            prev_tsc = now;
            busy_since_tsc = 0;
            p.polls++;
            p.empty_polls++;
            // Publish busy counts as soon as traffic pauses, so readers never
            // wait for the next burst; while idle, only every
            // kPublishEveryIdlePolls, so a reader is not starved by a writer
            // rewriting the counter lines every few nanoseconds.
            // Only a busy poll adds to sums, so after this fold they stay
            // zero through the idle back-off, which publishes too.
            if (p.polls != p.empty_polls || ++idle_since_publish == kPublishEveryIdlePolls) {
                fold(p, sums);
                w.stats.publish_and_clear(p);
                idle_since_publish = 0;
                busy_since_publish = 0;
            }
            if (unlikely(++idle.empty_run >= w.idle_polls))
                prev_tsc = idle_back_off(w, idle, p, now);
            continue;
        }
        if (unlikely(idle.empty_run >= w.idle_polls)) idle_leave(w, idle);
        idle.empty_run = 0;
        p.polls++;
        if (n != 0) handle_burst<kMode>(w, p, sums, pkts, n, w.rx_queue);
        flush_deferred_frees(w);
        if constexpr (kLatency) {
            const uint64_t now = rte_rdtsc();
            progress(w, p, prev_tsc, now);
            adopt_settings(w);
            if (received) w.residence.record(now - prev_tsc, received);
            p.busy_tsc += now - prev_tsc;
            prev_tsc = now;
        } else if (++busy_since_tsc == kPublishEveryBursts) {
            const uint64_t now = rte_rdtsc();
            progress(w, p, prev_tsc, now);
            adopt_settings(w);
            p.busy_tsc += now - prev_tsc;
            prev_tsc = now;
            busy_since_tsc = 0;
        }
        if (++busy_since_publish == kPublishEveryBursts) {
            busy_since_publish = 0;
            fold(p, sums);
            w.stats.publish_and_clear(p);
        }
    }
    flush_deferred_frees(w);
    if constexpr (kMode == ForwardMode::l3) rte_rcu_qsbr_thread_offline(w.router.rcu, w.rcu_id);
    idle_stop(w, idle);
    // What only this lcore can reach goes where the main lcore can: port
    // drains at shutdown allocate there.
    if (w.pool_recycles)
        recycle_owner_retire(w.pool);
    else if (w.pool)
        rte_mempool_cache_flush(nullptr, w.pool);
    const uint64_t now = rte_rdtsc();
    (busy_since_tsc ? p.busy_tsc : p.idle_tsc) += now - prev_tsc;
    fold(p, sums);
    w.stats.publish_and_clear(p);
}

template <ForwardMode kMode>
void run(WorkerContext& w) {
    if (w.latency)
        poll_loop<kMode, true>(w);
    else
        poll_loop<kMode, false>(w);
}

}  // namespace

int worker_main(void* arg) {
    auto& w = *static_cast<WorkerContext*>(arg);
    w.thread = pthread_self();
    w.thread_known.store(true, std::memory_order_release);
    netlog_protect_this_thread();  // a crash report even from an overflowed stack
    netlog_name_this_worker(w.id);
#ifdef PMDFWD_TEST_HOOKS
    load_test_stall(w);
#endif
    switch (w.mode) {
        case ForwardMode::l2:
            run<ForwardMode::l2>(w);
            break;
        case ForwardMode::l3:
            run<ForwardMode::l3>(w);
            break;
        case ForwardMode::patch:
            run<ForwardMode::patch>(w);
            break;
    }
    return 0;
}

}  // namespace pmdfwd
