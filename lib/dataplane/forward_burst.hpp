// Patch and l2 mode's burst path, inline in the poll loop (worker.cpp): a
// call of its own, with its registers saved and restored, cost about 1.5
// instructions a packet of patch mode's 12 (callgrind). Router mode's is
// route_burst (l3_forward.hpp), which is too large to inline.
#pragma once

#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <cstring>
#ifdef __SSE4_1__
#include <smmintrin.h>
#endif

#include "forward.hpp"
#include "l3_forward.hpp"

namespace pmdfwd {

namespace forward_detail {

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
                       BurstOutcome& out);

// Patch mode's one pass: bytes counted, oversize frames found.
#ifdef __SSE4_1__
// Four lengths at a time in one SSE register, summed and maxed there: a
// load of each mbuf pointer and of its pkt_len into a lane, then an add and
// a max for all four; 4 instructions a packet where the scalar loop's
// add, bias and or took 5.8 (callgrind). The 32-bit lanes cannot wrap
// while every length is within the limit (n / 4 frames of at most 64 KB
// each); when one is not, the slow path counts again in 64 bits.
inline uint16_t pass_through(uint32_t max_frame_bytes, rte_mbuf** pkts, uint16_t n,
                             PassBytes& bytes, BurstOutcome& out) {
    __m128i sum4 = _mm_setzero_si128(), max4 = _mm_setzero_si128();
    // A pointer, not a 16-bit index: GCC widened the index on every step.
    rte_mbuf* const* p = pkts;
    for (rte_mbuf* const* const end4 = pkts + (n & ~3u); p != end4; p += 4) {
        __m128i len = _mm_cvtsi32_si128(int(rte_pktmbuf_pkt_len(p[0])));
        len = _mm_insert_epi32(len, int(rte_pktmbuf_pkt_len(p[1])), 1);
        len = _mm_insert_epi32(len, int(rte_pktmbuf_pkt_len(p[2])), 2);
        len = _mm_insert_epi32(len, int(rte_pktmbuf_pkt_len(p[3])), 3);
        sum4 = _mm_add_epi32(sum4, len);
        max4 = _mm_max_epu32(max4, len);
    }
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0x4e));
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0xb1));
    max4 = _mm_max_epu32(max4, _mm_shuffle_epi32(max4, 0x4e));
    max4 = _mm_max_epu32(max4, _mm_shuffle_epi32(max4, 0xb1));
    uint64_t sum = uint32_t(_mm_cvtsi128_si32(sum4));
    uint32_t max = uint32_t(_mm_cvtsi128_si32(max4));
    for (; p != pkts + n; ++p) {
        const uint32_t len = rte_pktmbuf_pkt_len(*p);
        sum += len;
        max = len > max ? len : max;
    }
    if (likely(max <= max_frame_bytes)) {
        bytes.rx = bytes.kept = sum;
        return n;
    }
    bytes.rx = bytes.kept = sum_pkt_len(pkts, n);
    return drop_oversize(pkts, n, max_frame_bytes, bytes, out);
}
#else
inline uint16_t pass_through(uint32_t max_frame_bytes, rte_mbuf** pkts, uint16_t n,
                             PassBytes& bytes, BurstOutcome& out) {
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
#endif

// One pass: counts bytes, drops runts (freed, counted), writes the 12-byte
// MAC header into the rest, and looks for oversize frames (see
// oversize_bias); a burst holding one then loses it to drop_oversize (its
// header written in vain, a rare case's cost). The header lives in registers and the
// counts in locals, because the frame stores could alias anything reached
// through a pointer and force reloads. Until the first runt nothing moves in
// pkts; from there the rest are compacted to the front.
inline uint16_t rewrite_l2(const L2Header& hdr, uint32_t max_frame_bytes, rte_mbuf** pkts,
                           uint16_t n, PassBytes& bytes, BurstOutcome& out) {
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
inline void hand_off(rte_ring* ring, rte_mbuf** pkts, uint16_t n, BurstOutcome& out) {
    const unsigned queued =
        rte_ring_sp_enqueue_burst(ring, reinterpret_cast<void**>(pkts), n, nullptr);
    out.handoff_out += queued;
    if (unlikely(queued < n)) {
        note_drops(out, pkts + queued, uint16_t(n - queued), DropReason::handoff_full);
        rte_pktmbuf_free_bulk(pkts + queued, n - queued);
        out.drops[drop_index(DropReason::handoff_full)] += n - queued;
    }
}

}  // namespace forward_detail

template <ForwardMode kMode>
__attribute__((always_inline)) inline void forward_burst(const WorkerContext& w, rte_mbuf** pkts,
                                                         uint16_t n, BurstOutcome& out) {
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
    forward_detail::PassBytes bytes;
    uint16_t to_send = n;
    if constexpr (kMode == ForwardMode::l2)
        to_send =
            forward_detail::rewrite_l2(w.l2_header, w.tx_max_frame_bytes, pkts, n, bytes, out);
    else if (w.read_lengths)
        to_send = forward_detail::pass_through(w.tx_max_frame_bytes, pkts, n, bytes, out);
    out.rx_bytes += bytes.rx;

    if (w.handoff_out) {
        enter_phase(w, LoopPhase::handoff);
        forward_detail::hand_off(w.handoff_out, pkts, to_send, out);
    } else {
        enter_phase(w, LoopPhase::tx);
        out.tx_bytes += bytes.kept;
        transmit(w.tx, w.tx_retries, pkts, to_send, out,
                 kMode == ForwardMode::l2 || w.read_lengths);
    }
}

// One burst's outcome on its own.
template <ForwardMode kMode>
BurstOutcome forward_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n) {
    BurstOutcome out;
    forward_burst<kMode>(w, pkts, n, out);
    return out;
}

}  // namespace pmdfwd
