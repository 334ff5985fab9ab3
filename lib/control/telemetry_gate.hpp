// The telemetry socket clients reach: DPDK's own listener (ten clients, no
// time-out) is moved aside to a private name and this gate takes the public
// one. The gate admits clients up to a cap, past which the longest-idle one
// makes room (so idle holders can never lock the operator out), drops
// clients idle too long or not reading their replies, checks every request
// (telemetry_filter.hpp) and passes the good ones to DPDK over one private
// connection. Runs on a thread of its own; nothing here touches a worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "error.hpp"
#include "telemetry_counters.hpp"
#include "telemetry_filter.hpp"

namespace pmdfwd {

struct TelemetryGateOptions {
    std::string runtime_dir;  // where DPDK bound dpdk_telemetry.v2
    TelemetryLimits limits;
    // Past this many, the longest-idle client that has had its chance makes
    // room for a newcomer ([control] telemetry_max_clients).
    size_t max_clients = 256;
    // An interactive dpdk-telemetry.py session left alone for a minute
    // reconnects; a client that holds a slot without asking loses it.
    uint32_t idle_timeout_ms = 60000;
    // DPDK answers from memory in microseconds; this long means its handler
    // is stuck, and the gate opens a fresh connection rather than wait.
    uint32_t inner_timeout_ms = 5000;
};

class TelemetryGate {
  public:
    // Moves DPDK's socket aside, binds the public path and starts serving.
    static Result<std::unique_ptr<TelemetryGate>> open(TelemetryGateOptions options);
    // Stops serving and puts DPDK's socket back under the public name (DPDK
    // removes it at exit).
    ~TelemetryGate();
    TelemetryGate(const TelemetryGate&) = delete;
    TelemetryGate& operator=(const TelemetryGate&) = delete;

    // Read by /pmdfwd/info; written by the gate's thread only.
    const TelemetryGateCounters& counters() const { return counters_; }

  private:
    explicit TelemetryGate(TelemetryGateOptions options) : opt_(std::move(options)) {}
    void run();

    TelemetryGateOptions opt_;
    std::string public_path_;
    std::string inner_path_;
    std::string greeting_;
    int listen_fd_ = -1;
    int stop_fd_ = -1;
    TelemetryGateCounters counters_;
    std::thread thread_;
};

}  // namespace pmdfwd
