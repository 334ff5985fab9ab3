// Burst forwarding (see forward.hpp). Runs on worker lcores; drops are
// tx_full, link_down, handoff_full, no_route, runt and oversize, counted by
// the caller from BurstOutcome.
#include "forward.hpp"

#include <rte_ethdev.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <cstring>

#include "l3_forward.hpp"

namespace pmdfwd {

namespace {

// The oversize test of the burst loops, exact and branch-free: pkt_len +
// oversize_bias(limit) has bit 63 set exactly when pkt_len > limit, so the
// loops OR those sums into one word (an add and an or per packet) and test
// bit 63 once per burst. A running max costs GCC three instructions (it
// moves the lengths through an SSE register for pmaxud); ORing the lengths
// alone is one, but is not exact: 60 | 1514 exceeds 1518, so a burst of TCP
// data and ACKs would be scanned every time.
constexpr uint64_t kOversizeBit = uint64_t(1) << 63;
constexpr uint64_t oversize_bias(uint32_t max_frame_bytes) {
    return kOversizeBit - 1 - max_frame_bytes;
}

// The bytes a pass read, and those of the frames it kept.
struct PassBytes {
    uint64_t rx = 0;
    uint64_t kept = 0;
};

// The frames of pkts longer than max_frame_bytes are freed and counted as
// oversize; the rest are compacted to the front. Only for a burst the test
// above caught.
uint16_t drop_oversize(rte_mbuf** pkts, uint16_t n, uint32_t max_frame_bytes, PassBytes& bytes,
                       BurstOutcome& out) {
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

// Patch mode's one pass: bytes counted, oversize frames found.
uint16_t pass_through(uint32_t max_frame_bytes, rte_mbuf** pkts, uint16_t n, PassBytes& bytes,
                      BurstOutcome& out) {
    const uint64_t bias = oversize_bias(max_frame_bytes);
    uint64_t sum = 0, over = 0;
#pragma GCC unroll 4
    for (uint16_t i = 0; i < n; ++i) {
        const uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);
        sum += len;
        over |= len + bias;
    }
    bytes.rx = bytes.kept = sum;
    if (likely(!(over & kOversizeBit))) return n;
    return drop_oversize(pkts, n, max_frame_bytes, bytes, out);
}

// One pass: counts bytes, drops runts (freed, counted), writes the 12-byte
// MAC header into the rest, and looks for oversize frames (see
// oversize_bias); a burst holding one then loses it to drop_oversize (its
// header written in vain, a rare case's cost). The header lives in registers and the
// counts in locals, because the frame stores could alias anything reached
// through a pointer and force reloads. Until the first runt nothing moves in
// pkts; from there the rest are compacted to the front.
uint16_t rewrite_l2(const L2Header& hdr, uint32_t max_frame_bytes, rte_mbuf** pkts, uint16_t n,
                    PassBytes& bytes, BurstOutcome& out) {
    uint64_t dst_src_lo;
    uint32_t dst_src_hi;
    std::memcpy(&dst_src_lo, hdr.dst_src.data(), 8);
    std::memcpy(&dst_src_hi, hdr.dst_src.data() + 8, 4);
    const uint64_t bias = oversize_bias(max_frame_bytes);
    uint64_t rx_bytes = 0, runt_bytes = 0, runts = 0, over = 0;
    // Rewrites pkts[i]; false for a runt, which it leaves alone.
    const auto rewrite = [&](uint16_t i) {
        if (i + kPrefetchAhead < n)
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + kPrefetchAhead], void*));
        rte_mbuf* m = pkts[i];
        const uint32_t len = rte_pktmbuf_pkt_len(m);
        rx_bytes += len;
        if (unlikely(rte_pktmbuf_data_len(m) < kEtherHeaderLen)) return false;
        over |= len + bias;
        auto* frame = rte_pktmbuf_mtod(m, uint8_t*);
        std::memcpy(frame, &dst_src_lo, 8);
        std::memcpy(frame + 8, &dst_src_hi, 4);
        return true;
    };
    const auto drop = [&](rte_mbuf* m) {
        runts++;
        runt_bytes += rte_pktmbuf_pkt_len(m);
        note_drop(out, m, DropReason::runt);
        rte_pktmbuf_free(m);
    };
    uint16_t i = 0;
    while (i < n && rewrite(i)) ++i;
    uint16_t kept = i;
    if (i < n) drop(pkts[i++]);  // the first runt
    for (; i < n; ++i) {
        if (rewrite(i))
            pkts[kept++] = pkts[i];
        else
            drop(pkts[i]);
    }
    bytes.rx = rx_bytes;
    bytes.kept = rx_bytes - runt_bytes;
    out.drops[drop_index(DropReason::runt)] += runts;
    if (likely(!(over & kOversizeBit))) return kept;
    return drop_oversize(pkts, kept, max_frame_bytes, bytes, out);
}

