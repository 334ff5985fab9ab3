// The packet trace's records and the ring each worker keeps them in. A
// worker writes its own ring only (single writer, no lock); the control
// side reads every ring through a sequence number per entry, so a reader
// never takes a half-written record, even from a ring that wraps (the
// continuous trace keeps the last N). No DPDK: plain memory and atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

#include "enum_names.hpp"

namespace pmdfwd {

// The steps of a packet's path a trace records, in the order they happen.
#define PMDFWD_TRACE_STEPS(X)                                                              \
    X(received, "received: worker, port, queue, time")                                     \
    X(classified, "router: what its headers make it (IPv4, IPv6, ARP or ND, refused why)") \
    X(looked_up, "router: the next hop its destination's route gives, port and MACs")      \
    X(rewritten, "l2: the MAC header written")                                             \
    X(handed_off, "to the worker that owns the output TX queue")                           \
    X(punted, "to the control path, and why")                                              \
    X(transmitted, "sent: port and TX queue")                                              \
    X(dropped, "dropped: the reason, by the name of its drop counter")

#define PMDFWD_TRACE_STEP_ENUM(name, help) name,
#define PMDFWD_TRACE_STEP_NAME(name, help) #name,
enum class TraceStepKind : uint8_t { PMDFWD_TRACE_STEPS(PMDFWD_TRACE_STEP_ENUM) };
inline constexpr std::string_view kTraceStepNames[] = {PMDFWD_TRACE_STEPS(PMDFWD_TRACE_STEP_NAME)};
constexpr std::string_view to_string(TraceStepKind k) { return enum_name(kTraceStepNames, k); }

// What the router's classification made of a packet (classified's code).
enum class TraceClass : uint8_t { ipv4, ipv6, control, link_group, refused };

// One step; what the fields mean depends on the kind:
//   classified   code TraceClass; value the DropReason it is refused by (or
//                that a route to the router may still lift), flag: TTL 1
//   looked_up    code NextHopKind, port the output port (config index),
//                value the next-hop index, mac its destination and source
//   handed_off   port and queue it leaves by
//   punted       code PuntReason
//   transmitted  port (config index for router mode, else ethdev id), queue
//   dropped      code DropReason; flag: an ICMP error went to the control
//                path (1) or the rate gate held it back (2)
struct TraceStep {
    TraceStepKind kind = TraceStepKind::received;
    uint8_t code = 0;
    uint8_t flag = 0;
    uint8_t unused = 0;
    uint16_t port = 0;
    uint16_t queue = 0;
    uint32_t value = 0;
    uint8_t mac[12] = {};
};

// The first bytes of a traced frame: enough for every header `trace show`
// decodes (VLAN tags, an IPv6 extension header or two, TCP).
constexpr unsigned kTraceHeadBytes = 128;
constexpr unsigned kTraceMaxSteps = 5;

// One traced packet.
struct TraceRecord {
    uint64_t tsc = 0;       // when its burst was received
    uint32_t pkt_len = 0;   // its length on the wire
    uint16_t head_len = 0;  // bytes of head copied
    uint16_t worker = 0;
    uint16_t rx_port = 0;  // ethdev id
    uint16_t rx_queue = 0;
    uint8_t steps = 0;
    // Router mode: the destination it was looked up by (4 or 6; 0: none).
    uint8_t dst_family = 0;
    uint8_t dst[16] = {};
    TraceStep step[kTraceMaxSteps];
    uint8_t head[kTraceHeadBytes];

    void add(const TraceStep& s) {
        if (steps < kTraceMaxSteps) step[steps++] = s;
    }
};

// A worker's trace records: a power-of-two ring it alone writes. Entry i
// (the i-th record, 0 up) lives in slot i % size with version 2i + 2 once
// written, odd while being written.
class TraceRing {
  public:
    explicit TraceRing(uint32_t size_pow2) : size_(size_pow2), slots_(new Slot[size_pow2]) {}
    TraceRing(const TraceRing&) = delete;
    TraceRing& operator=(const TraceRing&) = delete;

    uint32_t size() const { return size_; }
    // Records written so far (the writer's count; readers acquire it).
    uint64_t written() const { return written_.load(std::memory_order_acquire); }

    // Worker: adds r, overwriting the oldest when the ring is full.
    void push(const TraceRecord& r) {
        const uint64_t i = written_.load(std::memory_order_relaxed);
        Slot& s = slots_[i & (size_ - 1)];
        s.version.store(2 * i + 1, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_release);
        std::memcpy(static_cast<void*>(&s.record), &r, sizeof r);
        s.version.store(2 * i + 2, std::memory_order_release);
        written_.store(i + 1, std::memory_order_release);
    }

    // Control side: record i when it is still in the ring, whole.
    bool read(uint64_t i, TraceRecord& out) const {
        const Slot& s = slots_[i & (size_ - 1)];
        if (s.version.load(std::memory_order_acquire) != 2 * i + 2) return false;
        std::memcpy(static_cast<void*>(&out), &s.record, sizeof out);
        std::atomic_thread_fence(std::memory_order_acquire);
        return s.version.load(std::memory_order_relaxed) == 2 * i + 2;
    }

  private:
    struct alignas(64) Slot {
        std::atomic<uint64_t> version{0};
        TraceRecord record;
    };
    uint32_t size_;
    std::unique_ptr<Slot[]> slots_;  // over-aligned: new[] aligns them
    alignas(64) std::atomic<uint64_t> written_{0};
};

}  // namespace pmdfwd
