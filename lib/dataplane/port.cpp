// Port set-up and teardown (see port.hpp). Main lcore only.
#include "port.hpp"

#include <net/if.h>
#include <rte_ethdev.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "eal_args.hpp"
#include "kernel_link.hpp"
#include "pmd_quirks.hpp"

namespace pmdfwd {

namespace {

std::string dpdk_error(const std::string& what, int rc) {
    return what + " failed: " + std::to_string(rc) + " (" + rte_strerror(-rc) + ")";
}

}  // namespace

// The ethdev that devargs names, and what it can do.
struct Device {
    uint16_t id = 0;
    rte_eth_dev_info info{};
};

Result<Device> find_device(const PortConfig& cfg) {
    const std::string dev_name = devargs_name(cfg.devargs);
    Device d;
    if (rte_eth_dev_get_port_by_name(dev_name.c_str(), &d.id) != 0)
        return make_error("port '" + cfg.name + "': no DPDK device named '" + dev_name +
                          "' was probed; check devargs '" + cfg.devargs + "'");
    if (int rc = rte_eth_dev_info_get(d.id, &d.info); rc != 0)
        return make_error("port '" + cfg.name + "': " + dpdk_error("rte_eth_dev_info_get", rc), rc);
    return d;
}

Result<PortLimits> probe_port_limits(const PortConfig& cfg) {
    auto d = find_device(cfg);
    if (!d) return d.error();
    const rte_eth_dev_info& info = d.value().info;
    return PortLimits{info.driver_name ? info.driver_name : "?", info.max_rx_queues,
                      info.max_tx_queues};
}

Result<std::unique_ptr<Port>> Port::open(const PortSetup& setup) {
    const PortConfig& cfg = *setup.config;
    const std::string who = "port '" + cfg.name + "'";
    std::unique_ptr<Port> port(new Port);
    port->name_ = cfg.name;

    auto device = find_device(cfg);
    if (!device) return device.error();
    port->id_ = device.value().id;
    port->found_ = true;
    const rte_eth_dev_info& info = device.value().info;
    port->driver_ = info.driver_name ? info.driver_name : "?";

    const QueueCounts q =
        configured_queue_counts(port->driver_, setup.plan.rx_queues, setup.plan.tx_queues);
    if (q.rx > info.max_rx_queues)
        return make_error(who + " (" + port->driver_ + ") allows at most " +
                          std::to_string(info.max_rx_queues) + " rx queues but the plan needs " +
                          std::to_string(q.rx) + "; lower rx_queues for this port");
    if (q.tx > info.max_tx_queues)
        return make_error(who + " (" + port->driver_ + ") allows at most " +
                          std::to_string(info.max_tx_queues) + " tx queues but the plan needs " +
                          std::to_string(q.tx) +
                          " (one per worker that sends to it); send to it from fewer rx queues");
    if (cfg.mtu > info.max_mtu || cfg.mtu < info.min_mtu)
        return make_error(who + ": mtu " + std::to_string(cfg.mtu) + " is outside the device's " +
                          std::to_string(info.min_mtu) + ".." + std::to_string(info.max_mtu));
    // What rte_eth_dev_configure checks, said in the config's terms: some
    // PMDs (net_tap) report no max_mtu but a frame limit.
    const uint32_t overhead = info.max_mtu != UINT16_MAX && info.max_rx_pktlen > info.max_mtu
                                  ? info.max_rx_pktlen - info.max_mtu
                                  : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
    if (cfg.mtu + overhead > info.max_rx_pktlen)
        return make_error(who + " (" + port->driver_ + "): mtu " + std::to_string(cfg.mtu) +
                          " needs frames of " + std::to_string(cfg.mtu + overhead) +
                          " bytes but the device takes at most " +
                          std::to_string(info.max_rx_pktlen) + "; lower mtu to " +
                          std::to_string(info.max_rx_pktlen - overhead) + " or less");

    rte_eth_conf conf{};
    conf.rxmode.mtu = cfg.mtu;
    // Several polled queues are useless unless the device spreads flows over
    // them: hash on addresses and ports where the device can.
    const uint64_t rss_hf =
        (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
    if (setup.plan.rx_queues > 1 && rss_hf != 0) {
        conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
        conf.rx_adv_conf.rss_conf.rss_hf = rss_hf;
    }
    // Fast free returns a burst to the first mbuf's pool: only when each queue
    // carries one pool's mbufs, all with refcnt 1.
    if (setup.one_pool_per_tx_queue && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE))
        conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
    if (setup.rx_ipv4_checksum && (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)) {
        conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
        port->rx_ipv4_checksum_ = true;
    }
    conf.intr_conf.rxq = setup.rx_interrupts ? 1 : 0;
    if (int rc = rte_eth_dev_configure(port->id_, q.rx, q.tx, &conf); rc != 0)
        return make_error(who + ": " + dpdk_error("rte_eth_dev_configure", rc), rc);
    port->rx_configured_ = q.rx;
    port->tx_configured_ = q.tx;

    uint16_t rx_desc = cfg.rx_desc, tx_desc = cfg.tx_desc;
    if (int rc = rte_eth_dev_adjust_nb_rx_tx_desc(port->id_, &rx_desc, &tx_desc); rc != 0)
        return make_error(who + ": " + dpdk_error("rte_eth_dev_adjust_nb_rx_tx_desc", rc), rc);

    const int socket = rte_eth_dev_socket_id(port->id_);
    rte_mempool* spare = nullptr;
    if (q.rx > setup.rx_pools.size()) {
        // Their rings, and what they received still in flight: an output TX
        // ring and some bursts (kSpareInFlight).
        constexpr uint32_t kSpareInFlight = 2048;
        auto made = setup.make_spare_pool(uint32_t(q.rx - setup.rx_pools.size()) * rx_desc +
                                          kSpareInFlight);
        if (!made) return made.error();
        spare = made.value();
    }
    for (uint16_t i = 0; i < q.rx; ++i) {
        rte_mempool* pool = i < setup.rx_pools.size() ? setup.rx_pools[i] : spare;
        if (int rc = rte_eth_rx_queue_setup(port->id_, i, rx_desc, socket, nullptr, pool); rc != 0)
            return make_error(who + ": rx queue " + std::to_string(i) + ": " +
                                  dpdk_error("rte_eth_rx_queue_setup", rc),
                              rc);
    }
    rte_eth_txconf txconf = info.default_txconf;
    txconf.offloads = conf.txmode.offloads;
    // The log channel's queue is short (kNetlogTxDesc), within the device's limits.
    const uint16_t netlog_desc = std::clamp<uint16_t>(
        RTE_ALIGN_CEIL(kNetlogTxDesc, std::max<uint16_t>(info.tx_desc_lim.nb_align, 1)),
        info.tx_desc_lim.nb_min, std::max(info.tx_desc_lim.nb_max, info.tx_desc_lim.nb_min));
    for (uint16_t i = 0; i < q.tx; ++i)
        if (int rc = rte_eth_tx_queue_setup(port->id_, i,
                                            i == setup.plan.netlog_queue ? netlog_desc : tx_desc,
                                            socket, &txconf);
            rc != 0)
            return make_error(who + ": tx queue " + std::to_string(i) + ": " +
                                  dpdk_error("rte_eth_tx_queue_setup", rc),
                              rc);

    if (int rc = rte_eth_dev_start(port->id_); rc != 0)
        return make_error(who + ": " + dpdk_error("rte_eth_dev_start", rc), rc);
    port->started_ = true;
    // A device without rx interrupts still starts with intr_conf.rxq set;
    // only its queues' missing event descriptors tell.
    for (uint16_t i = 0; setup.rx_interrupts && i < q.rx; ++i)
        if (rte_eth_dev_rx_intr_ctl_q_get_fd(port->id_, i) < 0)
            return make_error(who + " (" + port->driver_ + ") has no rx interrupt on rx queue " +
                              std::to_string(i) +
                              ", so its workers cannot poll = \"interrupt\"; use \"adaptive\" "
                              "(spins, then sleeps) or \"busy\"");

    if (cfg.promiscuous) {
        const int rc = rte_eth_promiscuous_enable(port->id_);
        if (rc != 0 && rc != -ENOTSUP)
            return make_error(who + ": " + dpdk_error("rte_eth_promiscuous_enable", rc), rc);
    }
    // Its kernel interface: a tap's named while it is still in this
    // namespace, an af_packet port's from its devargs.
    char ifname[IF_NAMESIZE] = {};
    if (port->driver_ == "net_tap" && info.if_index != 0 && if_indextoname(info.if_index, ifname))
        port->iface_ = ifname;
    if (port->driver_ == "net_af_packet") port->iface_ = devargs_value(cfg.devargs, "iface");
    rte_ether_addr mac{};
    rte_eth_macaddr_get(port->id_, &mac);
    std::copy(std::begin(mac.addr_bytes), std::end(mac.addr_bytes), port->mac_.bytes.begin());
    return port;
}

Port::Port() = default;

Port::~Port() {
    if (!found_) return;
    if (started_) stop_and_drain();
    if (const int rc = rte_eth_dev_close(id_); rc != 0)
        spdlog::error("port '{}': rte_eth_dev_close failed: {}", name_, rc);
}

uint64_t Port::stop_and_drain() {
    if (!started_) return 0;
    started_ = false;
    uint64_t drained = 0;
    rte_mbuf* pkts[64];
    // Drain while started: some PMDs (net_ring) return nothing once stopped
    // but keep the packets in their rings. Bounded, because a source such as
    // net_null never runs dry.
    constexpr int kMaxDrainBursts = 1024;
    for (uint16_t q = 0; q < rx_configured_; ++q) {
        for (int burst = 0; burst < kMaxDrainBursts; ++burst) {
            const uint16_t n = rte_eth_rx_burst(id_, q, pkts, 64);
            if (n == 0) break;
            rte_pktmbuf_free_bulk(pkts, n);
            drained += n;
        }
    }
    if (const int rc = rte_eth_dev_stop(id_); rc != 0)
        spdlog::error("port '{}': rte_eth_dev_stop failed: {}", name_, rc);
    return drained;
}

// The kernel's view of a port that is a kernel interface, where the PMD's
// own is wrong (kernel_link.hpp); nullopt: ask the PMD.
std::optional<KernelLink> Port::kernel_link() {
    if (iface_.empty()) return std::nullopt;
    if (driver_ == "net_af_packet") return interface_link(iface_);
    if (!tap_watch_)
        if (auto found = TapLinkWatch::find(iface_))
            tap_watch_ = std::make_unique<TapLinkWatch>(std::move(*found));
    if (!tap_watch_) return std::nullopt;
    const auto k = tap_watch_->sample();
    if (k && k->where == IfaceWhere::here) return std::nullopt;  // the PMD asks the right namespace
    return k;
}

void Port::watch_link() {
    const LinkState was = link();
    if (was == LinkState::gone) return;
    const std::optional<KernelLink> k = kernel_link();
    LinkState now = LinkState::down;
    if (k) {
        now = k->where == IfaceWhere::gone ? LinkState::gone
              : k->up                      ? LinkState::up
                                           : LinkState::down;
    } else {
        rte_eth_link l{};
        if (rte_eth_link_get_nowait(id_, &l) == 0 && l.link_status == RTE_ETH_LINK_UP)
            now = LinkState::up;
    }
    const bool first = !link_sampled_;
    link_sampled_ = true;
    if (now == was && !(first && now != LinkState::up)) return;
    link_.store(now, std::memory_order_relaxed);
    if (now == LinkState::gone)
        spdlog::error(
            "port '{}': interface '{}' is gone (deleted?): frames sent to it are "
            "dropped as link_down until pmdfwd restarts",
            name_, iface_);
    else
        spdlog::warn("port '{}': link {}{}", name_, to_string(now),
                     k && k->where == IfaceWhere::elsewhere
                         ? " (interface in another network namespace)"
                         : "");
}

uint32_t Port::link_speed_mbps() const {
    rte_eth_link link{};
    return rte_eth_link_get_nowait(id_, &link) == 0 ? link.link_speed : 0;
}

PortStats Port::stats() const {
    rte_eth_stats s{};
    if (rte_eth_stats_get(id_, &s) != 0) return {};
    PortStats out;
#define PMDFWD_PORT_FROM_ETHDEV(name, unit, kind, help) out.name = s.name;
    PMDFWD_PORT_COUNTERS(PMDFWD_PORT_FROM_ETHDEV)
#undef PMDFWD_PORT_FROM_ETHDEV
    return out;
}

}  // namespace pmdfwd
