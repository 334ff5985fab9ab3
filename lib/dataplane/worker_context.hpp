// A forwarding worker's context: everything its loop reads, laid out for
// the loop, and the counters only it writes. Built on the main lcore before
// launch; read-only after, but for the counters. No other core writes it;
// the stop flag it points to is written by the main lcore.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>

struct rte_ring;

#include "config.hpp"
#include "histogram.hpp"
#include "l2_header.hpp"
#include "l3_next_hop.hpp"
#include "link_state.hpp"
#include "loop_phase.hpp"
#include "loop_settings.hpp"
#include "observe.hpp"
#include "recycle_mempool.hpp"
#include "worker_stats.hpp"

namespace pmdfwd {

constexpr uint16_t kMaxBurst = 512;
constexpr unsigned kMaxWorkers = RTE_MAX_LCORE - 1;  // every lcore but the main one

// A TX queue a worker transmits on, and its port's link as the main lcore
// last saw it (null: not watched), read only to name a TX shortfall.
struct TxTarget {
    uint16_t port = 0;
    uint16_t queue = 0;
    const LinkCell* link = nullptr;
};

// A single-producer/single-consumer ring from one sender and the TX queue its
// bursts leave on.
struct HandoffIn {
    rte_ring* ring = nullptr;
    TxTarget to;
};

// The worker's sign of life, on a line of its own that only the worker
// writes and the main lcore reads (StallWatch): the TSC at its loop's last
// progress point (stored where the loop reads the TSC anyway) and the phase
// it is in (a byte store at each change).
struct alignas(64) Heartbeat {
    std::atomic<uint64_t> tsc{0};
    std::atomic<LoopPhase> phase{LoopPhase::idle};
    // The length of the last stall the worker counted, in TSC cycles.
    std::atomic<uint64_t> last_stall{0};
};

// A stall made on purpose, for the tests of the stall detector: compiled in
// only with PMDFWD_TEST_HOOKS (test/pmdfwd_hooks), from the environment
// (PMDFWD_TEST_STALL="worker:phase:after_ms:for_ms"). The fields exist in
// every build so the layout is one; nothing reads them in a release build.
struct TestStall {
    unsigned worker = UINT32_MAX;  // no stall
    LoopPhase phase = LoopPhase::forward;
    uint64_t at_tsc = 0;      // not before
    uint64_t for_cycles = 0;  // how long it spins
};

// Laid out by how often the loop reads a field, not by topic: everything a
// poll reads sits in the first two cache lines (one page), the arrays that
// are read only when their counts say so come last. Without hugepages every
// page a poll touches can cost a TLB miss.
struct alignas(64) WorkerContext {
    // Read-only after launch; read on every poll.
    const std::atomic<bool>* stop = nullptr;  // written once by the main lcore
    // The packet trace's and drop capture's switch, read once a burst
    // (written by the control side; observe.hpp).
    const ObserveSwitch* observe = &g_observe_off;
    rte_ring* handoff_out = nullptr;  // set: tx_queue belongs to another worker; hand off
    TxTarget tx;                      // its own TX queue (unused when it hands off)
    uint16_t rx_port = 0;
    uint16_t rx_queue = 0;
    uint16_t burst = 32;
    uint16_t tx_retries = 0;
    // Rx queues a PMD quirk added to rx_port (net_tap pairs them with TX
    // queues); the kernel may steer a flow to any of them, so they are
    // polled too, by the worker of the port's rx queue 0.
    uint16_t spare_rx_first = 0;
    uint16_t spare_rx_count = 0;
    unsigned handoff_in_count = 0;   // entries of handoff_in
    unsigned defer_flush_count = 0;  // entries of defer_flush
    // Longest frame the output port takes: mtu + Ethernet header + one VLAN
    // tag; longer ones are dropped as oversize before tx_burst or handoff.
    uint32_t tx_max_frame_bytes = UINT32_MAX;
    bool has_tx = false;
    // false ([forward] read_lengths, patch mode only): no frame is read, so
    // no bytes are counted and no oversize test is made.
    bool read_lengths = true;
    bool latency = true;  // keep the residence histogram
    ForwardMode mode = ForwardMode::patch;
    L2Header l2_header;
    // l3 mode: the router's tables, and the ring to the control path (this
    // worker the only producer).
    RouterView router;
    rte_ring* punt = nullptr;
    unsigned rcu_id = 0;  // its thread id in router.rcu
    // The rx port's MAC in the first 6 bytes (the rest 0), as an 8-byte load
    // of a frame's start holds its destination: the plain path's compare.
    uint64_t l3_own_mac = 0;
    // A plain IPv4 frame's first 16 bytes where they are fixed: the port's
    // MAC (0-5), EtherType and version with IHL (12-14); the rest 0. Set
    // with l3_own_mac by set_l3_own_mac.
    alignas(16) uint8_t l3_v4_head[16] = {};
    // And a plain IPv6 frame's: the MAC, EtherType 0x86dd and version 6 in
    // byte 14's upper half (the lower half, traffic class, masked off).
    alignas(16) uint8_t l3_v6_head[16] = {};
    // The rx port flags IPv4 header checksums (checksum offload): the plain
    // path tests the flag first. Without it, no packet is flagged and the
    // path sums every header without testing a flag that is never set.
    bool l3_rx_checksum = false;
    // The rx port has a kernel interface: link-scope multicast (224.0.0.0/24,
    // ff02::/16; the hellos of routing protocols) is the control path's.
    bool l3_kernel_groups = false;
    // Packets that earn an ICMP error reach the control path at most once
    // per icmp_interval_tsc, icmp_burst_tsc worth saved up (0: never).
    uint64_t icmp_interval_tsc = 0;
    uint64_t icmp_burst_tsc = 0;
    uint64_t idle_polls = UINT64_MAX;    // empty polls in a row before backing off (busy: never)
    uint64_t stall_cycles = UINT64_MAX;  // [control] stall_us in TSC cycles
    // Read-only after launch; read at start, stop and in the idle back-off.
    PollMode poll = PollMode::busy;
    uint32_t max_sleep_us = 0;  // adaptive: longest single sleep
    unsigned id = 0;
    unsigned lcore = 0;
    rte_mempool* pool = nullptr;  // its rx queue's pool
    bool pool_recycles = false;
    mutable TestStall test_stall;  // test hook builds: the worker disarms it
    // Written by the worker while its burst is observed (observe.hpp).
    ObserveMark* observe_mark = &g_observe_unused_mark;
    // What a reload changes of the fields above (loop_settings.hpp): the
    // worker copies a new version in at its next progress point.
    const LoopSettings* settings = nullptr;
    uint64_t settings_version = 0;
    // l3: when the next ICMP error punt is due (GCRA), IPv4's and IPv6's.
    mutable uint64_t icmp_tat[2] = {};

