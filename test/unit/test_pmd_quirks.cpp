// What pmdfwd knows of each PMD (pmd_quirks.hpp): the queue counts a driver
// is configured with, the driver a vdev's devargs name, which drivers lack
// rx interrupts, and a devargs value by its key.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "pmd_quirks.hpp"

using namespace pmdfwd;

TEST_CASE("pmd quirks: queue counts per driver", "[small][quirks]") {
    auto counts = [](std::string_view driver, uint16_t rx, uint16_t tx) {
        const QueueCounts c = configured_queue_counts(driver, rx, tx);
        return std::to_string(c.rx) + "/" + std::to_string(c.tx);
    };
    CHECK(counts("net_null", 1, 1) == "1/1");
    CHECK(counts("net_null", 2, 0) == "2/1");  // every device gets a tx queue
    CHECK(counts("net_null", 0, 3) == "0/3");
    CHECK(counts("net_ring", 4, 2) == "4/2");
    CHECK(counts("net_tap", 2, 1) == "2/2");  // tap pairs queues on one fd
    CHECK(counts("net_tap", 1, 3) == "3/3");
    CHECK(counts("net_tap", 0, 0) == "1/1");
    CHECK(counts("net_tap", 0, 1) == "1/1");
    CHECK(counts("net_tap0", 2, 1) == "2/1");  // the driver name, not the device name
}

TEST_CASE("devargs values by key", "[small][quirks]") {
    CHECK(devargs_value("net_af_packet0,iface=veth0", "iface") == "veth0");
    CHECK(devargs_value("net_af_packet0,qpairs=2,iface=v1,blocksz=4096", "iface") == "v1");
    CHECK(devargs_value("net_af_packet0,ifacex=v1,iface=v2", "iface") == "v2");  // whole keys
    CHECK(devargs_value("net_af_packet0,iface=", "iface") == "");
    CHECK(devargs_value("iface=v0", "iface") == "");  // the device name is no key
    CHECK(devargs_value("net_af_packet0", "iface") == "");
    CHECK(devargs_value("0000:01:00.0", "iface") == "");
}

TEST_CASE("quirks: vdev driver names from devargs", "[poll][quirks]") {
    CHECK(vdev_driver("net_tap0,iface=x") == "net_tap");
    CHECK(vdev_driver("net_tap_left,iface=x") == "net_tap");
    CHECK(vdev_driver("net_memif1,role=server") == "net_memif");
    CHECK(vdev_driver("net_ring_fr3a") == "net_ring");
    CHECK(vdev_driver("net_af_packet0,iface=eth0") == "net_af_packet");
    CHECK(vdev_driver("0000:01:00.0") == "");
    CHECK(vdev_driver("net_unknown0") == "");
    CHECK(lacks_rx_interrupts("net_memif"));
    CHECK_FALSE(lacks_rx_interrupts("net_tap"));
    CHECK(configured_queue_counts("net_memif", 0, 1).rx == 1);
}
