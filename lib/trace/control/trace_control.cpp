// The packet trace's and drop capture's control side (see trace_control.hpp).
#include "trace_control.hpp"

#include <rte_cycles.h>
#include <rte_pause.h>

#include <algorithm>
#include <bit>
#include <chrono>

namespace pmdfwd {

namespace {

// A drop ring holds what the workers copy between two reads of it
// (housekeeping, every few tens of ms): 512 at a worker's default rate of
// 1000 a second is half a second's worth; each is 2 KB.
constexpr uint32_t kDropRingSlots = 512;

uint32_t ring_size_for(uint32_t count) { return std::bit_ceil(std::max<uint32_t>(count, 16)); }

}  // namespace

std::string_view to_string(ObserveState s) {
    constexpr std::string_view kNames[] = {"none", "on", "done", "off"};
    return enum_name(kNames, s);
}

TraceControl::TraceControl(size_t workers, uint64_t tsc_hz)
    : slots_(new Slot[workers]), workers_(workers), tsc_hz_(tsc_hz) {
    epoch_tsc_ = rte_rdtsc();
    epoch_ns_ = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count());
}

TraceControl::~TraceControl() { switch_off(kObserveTrace | kObserveDrops); }

uint64_t TraceControl::time_ns(uint64_t tsc) const {
    const auto since = int64_t(tsc - epoch_tsc_);
    return epoch_ns_ + uint64_t(double(since) * 1e9 / double(tsc_hz_));
}

void TraceControl::switch_off(uint32_t bits) {
    for (size_t i = 0; i < workers_; ++i) slots_[i].sw.on.fetch_and(~bits);
    for (size_t i = 0; i < workers_; ++i)
        while (slots_[i].mark.busy.load()) rte_pause();
}

void TraceControl::switch_on(uint32_t bits) {
    for (size_t i = 0; i < workers_; ++i) slots_[i].sw.on.fetch_or(bits);
}

Status TraceControl::start_trace(const TraceOptions& options) {
    std::unique_ptr<PacketFilter> filter;
    if (!options.filter.empty()) {
        auto compiled = PacketFilter::compile(options.filter);
        if (!compiled) return compiled.error();
        filter = std::move(compiled.value());
    }
    std::lock_guard lock(mutex_);
    switch_off(kObserveTrace);
    filter_ = std::move(filter);
    trace_request_ = TraceRequest{};
    trace_request_.filter = filter_.get();
    trace_request_.port = options.port ? int32_t(*options.port) : -1;
    trace_request_.drops_only = options.mode == TraceMode::drops;
    trace_request_.continuous = options.mode == TraceMode::continuous;
    trace_remaining_.store(int64_t(options.count));
    trace_request_.remaining = &trace_remaining_;
    for (size_t i = 0; i < workers_; ++i) {
        slots_[i].trace_ring = std::make_unique<TraceRing>(ring_size_for(options.count));
        slots_[i].sw.trace = &trace_request_;
        slots_[i].sw.trace_ring = slots_[i].trace_ring.get();
    }
    trace_ = TraceStatus{ObserveState::on, options, 0};
    switch_on(kObserveTrace);
    return Ok{};
}

void TraceControl::stop_trace() {
    std::lock_guard lock(mutex_);
    switch_off(kObserveTrace);
    if (trace_.state == ObserveState::on) trace_.state = ObserveState::off;
}

std::vector<TracedPacket> TraceControl::traced() const {
    std::lock_guard lock(mutex_);
    std::vector<TracedPacket> all;
    if (trace_.state == ObserveState::none) return all;
    for (size_t i = 0; i < workers_; ++i) {
        const TraceRing* ring = slots_[i].trace_ring.get();
        if (!ring) continue;
        const uint64_t written = ring->written();
        const uint64_t from = written > ring->size() ? written - ring->size() : 0;
        for (uint64_t k = from; k < written; ++k) {
            TracedPacket p;
            if (!ring->read(k, p.record)) continue;  // overwritten while read
            p.time_ns = time_ns(p.record.tsc);
            all.push_back(p);
        }
    }
    std::stable_sort(all.begin(), all.end(), [](const TracedPacket& a, const TracedPacket& b) {
        return a.record.tsc < b.record.tsc;
    });
    const size_t keep = trace_.options.count;
    if (all.size() > keep) {
        // Count mode takes no more than count; continuous keeps the newest.
        if (trace_.options.mode == TraceMode::continuous)
            all.erase(all.begin(), all.end() - ptrdiff_t(keep));
        else
            all.resize(keep);
    }
    return all;
}

