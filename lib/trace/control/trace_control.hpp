// The control side of the packet trace and the drop capture: the workers'
// switches (observe.hpp), the requests and rings they point at, and what
// was traced and copied, gathered. Main lcore and telemetry thread, under
// a lock of its own; it never touches a worker's state but through the
// switch protocol, so nothing is freed or changed under a worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "drop_reasons.hpp"
#include "error.hpp"
#include "observe.hpp"
#include "packet_filter.hpp"

namespace pmdfwd {

enum class TraceMode : uint8_t { count, continuous, drops };

struct TraceOptions {
    std::optional<uint16_t> port;  // ethdev id; none: every port
    std::string port_name = "-";
    uint32_t count = 50;
    TraceMode mode = TraceMode::count;
    std::string filter;  // tcpdump syntax; empty: none
};

struct DropOptions {
    uint32_t count = 1000;
    uint32_t rate = 1000;              // copies a second a worker
    std::optional<DropReason> reason;  // none: every reason
};

// A traced packet as the control side holds it.
struct TracedPacket {
    TraceRecord record;
    uint64_t time_ns = 0;  // Unix epoch
};

struct DroppedPacket {
    uint64_t time_ns = 0;  // Unix epoch
    uint32_t pkt_len = 0;
    uint16_t worker = 0;
    uint16_t rx_port = 0;  // ethdev id
    uint16_t rx_queue = 0;
    DropReason reason = DropReason::count;
    std::vector<uint8_t> bytes;  // what was copied: at most kDropCopyBytes
};

enum class ObserveState : uint8_t { none, on, done, off };
std::string_view to_string(ObserveState s);

struct TraceStatus {
    ObserveState state = ObserveState::none;
    TraceOptions options;
    size_t traced = 0;
};

struct DropStatus {
    ObserveState state = ObserveState::none;
    DropOptions options;
    size_t captured = 0;
    uint64_t rate_limited = 0, ring_full = 0, over_count = 0;
};

class TraceControl {
  public:
    TraceControl(size_t workers, uint64_t tsc_hz);
    ~TraceControl();
    TraceControl(const TraceControl&) = delete;
    TraceControl& operator=(const TraceControl&) = delete;

    // What worker i's context points at, for the life of the workers.
    const ObserveSwitch* switch_of(size_t i) const { return &slots_[i].sw; }
    ObserveMark* mark_of(size_t i) { return &slots_[i].mark; }

    // A new trace in place of any before it (whose records go); an error
    // (a filter that does not compile) changes nothing.
    Status start_trace(const TraceOptions& options);
    void stop_trace();
    TraceStatus trace_status() const;
    // What the trace holds, oldest first: in count and drops mode the
    // first `count` taken, in continuous mode the last `count`.
    std::vector<TracedPacket> traced() const;

    Status start_drops(const DropOptions& options);
    void stop_drops();
    DropStatus drop_status();
    // Calls f(packet) for every copy kept, oldest first (the workers'
    // rings read first).
    template <class F>
    void each_dropped(F&& f) {
        std::lock_guard lock(mutex_);
        collect_drops();
        for (const DroppedPacket& p : kept_drops_) f(p);
    }

    // Main lcore, now and then: copies taken off the rings before they
    // fill; a trace or capture whose count is reached turned off.
    void housekeeping();

  private:
    struct Slot {
        ObserveSwitch sw;
        ObserveMark mark;
        std::unique_ptr<TraceRing> trace_ring;
        std::unique_ptr<DropRing> drop_ring;
    };
    // Clears bits of every switch and waits until no worker is in an
    // observed burst that could still see them.
    void switch_off(uint32_t bits);
    void switch_on(uint32_t bits);
    uint64_t time_ns(uint64_t tsc) const;
    void collect_drops();  // under mutex_

    std::unique_ptr<Slot[]> slots_;
    size_t workers_;
    uint64_t tsc_hz_;
    uint64_t epoch_tsc_;
    uint64_t epoch_ns_;

    mutable std::mutex mutex_;
    TraceStatus trace_;
    std::unique_ptr<PacketFilter> filter_;
    TraceRequest trace_request_;
    std::atomic<int64_t> trace_remaining_{0};
    DropStatus drops_;
    DropRequest drop_request_;
    std::vector<DroppedPacket> kept_drops_;
};

}  // namespace pmdfwd
