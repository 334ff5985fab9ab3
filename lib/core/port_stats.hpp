// The ethdev counters of one port as pmdfwd reports them, declared once:
// X(name, unit, column, help), column being pmdctl's header. Pure.
#pragma once

#include <cstdint>

namespace pmdfwd {

#define PMDFWD_PORT_COUNTERS(X)                                                               \
    X(ipackets, packets, "rx_pkts", "packets the device received (ethdev ipackets)")          \
    X(opackets, packets, "tx_pkts", "packets the device sent (ethdev opackets)")              \
    X(ibytes, bytes, "rx_bytes", "bytes the device received (net_null counts none)")          \
    X(obytes, bytes, "tx_bytes", "bytes the device sent")                                     \
    X(imissed, packets, {},                                                                   \
      "packets the device had no room for: its rx queue was not polled fast "                 \
      "enough")                                                                               \
    X(ierrors, packets, {}, "packets the device received in error")                           \
    X(oerrors, packets, {},                                                                   \
      "packets the device failed to send, as the PMD counts them (net_tap's count is wrong; " \
      "pmdfwd counts TX shortfall itself as tx_full or link_down)")                           \
    X(rx_nombuf, events, {},                                                                  \
      "receive buffer allocations that failed: the rx queue's pool was empty")

struct PortStats {
#define PMDFWD_PORT_STATS_FIELD(name, unit, column, help) uint64_t name = 0;
    PMDFWD_PORT_COUNTERS(PMDFWD_PORT_STATS_FIELD)
#undef PMDFWD_PORT_STATS_FIELD

    PortStats minus(const PortStats& b) const {
        PortStats d;
#define PMDFWD_PORT_STATS_MINUS(name, unit, column, help) d.name = name - b.name;
        PMDFWD_PORT_COUNTERS(PMDFWD_PORT_STATS_MINUS)
#undef PMDFWD_PORT_STATS_MINUS
        return d;
    }
};

}  // namespace pmdfwd
