// What pmdfwd's telemetry listener counts, declared once: X(name, unit,
// kind, help). The listener counts with them; the info record shows each as
// telemetry_<name>. Pure.
#pragma once

#include <atomic>
#include <cstdint>

#include "counter_list.hpp"

namespace pmdfwd {

#define PMDFWD_TELEMETRY_COUNTERS(X)                                                     \
    X(clients, connections, gauge, "clients connected now")                              \
    X(accepted, connections, counter, "clients accepted since start")                    \
    X(evicted, connections, counter,                                                     \
      "clients closed to admit a newer one past telemetry_max_clients")                  \
    X(idle_closed, connections, counter,                                                 \
      "clients closed after telemetry_idle_s without a request")                         \
    X(slow_closed, connections, counter, "clients closed for not reading their replies") \
    X(refused, requests, counter, "requests answered null without reaching DPDK")        \
    X(forwarded, requests, counter, "requests passed to DPDK's telemetry")               \
    X(dpdk_failures, requests, counter, "requests DPDK's telemetry did not answer in time")

struct TelemetryGateCounters {
    PMDFWD_TELEMETRY_COUNTERS(PMDFWD_LIST_ATOMIC)
};

}  // namespace pmdfwd
