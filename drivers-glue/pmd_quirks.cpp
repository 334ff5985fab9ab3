// Per-PMD quirks (see pmd_quirks.hpp).
#include "pmd_quirks.hpp"

#include <algorithm>

namespace pmdfwd {

namespace {
bool is_tap(std::string_view driver) { return driver == "net_tap"; }
}  // namespace

QueueCounts configured_queue_counts(std::string_view driver, uint16_t rx_polled, uint16_t tx_used) {
    QueueCounts c{rx_polled, std::max<uint16_t>(tx_used, 1)};
    if (is_tap(driver)) c.rx = c.tx = std::max(c.rx, c.tx);
    return c;
}

bool oerrors_unreliable(std::string_view driver) { return is_tap(driver); }

}  // namespace pmdfwd
