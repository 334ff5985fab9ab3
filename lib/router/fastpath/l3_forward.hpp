// Router mode's burst path for one worker: classify each frame, look the
// destinations up in bulk, rewrite and send on the route's port, hand what
// is the control path's (ARP, ND, to us, waiting for a neighbour) to it over
// the worker's punt ring, and drop the rest by reason. Runs on worker lcores.
// Contract: every mbuf handed in is transmitted, punted, or freed and counted.
#pragma once

#include <rte_mbuf.h>

#include <cstring>

#include "forward.hpp"
#include "router_counters.hpp"
#include "trace_ring.hpp"

namespace pmdfwd {

// Why a packet went to the control path (PuntReason, router_counters.hpp)
// travels in its mbuf's hash.usr: the worker owns the mbuf after rx, and no
// device reads the field on transmit.

// The frame's destination MAC as the plain path compares it (l3_own_mac).
inline uint64_t own_mac_key(const uint8_t* mac) {
    uint64_t k = 0;
    std::memcpy(&k, mac, 6);
    return k;
}

// The rx port's MAC as the plain paths compare it: l3_own_mac, and the
// first 16 bytes of a plain IPv4 and IPv6 frame to it (l3_v4_head,
// l3_v6_head).
void set_l3_own_mac(WorkerContext& w, const uint8_t* mac);

void route_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, BurstOutcome& out);

// For the packet trace: adds what the burst would make of m (classified,
// and looked_up for a routed one) to r, reading the same tables; punt is
// the reason it would go to the control path if it went there. The packet
// is left as it was.
void explain_route(const WorkerContext& w, const rte_mbuf* m, TraceRecord& r, PuntReason& punt);

// A routed packet as it leaves, on a worker or, once its neighbour answered,
// on the control path: TTL or hop limit down by one (the caller has seen it
// above 1), a VLAN tag taken off (routed ports are untagged), the 12 bytes
// of destination and source MAC written.
void rewrite_routed(rte_mbuf* m, uint16_t l3_offset, bool ipv4, const uint8_t* dst_src);

// The worker's share of [l3] icmp_rate_limit, for each family: `burst`
// packets at once after a quiet spell, then `rate` a second (rate 0: none).
inline void set_icmp_budget(WorkerContext& w, uint32_t rate, uint32_t burst, uint64_t tsc_hz) {
    w.icmp_interval_tsc = rate ? tsc_hz / rate : 0;
    // GCRA passes a packet while its due time is at most this far ahead:
    // burst - 1 intervals, the packet itself making the burst-th.
    w.icmp_burst_tsc = w.icmp_interval_tsc * (burst ? burst - 1 : 0);
}

}  // namespace pmdfwd