TraceStatus TraceControl::trace_status() const {
    const size_t n = traced().size();
    std::lock_guard lock(mutex_);
    TraceStatus s = trace_;
    s.traced = n;
    return s;
}

Status TraceControl::start_drops(const DropOptions& options) {
    std::lock_guard lock(mutex_);
    switch_off(kObserveDrops);
    drop_request_ = DropRequest{};
    if (options.reason) drop_request_.reasons = uint64_t(1) << drop_index(*options.reason);
    drop_request_.interval_tsc = tsc_hz_ / std::max<uint32_t>(options.rate, 1);
    // A tenth of a second's worth at once, 1 at least.
    const uint32_t burst = std::max<uint32_t>(options.rate / 10, 1);
    drop_request_.burst_tsc = drop_request_.interval_tsc * (burst - 1);
    drop_request_.max_copies = options.count;
    for (size_t i = 0; i < workers_; ++i) {
        slots_[i].drop_ring = std::make_unique<DropRing>(kDropRingSlots);
        slots_[i].sw.drops = &drop_request_;
        slots_[i].sw.drop_ring = slots_[i].drop_ring.get();
    }
    kept_drops_.clear();
    drops_ = DropStatus{ObserveState::on, options};
    switch_on(kObserveDrops);
    return Ok{};
}

void TraceControl::stop_drops() {
    std::lock_guard lock(mutex_);
    switch_off(kObserveDrops);
    collect_drops();
    if (drops_.state == ObserveState::on) drops_.state = ObserveState::off;
}

// Oldest first across the workers: each ring is in order, so a merge by
// time of the heads.
void TraceControl::collect_drops() {
    if (drops_.state == ObserveState::none) return;
    for (;;) {
        DropRing* oldest = nullptr;
        const DropCopy* first = nullptr;
        for (size_t i = 0; i < workers_; ++i) {
            DropRing* ring = slots_[i].drop_ring.get();
            const DropCopy* c = ring ? ring->peek() : nullptr;
            if (c && (!first || c->tsc < first->tsc)) {
                first = c;
                oldest = ring;
            }
        }
        if (!first) return;
        if (kept_drops_.size() < drops_.options.count) {
            DroppedPacket p;
            p.time_ns = time_ns(first->tsc);
            p.pkt_len = first->pkt_len;
            p.worker = first->worker;
            p.rx_port = first->rx_port;
            p.rx_queue = first->rx_queue;
            p.reason = DropReason(first->reason);
            p.bytes.assign(first->data, first->data + first->cap_len);
            kept_drops_.push_back(std::move(p));
        } else {
            drops_.over_count++;
        }
        oldest->release();
    }
}

DropStatus TraceControl::drop_status() {
    std::lock_guard lock(mutex_);
    collect_drops();
    DropStatus s = drops_;
    s.captured = kept_drops_.size();
    for (size_t i = 0; i < workers_; ++i) {
        const DropRing* ring = slots_[i].drop_ring.get();
        if (!ring) continue;
        s.rate_limited += ring->counts.rate_limited.load(std::memory_order_relaxed);
        s.ring_full += ring->counts.ring_full.load(std::memory_order_relaxed);
        s.over_count += ring->counts.over_count.load(std::memory_order_relaxed);
    }
    return s;
}

void TraceControl::housekeeping() {
    std::lock_guard lock(mutex_);
    collect_drops();
    if (drops_.state == ObserveState::on && kept_drops_.size() >= drops_.options.count) {
        switch_off(kObserveDrops);
        drops_.state = ObserveState::done;
    }
    if (trace_.state == ObserveState::on && trace_.options.mode != TraceMode::continuous &&
        trace_remaining_.load() <= 0) {
        switch_off(kObserveTrace);
        trace_.state = ObserveState::done;
    }
}

}  // namespace pmdfwd
