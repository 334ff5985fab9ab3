// How the control side turns a worker's packet trace and drop capture on
// and off. The worker reads its switch once a burst (one load and a branch
// that is not taken while both are off); only when it is on does the burst
// take the observed path (observe_burst.cpp). The control side writes the
// switch, the worker its mark, each on a line of its own:
//   worker:  mark.busy = 1; if switch.on: use the requests; mark.busy = 0
//   control: switch.on = 0; wait while mark.busy; now free or change them
// (both sequentially consistent), so a request and its rings are never
// freed under a worker.
#pragma once

#include <atomic>
#include <cstdint>

#include "drop_ring.hpp"
#include "trace_ring.hpp"

namespace pmdfwd {

class PacketFilter;

enum ObserveBits : uint32_t { kObserveTrace = 1, kObserveDrops = 2 };

// A trace as it was asked for; fixed while it is on.
struct TraceRequest {
    const PacketFilter* filter = nullptr;  // null: every packet
    int32_t port = -1;                     // ethdev id of the rx port; -1: any
    bool drops_only = false;               // keep only the packets that are dropped
    // Records still to take, shared by the workers; continuous traces
    // take no count and keep the last ring's worth each.
    bool continuous = false;
    std::atomic<int64_t>* remaining = nullptr;
};

// A drop capture as it was asked for; fixed while it is on.
struct DropRequest {
    uint64_t reasons = ~uint64_t(0);  // bit r: DropReason r is copied
    uint64_t interval_tsc = 0;        // at most one copy a worker per interval...
    uint64_t burst_tsc = 0;           // ...after a quiet spell, this much saved up
    uint64_t max_copies = 0;          // per worker
};

struct alignas(64) ObserveSwitch {
    std::atomic<uint32_t> on{0};  // ObserveBits
    const TraceRequest* trace = nullptr;
    TraceRing* trace_ring = nullptr;
    const DropRequest* drops = nullptr;
    DropRing* drop_ring = nullptr;
};

struct alignas(64) ObserveMark {
    std::atomic<bool> busy{false};
};

// A burst's drop capture: set in its BurstOutcome for the observed
// path's forwarding only, read at the drop sites (which are off the
// common path), so that a capture costs nothing when off.
struct DropTap {
    const DropRequest* request = nullptr;
    DropRing* ring = nullptr;
    uint64_t tsc = 0;
    uint16_t worker = 0;
    uint16_t rx_port = 0;
    uint16_t rx_queue = 0;
};

// What a worker points at while nobody observes it (tests that build a
// context by hand): always off.
inline ObserveSwitch g_observe_off;
inline ObserveMark g_observe_unused_mark;

}  // namespace pmdfwd
