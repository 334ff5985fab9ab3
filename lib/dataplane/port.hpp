// One configured ethdev port: lookup by devargs, queue set-up against the
// device's limits, start/stop/close, and stats. Main lcore only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "link_state.hpp"
#include "mac_addr.hpp"
#include "plan.hpp"
#include "port_stats.hpp"

struct rte_mempool;

namespace pmdfwd {

class TapLinkWatch;
struct KernelLink;

struct PortSetup {
    const PortConfig* config = nullptr;
    PortPlan plan;
    std::vector<rte_mempool*> rx_pools;  // one per rx queue of its own worker
    // Called only when a quirk adds rx queues (net_tap pairs rx with tx
    // queues; the worker of rx queue 0 polls them too): returns a pool of
    // `mbufs` buffers for them.
    std::function<Result<rte_mempool*>(uint32_t mbufs)> make_spare_pool;
    // Every TX queue carries mbufs of one pool only (no handoff from several
    // senders' pools, no spare-pool mbufs): RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE
    // is then safe, and used where the device has it.
    bool one_pool_per_tx_queue = false;
    // Some worker of this port waits on rx interrupts: they are configured,
    // and every rx queue must have one.
    bool rx_interrupts = false;
    // Router mode: the device checks received IPv4 header checksums where it
    // can (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM), so that the workers test a flag.
    bool rx_ipv4_checksum = false;
};

// The queue limits of the ethdev that devargs names, so the plan can decide
// between per-worker TX queues and handoff before any port is configured.
Result<PortLimits> probe_port_limits(const PortConfig& cfg);

class Port {
  public:
    // Finds the ethdev named by devargs, configures and starts it. On error the
    // device is left closed-or-untouched and the message says what to change.
    static Result<std::unique_ptr<Port>> open(const PortSetup& setup);
    ~Port();
    Port(const Port&) = delete;
    Port& operator=(const Port&) = delete;

    uint16_t id() const { return id_; }
    const std::string& name() const { return name_; }
    const std::string& driver() const { return driver_; }
    const MacAddr& mac() const { return mac_; }
    uint16_t rx_queues_configured() const { return rx_configured_; }
    uint16_t tx_queues_configured() const { return tx_configured_; }
    // The device flags received IPv4 header checksums good or bad.
    bool rx_ipv4_checksum() const { return rx_ipv4_checksum_; }
    // The link as watch_link last saw it (up until the first sample).
    LinkState link() const { return link_.load(std::memory_order_relaxed); }
    const LinkCell* link_cell() const { return &link_; }
    uint32_t link_speed_mbps() const;
    // Main lcore: samples the link and logs a change. A net_tap port's is
    // read through its kernel interface in whatever namespace holds it, a
    // net_af_packet port's from its interface's flags; a deleted interface
    // is logged once and then no longer sampled.
    void watch_link();
    PortStats stats() const;

    // Stops the device, then frees whatever its rx queues still hold (rings
    // keep packets that nobody polls). Returns how many mbufs were drained.
    uint64_t stop_and_drain();

  private:
    Port();
    uint16_t id_ = 0;
    std::string name_;
    std::string driver_;
    MacAddr mac_;
    uint16_t rx_configured_ = 0;
    uint16_t tx_configured_ = 0;
    bool rx_ipv4_checksum_ = false;
    bool found_ = false;  // a device was looked up: ours to close
    bool started_ = false;
    std::optional<KernelLink> kernel_link();
    std::unique_ptr<TapLinkWatch> tap_watch_;  // net_tap only, once its tun file is found
    std::string iface_;                        // net_tap and net_af_packet: its kernel interface
    bool link_sampled_ = false;
    // Last, on a cache line of its own (the Port is allocated aligned): the
    // main lcore writes it, workers read it.
    alignas(64) LinkCell link_{LinkState::up};
};

}  // namespace pmdfwd
