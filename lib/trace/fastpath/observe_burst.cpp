// The observed path of a burst (see observe_burst.hpp). Runs on worker
// lcores. What a traced packet became is read from what forwarding
// counted for it alone (a drop reason, a punt, a send, a handoff), so the
// trace names the very counter the packet went into.
#include "observe_burst.hpp"

#include <rte_cycles.h>

#include <algorithm>

#include "l3_forward.hpp"
#include "packet_filter.hpp"

namespace pmdfwd {

namespace {

// A counter only its worker writes: a plain store, no locked add.
inline void bump(std::atomic<uint64_t>& c) {
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// The packets of a chunk (at most PacketFilter::kMaxBurst) the trace may take.
uint64_t trace_candidates(const TraceRequest& t, rte_mbuf* const* pkts, uint16_t n,
                          uint16_t rx_port) {
    if (t.port >= 0 && uint32_t(t.port) != rx_port) return 0;
    if (t.filter) return t.filter->match(pkts, n);
    return n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
}

// One record of the trace's count, while any is left.
bool claim(const TraceRequest& t) {
    return t.continuous || t.remaining->fetch_sub(1, std::memory_order_relaxed) > 0;
}

bool trace_has_room(const TraceRequest& t) {
    return t.continuous || t.remaining->load(std::memory_order_relaxed) > 0;
}

TraceRecord begin_record(const WorkerContext& w, const rte_mbuf* m, uint64_t tsc, uint16_t queue) {
    TraceRecord r;
    r.tsc = tsc;
    r.pkt_len = m->pkt_len;
    r.worker = uint16_t(w.id);
    r.rx_port = w.rx_port;
    r.rx_queue = queue;
    r.head_len = uint16_t(std::min<uint32_t>(m->pkt_len, kTraceHeadBytes));
    const void* head = rte_pktmbuf_read(m, 0, r.head_len, r.head);
    if (!head)
        r.head_len = 0;
    else if (head != r.head)
        std::memcpy(r.head, head, r.head_len);
    r.add({.kind = TraceStepKind::received, .port = w.rx_port, .queue = queue});
    return r;
}

// Whether a drop reason of router mode sends an ICMP error back.
constexpr bool earns_icmp_error(DropReason why) {
    return why == DropReason::ttl_expired || why == DropReason::no_route ||
           why == DropReason::bad_option;
}

// The last step, from what forwarding the one packet added to the counts.
// True when it was dropped.
template <ForwardMode kMode>
bool add_outcome(const WorkerContext& w, const BurstOutcome& before, const BurstOutcome& after,
                 PuntReason punt, TraceRecord& r) {
    for (size_t i = 0; i < kDropReasonCount; ++i) {
        if (after.drops[i] == before.drops[i]) continue;
        TraceStep s{.kind = TraceStepKind::dropped, .code = uint8_t(i)};
        if (after.icmp_errors_gated != before.icmp_errors_gated)
            s.flag = 2;
        else if (after.icmp_errors_punt_full != before.icmp_errors_punt_full)
            s.flag = 3;
        else if (kMode == ForwardMode::l3 && earns_icmp_error(DropReason(i)))
            s.flag = 1;
        r.add(s);
        return true;
    }
    if (after.punted != before.punted) {
        r.add({.kind = TraceStepKind::punted, .code = uint8_t(punt)});
    } else if (after.handoff_out != before.handoff_out) {
        r.add({.kind = TraceStepKind::handed_off, .port = w.tx.port, .queue = w.tx.queue});
    } else if (after.tx_pkts != before.tx_pkts) {
        TxTarget to = w.tx;
        if constexpr (kMode == ForwardMode::l3) {
            for (unsigned k = 0; k < r.steps; ++k)
                if (r.step[k].kind == TraceStepKind::looked_up) to = w.l3_tx[r.step[k].port];
        }
        r.add({.kind = TraceStepKind::transmitted, .port = to.port, .queue = to.queue});
    }
    return false;
}

template <ForwardMode kMode>
void trace_one(const WorkerContext& w, const ObserveSwitch& sw, rte_mbuf* m, uint64_t tsc,
               uint16_t queue, BurstOutcome& out) {
    const TraceRequest& t = *sw.trace;
    if (!t.drops_only && !claim(t)) {
        forward_burst_outlined<kMode>(w, &m, 1, out);
        return;
    }
    TraceRecord r = begin_record(w, m, tsc, queue);
    PuntReason punt = PuntReason::local;
    if constexpr (kMode == ForwardMode::l3) {
        explain_route(w, m, r, punt);
    } else if (kMode == ForwardMode::l2 && w.has_tx) {
        TraceStep s{.kind = TraceStepKind::rewritten};
        std::memcpy(s.mac, w.l2_header.dst_src.data(), sizeof s.mac);
        r.add(s);
    }
    const BurstOutcome before = out;
    forward_burst_outlined<kMode>(w, &m, 1, out);  // m is not ours from here
    const bool dropped = add_outcome<kMode>(w, before, out, punt, r);
    if (t.drops_only && (!dropped || !claim(t))) return;
    sw.trace_ring->push(r);
}

}  // namespace

void capture_drop(const DropTap& tap, const rte_mbuf* m, DropReason why) {
    const DropRequest& q = *tap.request;
    if (!(q.reasons >> drop_index(why) & 1)) return;
    DropRing& ring = *tap.ring;
    if (ring.counts.copied.load(std::memory_order_relaxed) >= q.max_copies) {
        bump(ring.counts.over_count);
        return;
    }
    // GCRA, as the ICMP error gate: a copy every interval, a burst of them
    // after a quiet spell.
    const uint64_t now = rte_rdtsc();
    const uint64_t earliest = ring.due_tsc > q.burst_tsc ? ring.due_tsc - q.burst_tsc : 0;
    if (now < earliest) {
        bump(ring.counts.rate_limited);
        return;
    }
    DropCopy* c = ring.reserve();
    if (!c) {
        bump(ring.counts.ring_full);
        return;
    }
    ring.due_tsc = std::max(ring.due_tsc, now) + q.interval_tsc;
    c->tsc = tap.tsc;
    c->pkt_len = m->pkt_len;
    c->cap_len = uint16_t(std::min<uint32_t>(m->pkt_len, kDropCopyBytes));
    c->worker = tap.worker;
    c->rx_port = tap.rx_port;
    c->rx_queue = tap.rx_queue;
    c->reason = uint8_t(why);
    const void* data = rte_pktmbuf_read(m, 0, c->cap_len, c->data);
    if (!data)
        c->cap_len = 0;  // segments shorter than pkt_len: nothing to trust
    else if (data != c->data)
        std::memcpy(c->data, data, c->cap_len);
    ring.commit();
    bump(ring.counts.copied);
}

void capture_drop_and_free(const DropTap& tap, rte_mbuf* m, DropReason why) {
    capture_drop(tap, m, why);
    rte_pktmbuf_free(m);
}

void capture_drops(const DropTap& tap, rte_mbuf* const* pkts, uint16_t n, DropReason why) {
    for (uint16_t i = 0; i < n; ++i) capture_drop(tap, pkts[i], why);
}

template <ForwardMode kMode>
void observed_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, uint16_t queue,
                    BurstOutcome& out) {
    ObserveMark& mark = *w.observe_mark;
    mark.busy.store(true);
    const ObserveSwitch& sw = *w.observe;
    const uint32_t on = sw.on.load();
    if (on == 0) {
        mark.busy.store(false, std::memory_order_release);
        forward_burst_outlined<kMode>(w, pkts, n, out);
        return;
    }
    const uint64_t tsc = rte_rdtsc();
    DropTap tap;
    if (on & kObserveDrops) {
        tap = {sw.drops, sw.drop_ring, tsc, uint16_t(w.id), w.rx_port, queue};
        out.tap = &tap;
    }
    const bool tracing = (on & kObserveTrace) && trace_has_room(*sw.trace);
    constexpr uint16_t kChunk = PacketFilter::kMaxBurst;
    for (uint16_t first = 0; first < n; first += kChunk) {
        rte_mbuf** chunk = pkts + first;
        const auto len = uint16_t(std::min<unsigned>(kChunk, n - first));
        const uint64_t picked = tracing ? trace_candidates(*sw.trace, chunk, len, w.rx_port) : 0;
        if (picked == 0) {
            forward_burst_outlined<kMode>(w, chunk, len, out);
            continue;
        }
        // Each picked packet alone, the runs between as bursts: the order
        // received is the order sent.
        uint16_t i = 0;
        while (i < len) {
            if (picked >> i & 1) {
                trace_one<kMode>(w, sw, chunk[i], tsc, queue, out);
                ++i;
                continue;
            }
            uint16_t j = i;
            while (j < len && !(picked >> j & 1)) ++j;
            forward_burst_outlined<kMode>(w, chunk + i, uint16_t(j - i), out);
            i = j;
        }
    }
    out.tap = nullptr;
    mark.busy.store(false, std::memory_order_release);
}

template void observed_burst<ForwardMode::patch>(const WorkerContext&, rte_mbuf**, uint16_t,
                                                 uint16_t, BurstOutcome&);
template void observed_burst<ForwardMode::l2>(const WorkerContext&, rte_mbuf**, uint16_t, uint16_t,
                                              BurstOutcome&);
template void observed_burst<ForwardMode::l3>(const WorkerContext&, rte_mbuf**, uint16_t, uint16_t,
                                              BurstOutcome&);

}  // namespace pmdfwd
