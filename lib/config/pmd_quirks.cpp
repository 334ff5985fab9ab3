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
    // A memif connection needs a ring each way: a TX-only port still gets
    // an rx queue (nobody polls it).
    if (driver == "net_memif") c.rx = std::max<uint16_t>(c.rx, 1);
    return c;
}

bool lacks_rx_interrupts(std::string_view driver) {
    for (const std::string_view d : {"net_memif", "net_null", "net_ring", "net_pcap"})
        if (driver == d) return true;
    return false;
}

std::string_view vdev_driver(std::string_view devargs) {
    // The vdev bus gives a device to the driver whose name prefixes the
    // device's ("net_tap_left" is net_tap's); the longest known one wins.
    static constexpr std::string_view kDrivers[] = {
        "net_af_packet", "net_af_xdp", "net_bonding", "net_memif", "net_null",
        "net_pcap",      "net_ring",   "net_tap",     "net_vhost", "net_virtio_user"};
    const std::string_view name = devargs.substr(0, devargs.find(','));
    std::string_view best;
    for (const std::string_view d : kDrivers)
        if (name.substr(0, d.size()) == d && d.size() > best.size()) best = d;
    return best;
}

std::string devargs_value(std::string_view devargs, std::string_view key) {
    size_t at = devargs.find(',');
    while (at != std::string_view::npos) {
        const size_t next = devargs.find(',', at + 1);
        const std::string_view kv =
            devargs.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
        if (kv.size() > key.size() && kv.substr(0, key.size()) == key && kv[key.size()] == '=')
            return std::string(kv.substr(key.size() + 1));
        at = next;
    }
    return {};
}

}  // namespace pmdfwd
