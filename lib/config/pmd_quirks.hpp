// Known behaviour of DPDK 22.11 PMDs that the port layer must work around,
// kept in one place. Pure: keyed by driver name, no DPDK headers. Where a
// PMD's link is wrong, kernel_link.hpp reads it from the kernel. net_tap
// miscounts oerrors, so nothing in pmdfwd reads them: a TX shortfall is
// counted from tx_burst's return value (tx_full, link_down).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pmdfwd {

struct QueueCounts {
    uint16_t rx = 0;
    uint16_t tx = 0;
};

// Queue counts to configure so that `rx_polled` rx queues and `tx_used` tx
// queues exist. net_tap needs rx == tx (it pairs queues on one fd), so extra
// rx queues (polled by the port's first worker) or unused tx queues are
// added; net_memif gets at least one rx queue (a connection needs a ring
// each way); every device gets at least one tx queue.
QueueCounts configured_queue_counts(std::string_view driver, uint16_t rx_polled, uint16_t tx_used);

// Drivers of 22.11 whose rx queues have no interrupt (rte_eth_dev_rx_intr_*
// cannot wait on them): net_memif's rx_queue_intr_enable only says "not
// supported"; net_null, net_ring and net_pcap have none. net_tap has one (its
// file descriptor). Devices not listed are probed at start.
bool lacks_rx_interrupts(std::string_view driver);

// The driver of a virtual device's devargs ("net_tap0,iface=x" -> "net_tap"),
// among the vdev drivers DPDK 22.11 ships that matter here; empty for
// anything else (a PCI address): known only at start.
std::string_view vdev_driver(std::string_view devargs);

// The value of key=value in devargs ("net_af_packet0,iface=v0" and "iface"
// -> "v0"); empty when the key is absent. The device name is not a key.
std::string devargs_value(std::string_view devargs, std::string_view key);

}  // namespace pmdfwd
