// The ethdev counters of one port as pmdfwd reports them, declared once:
// X(name, unit, kind, help). Pure.
#pragma once

#include <cstdint>

#include "counter_list.hpp"

namespace pmdfwd {

#define PMDFWD_PORT_COUNTERS(X)                                                               \
    X(ipackets, packets, counter, "packets the device received (ethdev ipackets)")            \
    X(opackets, packets, counter, "packets the device sent (ethdev opackets)")                \
    X(ibytes, bytes, counter, "bytes the device received (net_null counts none)")             \
    X(obytes, bytes, counter, "bytes the device sent")                                        \
    X(imissed, packets, counter,                                                              \
      "packets the device had no room for: its rx queue was not polled fast "                 \
      "enough")                                                                               \
    X(ierrors, packets, counter, "packets the device received in error")                      \
    X(oerrors, packets, counter,                                                              \
      "packets the device failed to send, as the PMD counts them (net_tap's count is wrong; " \
      "pmdfwd counts TX shortfall itself as tx_full or link_down)")                           \
    X(rx_nombuf, events, counter,                                                             \
      "receive buffer allocations that failed: the rx queue's pool was empty")

struct PortStats {
    PMDFWD_PORT_COUNTERS(PMDFWD_LIST_U64)

    PortStats minus(const PortStats& b) const {
        PortStats d;
#define PMDFWD_PORT_STATS_MINUS(name, unit, kind, help) d.name = name - b.name;
        PMDFWD_PORT_COUNTERS(PMDFWD_PORT_STATS_MINUS)
#undef PMDFWD_PORT_STATS_MINUS
        return d;
    }
};

}  // namespace pmdfwd
