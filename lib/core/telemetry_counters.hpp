// What pmdfwd's telemetry listener counts, declared once: X(name, unit,
// help). The listener counts with them; the info record shows each as
// telemetry_<name>. Pure.
#pragma once

#include <atomic>
#include <cstdint>

namespace pmdfwd {

#define PMDFWD_TELEMETRY_COUNTERS(X)                                                          \
    X(clients, connections, "clients connected now")                                          \
    X(accepted, connections, "clients accepted since start")                                  \
    X(evicted, connections, "clients closed to admit a newer one past telemetry_max_clients") \
    X(idle_closed, connections, "clients closed after telemetry_idle_s without a request")    \
    X(slow_closed, connections, "clients closed for not reading their replies")               \
    X(refused, requests, "requests answered null without reaching DPDK")                      \
    X(forwarded, requests, "requests passed to DPDK's telemetry")                             \
    X(dpdk_failures, requests, "requests DPDK's telemetry did not answer in time")

struct TelemetryGateCounters {
#define PMDFWD_TELEMETRY_COUNTER(name, unit, help) std::atomic<uint64_t> name{0};
    PMDFWD_TELEMETRY_COUNTERS(PMDFWD_TELEMETRY_COUNTER)
#undef PMDFWD_TELEMETRY_COUNTER
};

}  // namespace pmdfwd