    // Written only by the worker (mutable: the loop's helpers take the
    // context const, and mark their phase on it).
    mutable Heartbeat beat;
    WorkerStats stats;
    // Its thread, once it runs, so the control plane can read the thread's
    // CPU time (the real cost of sleeping and waking).
    pthread_t thread{};
    std::atomic<bool> thread_known{false};
    // Per packet received: the time from its rx burst to the end of that
    // burst's transmit, in TSC cycles.
    alignas(64) Histogram residence;

    // l3 mode, read-only after launch: its own TX queue on each port (by
    // config port index) and the longest frame it sends there, untagged
    // (max_routed_frame_bytes: the route's check takes a tag off first).
    TxTarget l3_tx[kMaxPorts];
    uint32_t l3_max_frame[kMaxPorts] = {};

    // Read-only after launch; read only when their counts are not zero.
    HandoffIn handoff_in[kMaxWorkers];  // bursts other workers hand to this one
    // Recycle pools of other workers: frees of their mbufs on this lcore are
    // pushed back to them at the end of every loop iteration.
    DeferFlush defer_flush[kMaxWorkers];
};

// Marks the phase the loop enters; in a build with test hooks, also where a
// test's stall happens.
void test_stall_point(const WorkerContext& w, LoopPhase p);
void load_test_stall(WorkerContext& w);  // from PMDFWD_TEST_STALL, at the worker's start
inline void enter_phase(const WorkerContext& w, LoopPhase p) {
    w.beat.phase.store(p, std::memory_order_relaxed);
#ifdef PMDFWD_TEST_HOOKS
    test_stall_point(w, p);
#endif
}

struct WorkerContextFree {
    void operator()(WorkerContext* w) const;
};
using WorkerContextPtr = std::unique_ptr<WorkerContext, WorkerContextFree>;

// A context in EAL memory on the lcore's NUMA socket (hugepage-backed when
// the EAL has hugepages), since the worker reads it on every poll and writes
// its counters; another socket's memory when that one has none left; null
// when there is none at all.
WorkerContextPtr make_worker_context(unsigned lcore);

}  // namespace pmdfwd
