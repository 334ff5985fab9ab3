// Burst forwarding's out-of-line parts (see forward.hpp and
// forward_burst.hpp). Runs on worker lcores; drops are tx_full, link_down,
// handoff_full, no_route, runt and oversize, counted by the caller from
// BurstOutcome.
#include "forward.hpp"

#include <rte_ethdev.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <cstring>

#include "forward_burst.hpp"

namespace pmdfwd {

// Out of line: only a burst whose pass found an oversize frame comes here.
uint16_t forward_detail::drop_oversize(rte_mbuf** pkts, uint16_t n, uint32_t max_frame_bytes,
                                       PassBytes& bytes, BurstOutcome& out) {
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; ++i) {
        rte_mbuf* m = pkts[i];
        if (rte_pktmbuf_pkt_len(m) <= max_frame_bytes) {
            pkts[kept++] = m;
            continue;
        }
        bytes.kept -= rte_pktmbuf_pkt_len(m);
        out.drops[drop_index(DropReason::oversize)]++;
        note_drop(out, m, DropReason::oversize);
        rte_pktmbuf_free(m);
    }
    return kept;
}

uint64_t sum_pkt_len(rte_mbuf* const* pkts, uint16_t n) {
    uint64_t bytes = 0;
#pragma GCC unroll 4
    for (uint16_t i = 0; i < n; ++i) bytes += rte_pktmbuf_pkt_len(pkts[i]);
    return bytes;
}

// transmit_rest (see forward.hpp): link_down while the main lcore sees the
// port's link down (a deleted interface fails every send), tx_full
// otherwise.
uint16_t transmit_rest(const TxTarget& to, uint16_t retries, rte_mbuf** pkts, uint16_t n,
                       uint16_t sent, BurstOutcome& out, bool bytes_counted) {
    for (uint16_t retry = 0; sent < n && retry < retries; ++retry)
        sent += rte_eth_tx_burst(to.port, to.queue, pkts + sent, uint16_t(n - sent));
    if (unlikely(sent < n)) {
        if (bytes_counted) out.tx_bytes -= sum_pkt_len(pkts + sent, uint16_t(n - sent));
        const bool link_down = to.link && to.link->load(std::memory_order_relaxed) != LinkState::up;
        const DropReason why = link_down ? DropReason::link_down : DropReason::tx_full;
        note_drops(out, pkts + sent, uint16_t(n - sent), why);
        rte_pktmbuf_free_bulk(pkts + sent, unsigned(n - sent));
        out.drops[drop_index(why)] += n - sent;
    }
    out.tx_pkts += sent;
    return sent;
}

uint64_t transmit_handoffs(const WorkerContext& w, rte_mbuf** scratch, BurstOutcome& out) {
    uint64_t taken = 0;
    for (unsigned i = 0; i < w.handoff_in_count; ++i) {
        const HandoffIn& h = w.handoff_in[i];
        const auto n = uint16_t(
            rte_ring_sc_dequeue_burst(h.ring, reinterpret_cast<void**>(scratch), w.burst, nullptr));
        if (n == 0) continue;
        // The headers were last written on the sender's core: ask for all of
        // them at once rather than missing on each in turn.
        for (uint16_t k = 0; k < n; ++k) rte_prefetch0(scratch[k]);
        taken += n;
        if (w.read_lengths) out.tx_bytes += sum_pkt_len(scratch, n);
        transmit(h.to, w.tx_retries, scratch, n, out, w.read_lengths);
    }
    out.handoff_in += taken;
    return taken;
}

template <ForwardMode kMode>
void forward_burst_outlined(const WorkerContext& w, rte_mbuf** pkts, uint16_t n,
                            BurstOutcome& out) {
    forward_burst<kMode>(w, pkts, n, out);
}

template void forward_burst_outlined<ForwardMode::patch>(const WorkerContext&, rte_mbuf**, uint16_t,
                                                         BurstOutcome&);
template void forward_burst_outlined<ForwardMode::l2>(const WorkerContext&, rte_mbuf**, uint16_t,
                                                      BurstOutcome&);
template void forward_burst_outlined<ForwardMode::l3>(const WorkerContext&, rte_mbuf**, uint16_t,
                                                      BurstOutcome&);

}  // namespace pmdfwd
