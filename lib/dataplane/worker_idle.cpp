// Back-off for adaptive and interrupt workers (see worker_idle.hpp).
#include "worker_idle.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_pause.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

namespace pmdfwd {

namespace {

// An interrupt wait ends at least this often, so a stop request is seen.
constexpr int kInterruptWaitMs = 50;
// The wait after an event that brought no packet. net_tap's rx_burst reads
// its descriptor only once a process-wide counter has moved, which the PMD's
// signal handler bumps (a real-time signal, F_SETSIG, per packet, to the
// process: usually run by the main thread); the epoll event can wake the
// worker before that handler has run, and the packet is then invisible until
// the next wait ends: make that wait short.
constexpr int kRecheckWaitMs = 1;
// The default timer slack (50 us) would turn a 1 us sleep into ~55 us.
constexpr unsigned long kTimerSlackNs = 1000;

// The queues a worker receives on: its own, then the quirk-added spares.
template <class Fn>
void for_each_rx_queue(const WorkerContext& w, Fn&& fn) {
    fn(w.rx_queue);
    for (uint16_t q = w.spare_rx_first; q < w.spare_rx_first + w.spare_rx_count; ++q) fn(q);
}

// False when a queue's interrupt cannot be enabled. net_tap has no
// enable/disable (-ENOTSUP): its descriptor is always watched, and a stale
// event costs one extra poll.
bool set_interrupts(const WorkerContext& w, bool on) {
    bool ok = true;
    for_each_rx_queue(w, [&](uint16_t q) {
        const int rc = on ? rte_eth_dev_rx_intr_enable(w.rx_port, q)
                          : rte_eth_dev_rx_intr_disable(w.rx_port, q);
        ok = ok && (rc == 0 || rc == -ENOTSUP);
    });
    return ok;
}

void join_epoll(const WorkerContext& w, uint16_t q, int op) {
    rte_eth_dev_rx_intr_ctl_q(w.rx_port, q, RTE_EPOLL_PER_THREAD, op, nullptr);
}

uint64_t sleep_adaptive(const WorkerContext& w, IdleState& s) {
    s.sleep_us = s.sleep_us ? std::min(s.sleep_us * 2, w.max_sleep_us) : 1;
    const timespec ts{time_t(s.sleep_us / 1000000), long(s.sleep_us % 1000000) * 1000};
    nanosleep(&ts, nullptr);
    return rte_rdtsc();
}

// Returns the number of events (0: the wait timed out).
int wait_interrupt(int timeout_ms) {
    rte_epoll_event events[8];
    return rte_epoll_wait(RTE_EPOLL_PER_THREAD, events, 8, timeout_ms);
}

}  // namespace

bool idle_start(WorkerContext& w, IdleState& s) {
    if (w.poll == PollMode::busy) return true;
    prctl(PR_SET_TIMERSLACK, kTimerSlackNs, 0, 0, 0);
    if (w.poll != PollMode::interrupt) return true;
    bool ok = true;
    uint16_t joined = 0;
    for_each_rx_queue(w, [&](uint16_t q) {
        if (!ok) return;
        const int rc = rte_eth_dev_rx_intr_ctl_q(w.rx_port, q, RTE_EPOLL_PER_THREAD,
                                                 RTE_INTR_EVENT_ADD, nullptr);
        if (rc == 0) {
            ++joined;
            return;
        }
        spdlog::error(
            "worker {}: cannot wait on rx interrupts of port {} rxq {} ({}); it backs "
            "off as poll = \"adaptive\" instead",
            w.id, w.rx_port, q, rc);
        ok = false;
    });
    if (!ok) {  // leave the thread's epoll set as it was: the first `joined` queues
        uint16_t i = 0;
        for_each_rx_queue(w, [&](uint16_t q) {
            if (i++ < joined) join_epoll(w, q, RTE_INTR_EVENT_DEL);
        });
    }
    s.interrupts = ok;
    return ok;
}

void idle_stop(WorkerContext& w, IdleState& s) {
    if (!s.interrupts) return;
    if (s.enabled) set_interrupts(w, false);
    s.enabled = s.rearmed = false;
    for_each_rx_queue(w, [&](uint16_t q) { join_epoll(w, q, RTE_INTR_EVENT_DEL); });
    s.interrupts = false;
}

uint64_t idle_back_off(WorkerContext& w, IdleState& s, WorkerSnapshot& pending, uint64_t now) {
    if (s.interrupts) {
        // A packet that came between the last poll and arming raised no
        // event: poll once more with interrupts armed, then wait. Armed
        // again before every wait, as l3fwd-power does: some devices mask a
        // queue's interrupt once it fires.
        if (!s.rearmed) {
            if (!set_interrupts(w, true)) {
                spdlog::error(
                    "worker {}: rx_intr_enable failed on port {}; it backs off as "
                    "poll = \"adaptive\" from now on",
                    w.id, w.rx_port);
                s.enabled = true;  // some queues may be: idle_stop disables them
                idle_stop(w, s);
                return rte_rdtsc();
            }
            s.enabled = s.rearmed = true;
            return rte_rdtsc();  // the arming is idle time, not the next poll's
        }
        w.stats.publish_and_clear(pending);
        enter_phase(w, LoopPhase::sleep);
        const int events = wait_interrupt(s.recheck ? kRecheckWaitMs : kInterruptWaitMs);
        const uint64_t after = rte_rdtsc();
        w.beat.tsc.store(after, std::memory_order_relaxed);
        s.recheck = events > 0;  // cleared by idle_leave when the packet shows
        s.rearmed = false;
        pending.sleep_tsc += after - now;
        pending.wakeups++;
        return after;
    }
    // Adaptive: a stretch of pauses first (a cheaper spin, and the sibling
    // hyperthread runs), then sleeps that double up to max_sleep_us.
    if (s.empty_run - w.idle_polls < w.idle_polls) {
        rte_pause();
        return rte_rdtsc();
    }
    w.stats.publish_and_clear(pending);
    enter_phase(w, LoopPhase::sleep);
    const uint64_t after = sleep_adaptive(w, s);
    w.beat.tsc.store(after, std::memory_order_relaxed);
    pending.sleep_tsc += after - now;
    pending.wakeups++;
    return after;
}

void idle_leave(WorkerContext& w, IdleState& s) {
    if (s.enabled) set_interrupts(w, false);
    s.enabled = s.rearmed = s.recheck = false;
    s.sleep_us = 0;
}

}  // namespace pmdfwd
