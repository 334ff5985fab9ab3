// Burst forwarding (see forward.hpp). Runs on worker lcores; drops are
// tx_full, no_route and runt, counted by the caller from BurstOutcome.
#include "forward.hpp"

#include <rte_ethdev.h>
#include <rte_prefetch.h>

namespace pmdfwd {

namespace {

constexpr size_t idx(DropReason r) { return static_cast<size_t>(r); }

// Drops runts (freed, counted) and writes the 12-byte MAC header into the
// rest, compacting kept packets to the front. Returns how many were kept.
uint16_t rewrite_l2(const L2Header& hdr, rte_mbuf** pkts, uint16_t n, BurstOutcome& out) {
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; ++i) {
        rte_mbuf* m = pkts[i];
        if (unlikely(rte_pktmbuf_data_len(m) < kEtherHeaderLen)) {
            out.drops[idx(DropReason::runt)]++;
            out.tx_bytes -= rte_pktmbuf_pkt_len(m);
            rte_pktmbuf_free(m);
            continue;
        }
        hdr.apply(rte_pktmbuf_mtod(m, uint8_t*));
        pkts[kept++] = m;
    }
    return kept;
}

}  // namespace

template <ForwardMode kMode>
BurstOutcome forward_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n) {
    BurstOutcome out;
    // One pass over the mbuf headers the PMD just wrote: count bytes and, in
    // l2 mode, start pulling in the frame data we are about to write.
    for (uint16_t i = 0; i < n; ++i) {
        out.rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
        if constexpr (kMode == ForwardMode::l2) rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    }
    if (unlikely(!w.has_tx)) {
        rte_pktmbuf_free_bulk(pkts, n);
        out.drops[idx(DropReason::no_route)] = n;
        return out;
    }
    out.tx_bytes = out.rx_bytes;
    uint16_t to_send = n;
    if constexpr (kMode == ForwardMode::l2) to_send = rewrite_l2(w.l2_header, pkts, n, out);

    uint16_t sent = rte_eth_tx_burst(w.tx_port, w.tx_queue, pkts, to_send);
    for (uint16_t retry = 0; sent < to_send && retry < w.tx_retries; ++retry)
        sent += rte_eth_tx_burst(w.tx_port, w.tx_queue, pkts + sent, uint16_t(to_send - sent));
    if (unlikely(sent < to_send)) {
        for (uint16_t i = sent; i < to_send; ++i) out.tx_bytes -= rte_pktmbuf_pkt_len(pkts[i]);
        rte_pktmbuf_free_bulk(pkts + sent, unsigned(to_send - sent));
        out.drops[idx(DropReason::tx_full)] = to_send - sent;
    }
    out.tx_pkts = sent;
    return out;
}

template BurstOutcome forward_burst<ForwardMode::patch>(const WorkerContext&, rte_mbuf**, uint16_t);
template BurstOutcome forward_burst<ForwardMode::l2>(const WorkerContext&, rte_mbuf**, uint16_t);

}  // namespace pmdfwd
