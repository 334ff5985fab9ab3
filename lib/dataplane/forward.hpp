// Burst forwarding for one worker: takes a received burst, rewrites it (l2),
// transmits it on the worker's own TX queue or hands it to the queue's owner,
// and frees whatever it cannot pass on. The owner side drains handoff rings.
// Contract: every mbuf handed in is transmitted, handed off, or freed and counted.
#pragma once

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <array>

#include "worker_context.hpp"

namespace pmdfwd {

// Frames this many packets ahead are prefetched while the current one is
// rewritten: enough to cover a memory access at one packet per ~20 ns, few
// enough that the lines are still in L1 when their turn comes (l3fwd uses 3).
// The l2 and l3 burst loops both use it.
constexpr uint16_t kPrefetchAhead = 4;

// What bursts did, added up: every function below adds to it, so that the
// poll loop can sum many bursts before it folds them into its counters
// (zeroing and folding it per burst cost more than a burst's own counting).
struct BurstOutcome {
    uint64_t rx_bytes = 0;
    uint64_t tx_pkts = 0;
    uint64_t tx_bytes = 0;
    uint64_t handoff_out = 0;
    uint64_t handoff_in = 0;
    uint64_t punted = 0;  // l3: handed to the control path
    // l3: drops whose ICMP error the worker's gate or the full punt ring
    // suppressed (counted here, since the control path never sees them).
    uint64_t icmp_errors_gated = 0;
    uint64_t icmp_errors_punt_full = 0;
    std::array<uint64_t, kDropReasonCount> drops{};
    // Set only while the drop capture observes the burst: every drop site
    // hands its packets to note_drops before it frees them.
    const DropTap* tap = nullptr;
};

// Copies what the capture asks for of packets about to be dropped
// (observe_burst.cpp): a rate-gated, counted memcpy each, no mbuf kept.
// One packet is passed by value: taking a local's address would give the
// burst functions a stack frame (6 instructions a packet, callgrind).
void capture_drops(const DropTap& tap, rte_mbuf* const* pkts, uint16_t n, DropReason why);
void capture_drop(const DropTap& tap, const rte_mbuf* m, DropReason why);
void capture_drop_and_free(const DropTap& tap, rte_mbuf* m, DropReason why);
inline void note_drops(const BurstOutcome& out, rte_mbuf* const* pkts, uint16_t n, DropReason why) {
    if (unlikely(out.tap != nullptr)) capture_drops(*out.tap, pkts, n, why);
}
inline void note_drop(const BurstOutcome& out, const rte_mbuf* m, DropReason why) {
    if (unlikely(out.tap != nullptr)) capture_drop(*out.tap, m, why);
}

// forward_burst, the burst path of each mode, is inline in the poll loop
// (forward_burst.hpp); this is it out of line, for the paths beside the
// loop (the packet trace's), which need no copy of it.
template <ForwardMode kMode>
void forward_burst_outlined(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, BurstOutcome& out);

// What a first tx_burst left (it sent `sent` of n): up to `retries` more
// calls, then what is left is freed and counted (link_down or tx_full), its
// bytes taken back out of tx_bytes when the caller counted them
// (`bytes_counted`). Returns how many were sent in all.
uint16_t transmit_rest(const TxTarget& to, uint16_t retries, rte_mbuf** pkts, uint16_t n,
                       uint16_t sent, BurstOutcome& out, bool bytes_counted);

// Transmits, retrying and then dropping what the queue does not take
// (transmit_rest). Inline: a burst the queue takes whole costs the call of
// tx_burst and a compare, where a call of its own cost 1.7 instructions a
// packet of patch mode's 12 (callgrind).
inline uint16_t transmit(const TxTarget& to, uint16_t retries, rte_mbuf** pkts, uint16_t n,
                         BurstOutcome& out, bool bytes_counted = true) {
    const uint16_t sent = rte_eth_tx_burst(to.port, to.queue, pkts, n);
    if (unlikely(sent != n)) return transmit_rest(to, retries, pkts, n, sent, out, bytes_counted);
    out.tx_pkts += n;
    return n;
}
uint64_t sum_pkt_len(rte_mbuf* const* pkts, uint16_t n);

// Takes up to one burst from each handoff ring and transmits it; `scratch`
// holds kMaxBurst pointers. Returns the packets taken (also added to
// handoff_in).
uint64_t transmit_handoffs(const WorkerContext& w, rte_mbuf** scratch, BurstOutcome& out);

}  // namespace pmdfwd