// The sender never waits for the owner: what the ring cannot take is
// dropped. The owner counts tx bytes when it transmits.
void hand_off(rte_ring* ring, rte_mbuf** pkts, uint16_t n, BurstOutcome& out) {
    const unsigned queued =
        rte_ring_sp_enqueue_burst(ring, reinterpret_cast<void**>(pkts), n, nullptr);
    out.handoff_out += queued;
    if (unlikely(queued < n)) {
        note_drops(out, pkts + queued, uint16_t(n - queued), DropReason::handoff_full);
        rte_pktmbuf_free_bulk(pkts + queued, n - queued);
        out.drops[drop_index(DropReason::handoff_full)] += n - queued;
    }
}

}  // namespace

uint64_t sum_pkt_len(rte_mbuf* const* pkts, uint16_t n) {
    uint64_t bytes = 0;
#pragma GCC unroll 4
    for (uint16_t i = 0; i < n; ++i) bytes += rte_pktmbuf_pkt_len(pkts[i]);
    return bytes;
}

// transmit (see forward.hpp): link_down while the main lcore sees the port's link down (a deleted
// interface fails every send), tx_full otherwise.
uint16_t transmit(const TxTarget& to, uint16_t retries, rte_mbuf** pkts, uint16_t n,
                  BurstOutcome& out, bool bytes_counted) {
    uint16_t sent = rte_eth_tx_burst(to.port, to.queue, pkts, n);
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

template <ForwardMode kMode>
void forward_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, BurstOutcome& out) {
    if constexpr (kMode == ForwardMode::l3) {
        route_burst(w, pkts, n, out);
        return;
    }
    if (unlikely(!w.has_tx)) {
        if (w.read_lengths) out.rx_bytes += sum_pkt_len(pkts, n);
        note_drops(out, pkts, n, DropReason::no_route);
        rte_pktmbuf_free_bulk(pkts, n);
        out.drops[drop_index(DropReason::no_route)] += n;
        return;
    }
    PassBytes bytes;
    uint16_t to_send = n;
    if constexpr (kMode == ForwardMode::l2)
        to_send = rewrite_l2(w.l2_header, w.tx_max_frame_bytes, pkts, n, bytes, out);
    else if (w.read_lengths)
        to_send = pass_through(w.tx_max_frame_bytes, pkts, n, bytes, out);
    out.rx_bytes += bytes.rx;

    if (w.handoff_out) {
        enter_phase(w, LoopPhase::handoff);
        hand_off(w.handoff_out, pkts, to_send, out);
    } else {
        enter_phase(w, LoopPhase::tx);
        out.tx_bytes += bytes.kept;
        transmit(w.tx, w.tx_retries, pkts, to_send, out,
                 kMode == ForwardMode::l2 || w.read_lengths);
    }
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

template void forward_burst<ForwardMode::patch>(const WorkerContext&, rte_mbuf**, uint16_t,
                                                BurstOutcome&);
template void forward_burst<ForwardMode::l2>(const WorkerContext&, rte_mbuf**, uint16_t,
                                             BurstOutcome&);
template void forward_burst<ForwardMode::l3>(const WorkerContext&, rte_mbuf**, uint16_t,
                                             BurstOutcome&);

}  // namespace pmdfwd
