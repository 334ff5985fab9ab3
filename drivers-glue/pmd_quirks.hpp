// Known behaviour of DPDK 22.11 PMDs that the port layer must work around,
// kept in one place. Pure: keyed by driver name, no DPDK headers.
#pragma once

#include <cstdint>
#include <string_view>

namespace pmdfwd {

struct QueueCounts {
    uint16_t rx = 0;
    uint16_t tx = 0;
};

// Queue counts to configure so that `rx_polled` rx queues and `tx_used` tx
// queues exist. net_tap needs rx == tx (it pairs queues on one fd), so extra
// rx queues (polled by the port's first worker) or unused tx queues are
// added; every device gets at least one tx queue.
QueueCounts configured_queue_counts(std::string_view driver, uint16_t rx_polled, uint16_t tx_used);

// net_tap (and some other 22.11 PMDs) miscount oerrors; pmdfwd counts TX
// shortfall from tx_burst's return value instead.
bool oerrors_unreliable(std::string_view driver);

}  // namespace pmdfwd
