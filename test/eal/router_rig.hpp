// The router rig of the l3 EAL tests: three net_ring ports, a real Router
// and its RouterTables, worker contexts wired as Appliance::wire_workers
// wires them for l3; frames in, what leaves and what was punted out.
#pragma once

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "forward_burst.hpp"
#include "l2_header.hpp"
#include "l3_forward.hpp"
#include "l3_frames.hpp"
#include "pool.hpp"
#include "route_tables.hpp"
#include "router.hpp"
#include "worker.hpp"

namespace pmdfwd::test {

using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

constexpr size_t kA = 0, kB = 1, kC = 2;  // config port indexes

// The router's ports (a, b, c) and who lives behind them.
const MacAddr kMacA = mac("02:00:00:00:01:0a"), kMacB = mac("02:00:00:00:01:0b"),
              kMacC = mac("02:00:00:00:01:0c");
const MacAddr kHost = mac("02:00:00:00:0a:02");  // 10.1.0.2, 2001:db8:1::2 on a
const MacAddr kGwA = mac("02:00:00:00:0a:fe");   // 10.1.0.254: the default route's
const MacAddr kNbB = mac("02:00:00:00:0b:02");   // 10.2.0.2: 10.20.0.0/16's
const MacAddr kNbC = mac("02:00:00:00:0c:02");   // 10.3.0.2: 10.20.30.0/24's
const MacAddr kNbB6 = mac("02:00:00:00:0b:62");  // 2001:db8:2::2: 2001:db8:20::/48's
const MacAddr kBroadcast = mac("ff:ff:ff:ff:ff:ff");
const MacAddr kPoison = mac("02:de:ad:00:00:00");  // kPoisonedNextHop's destination

constexpr size_t idx(DropReason r) { return size_t(r); }

inline uint64_t steady_ms() {
    return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

inline IpPrefix prefix(const char* text) {
    std::string why;
    return parse_ip_prefix(text, &why).value();
}

// A net_ring port, configured and started: one rx ring the test fills, and
// tx rings for each worker's queue and the control path's.
struct RouterRingPort {
    rte_ring* rx = nullptr;
    std::vector<rte_ring*> tx;
    uint16_t id = 0xffff;

    void open(const std::string& name, unsigned tx_queues, rte_mempool* pool) {
        rx = rte_ring_create((name + "_r").c_str(), 4096, SOCKET_ID_ANY,
                             RING_F_SP_ENQ | RING_F_SC_DEQ);
        REQUIRE(rx != nullptr);
        for (unsigned q = 0; q < tx_queues; ++q) {
            tx.push_back(rte_ring_create((name + "_t" + std::to_string(q)).c_str(), 4096,
                                         SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ));
            REQUIRE(tx.back() != nullptr);
        }
        const int port = rte_eth_from_rings(name.c_str(), &rx, 1, tx.data(), tx_queues, 0);
        REQUIRE(port >= 0);
        id = uint16_t(port);
        rte_eth_conf conf{};
        REQUIRE(rte_eth_dev_configure(id, 1, uint16_t(tx_queues), &conf) == 0);
        REQUIRE(rte_eth_rx_queue_setup(id, 0, 512, 0, nullptr, pool) == 0);
        for (uint16_t q = 0; q < tx_queues; ++q)
            REQUIRE(rte_eth_tx_queue_setup(id, q, 512, 0, nullptr) == 0);
        REQUIRE(rte_eth_dev_start(id) == 0);
    }
    // Frees whatever the rings still hold, then the rings.
    void close() {
        if (id != 0xffff) {
            (void)rte_eth_dev_stop(id);
            (void)rte_eth_dev_close(id);
        }
        const auto empty_and_free = [](rte_ring* r) {
            void* objs[64];
            while (const unsigned n = rte_ring_dequeue_burst(r, objs, 64, nullptr))
                rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(objs), n);
            rte_ring_free(r);
        };
        for (rte_ring* r : tx) empty_and_free(r);
        if (rx) empty_and_free(rx);
        tx.clear();
        rx = nullptr;
    }
};

// Three routed ports; static neighbours and routes:
//   a 10.1.0.1/24 2001:db8:1::1/64   default via 10.1.0.254 (kGwA)
//   b 10.2.0.1/24 2001:db8:2::1/64   10.20.0.0/16 via 10.2.0.2 (kNbB),
//                                    2001:db8:20::/48 via 2001:db8:2::2 (kNbB6)
//   c 10.3.0.1/24 2001:db8:3::1/64   10.20.30.0/24 via 10.3.0.2 (kNbC)
inline Config router_config() {
    Config cfg;
    cfg.source_name = "test";
    cfg.forward.mode = ForwardMode::l3;
    const char* names[] = {"a", "b", "c"};
    for (int p = 0; p < 3; ++p) {
        PortConfig port;
        port.name = names[p];
        const std::string n = std::to_string(p + 1);
        port.addresses = {prefix(("10." + n + ".0.1/24").c_str()),
                          prefix(("2001:db8:" + n + "::1/64").c_str())};
        cfg.ports.push_back(port);
    }
    cfg.neighbours = {{ip("10.1.0.254"), kGwA, "a", {}, {}, {}, {}},
                      {ip("10.2.0.2"), kNbB, "b", {}, {}, {}, {}},
                      {ip("10.3.0.2"), kNbC, "c", {}, {}, {}, {}},
                      {ip("2001:db8:2::2"), kNbB6, "b", {}, {}, {}, {}}};
    cfg.routes = {{prefix("10.20.0.0/16"), ip("10.2.0.2"), "", {}, {}, {}, {}},
                  {prefix("10.20.30.0/24"), ip("10.3.0.2"), "", {}, {}, {}, {}},
                  {prefix("0.0.0.0/0"), ip("10.1.0.254"), "", {}, {}, {}, {}},
                  {prefix("2001:db8:20::/48"), ip("2001:db8:2::2"), "", {}, {}, {}, {}}};
    cfg.l3.max_routes = 1024;
    cfg.l3.max_neighbours = 64;
    // Every ICMP error the tests ask for may go (the rate tests lower it).
    cfg.l3.icmp_rate_limit = 1000000;
    cfg.l3.icmp_rate_burst = 1000;
    return cfg;
}

inline int g_rig = 0;

struct Punt {
    PuntReason why;
    Bytes frame;
};

// The router, its ports and pools, and `workers` worker contexts (not
// launched unless a test launches them): worker w sends on queue w of
// every port, the control path on queue `workers`, as the plan numbers them.
struct RouterRig {
    std::string tag;
    Config cfg;
    unsigned worker_count;
    std::unique_ptr<Pool> pool;      // the test's frames (and the rx queues')
    std::unique_ptr<Pool> ctl_pool;  // the control path's own frames
    RouterRingPort ports[3];
    // The router's idea of its ports' MACs (net_ring cannot set its own).
    MacAddr macs[3] = {kMacA, kMacB, kMacC};
    std::unique_ptr<Router> router;
    std::vector<WorkerContextPtr> workers;
    std::atomic<bool> stop{false};

    // Worker w polls rx_ports[w].
    explicit RouterRig(const std::function<void(Config&)>& tweak = {}, unsigned n_workers = 1,
                       std::vector<size_t> rx_ports = {kA})
        : tag("l3r" + std::to_string(++g_rig)), cfg(router_config()), worker_count(n_workers) {
        if (tweak) tweak(cfg);
        auto p = Pool::create(tag + "_pkt", 8191, 64, 2176, SOCKET_ID_ANY);
        if (!p) FAIL(p.error().message);
        pool = std::move(p.value());
        auto c = Pool::create(tag + "_ctl", 1023, 0, 2176, SOCKET_ID_ANY);
        if (!c) FAIL(c.error().message);
        ctl_pool = std::move(c.value());
        std::vector<RouterPort> rp;
        for (size_t i = 0; i < 3; ++i) {
            ports[i].open(tag + char('a' + i), worker_count + 1, pool->mempool());
            rp.push_back({cfg.ports[i].name, ports[i].id, int(worker_count), macs[i],
                          cfg.ports[i].addresses, cfg.ports[i].mtu, cfg.ports[i].kernel_interface,
                          nullptr});
        }
        auto r = Router::create(cfg, std::move(rp), worker_count, SOCKET_ID_ANY, tag + "_rt",
                                ctl_pool->mempool());
        if (!r) FAIL(r.error().message);
        router = std::move(r.value());
        unsigned lcore = rte_get_main_lcore();
        for (unsigned w = 0; w < worker_count; ++w) {
            if (worker_count > 1) lcore = rte_get_next_lcore(lcore, 1, 0);
            workers.push_back(wire(w, lcore, rx_ports.at(w)));
        }
    }

    ~RouterRig() {
        router.reset();  // frees what waits in the punt rings and the neighbour queues
        workers.clear();
        for (auto& p : ports) p.close();
    }

    // Appliance::wire_workers' l3 part, for a worker polling rx_port.
    WorkerContextPtr wire(unsigned id, unsigned lcore, size_t rx_port) {
        auto w = make_worker_context(lcore);
        REQUIRE(w);
        w->id = id;
        w->lcore = lcore;
        w->rx_port = ports[rx_port].id;
        w->rx_queue = 0;
        w->router = router->view();
        w->punt = router->punt_ring(id);
        w->rcu_id = id;
        set_l3_own_mac(*w, macs[rx_port].bytes.data());
        set_icmp_budget(*w, cfg.l3.icmp_rate_limit, cfg.l3.icmp_rate_burst, rte_get_tsc_hz());
        for (size_t p = 0; p < 3; ++p) {
            w->l3_tx[p] = {ports[p].id, uint16_t(id), nullptr};
            w->l3_max_frame[p] = max_routed_frame_bytes(cfg.ports[p].mtu);
        }
        w->pool = pool->mempool();
        w->mode = ForwardMode::l3;
        w->burst = cfg.forward.burst;
        w->tx_retries = cfg.forward.tx_retries;
        w->latency = false;
        w->stall_cycles = UINT64_MAX;
        w->stop = &stop;
        return w;
    }

    rte_mbuf* mbuf(const Bytes& f, size_t in_port) {
        rte_mbuf* m = rte_pktmbuf_alloc(pool->mempool());
        REQUIRE(m != nullptr);
        std::memcpy(rte_pktmbuf_append(m, uint16_t(f.size())), f.data(), f.size());
        m->port = ports[in_port].id;  // what the PMD of a real port writes
        return m;
    }

    // One call of the worker's burst function on these frames, as the
    // worker of in_port would make it (that port's MAC is its own).
    // ol_flags: what a device's offloads would have flagged each frame with.
    BurstOutcome route(const std::vector<Bytes>& frames, size_t in_port = kA, unsigned worker = 0,
                       uint64_t ol_flags = 0) {
        REQUIRE(frames.size() <= kMaxBurst);
        set_l3_own_mac(*workers[worker], macs[in_port].bytes.data());
        rte_mbuf* pkts[kMaxBurst];
        for (size_t i = 0; i < frames.size(); ++i) {
            pkts[i] = mbuf(frames[i], in_port);
            pkts[i]->ol_flags = ol_flags;
        }
        return forward_burst<ForwardMode::l3>(*workers[worker], pkts, uint16_t(frames.size()));
    }

    // Takes every frame off one TX queue's ring.
    std::vector<Bytes> out(size_t port, unsigned queue = 0) {
        std::vector<Bytes> got;
        void* objs[64];
        while (const unsigned n = rte_ring_dequeue_burst(ports[port].tx[queue], objs, 64, nullptr))
            for (unsigned i = 0; i < n; ++i) {
                auto* m = static_cast<rte_mbuf*>(objs[i]);
                const auto* d = rte_pktmbuf_mtod(m, const uint8_t*);
                got.emplace_back(d, d + rte_pktmbuf_data_len(m));
                rte_pktmbuf_free(m);
            }
        return got;
    }
    std::vector<Bytes> control_out(size_t port) { return out(port, worker_count); }
    size_t queued_out() const {
        size_t n = 0;
        for (const auto& p : ports)
            for (rte_ring* r : p.tx) n += rte_ring_count(r);
        return n;
    }

    // Takes what a worker punted, as the control path would (tests that do
    // not call poll).
    std::vector<Punt> punts(unsigned worker = 0) {
        std::vector<Punt> got;
        void* objs[64];
        while (const unsigned n =
                   rte_ring_dequeue_burst(router->punt_ring(worker), objs, 64, nullptr))
            for (unsigned i = 0; i < n; ++i) {
                auto* m = static_cast<rte_mbuf*>(objs[i]);
                const auto* d = rte_pktmbuf_mtod(m, const uint8_t*);
                got.push_back({PuntReason(m->hash.usr), Bytes(d, d + rte_pktmbuf_data_len(m))});
                rte_pktmbuf_free(m);
            }
        return got;
    }

    void poll() { router->poll(steady_ms()); }

    // Every mbuf of both pools is back (the exact audit: caches counted).
    void check_pools_full() {
        CHECK(pool->audit().missing() == 0);
        CHECK(ctl_pool->audit().missing() == 0);
    }
};

inline std::vector<Bytes> v4_frames(size_t n, const char* dst_net, size_t first = 0) {
    std::vector<Bytes> v;
    for (size_t i = first; i < first + n; ++i) {
        V4 p{ip4("10.1.0.2"), ip4(dst_net), uint8_t(2 + i * 37 % 254), 0, 0, uint16_t(i), 18,
             uint32_t(i)};
        p.dst.host_order += uint32_t(i % 250 + 1);
        p.payload = 18 + i * 53 % 400;
        v.push_back(frame({kMacA, kHost, {}}, 0x0800, ipv4_udp(p)));
    }
    return v;
}

inline uint64_t bytes_of(const std::vector<Bytes>& frames) {
    uint64_t n = 0;
    for (const auto& f : frames) n += f.size();
    return n;
}

inline uint64_t total_drops(const BurstOutcome& o) {
    uint64_t n = 0;
    for (const uint64_t d : o.drops) n += d;
    return n;
}

// Each frame against its expected bytes, with the hex of both on a mismatch.
inline void check_frames(const std::vector<Bytes>& got, const std::vector<Bytes>& want) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("frame " << i);
        CHECK(hex(got[i]) == hex(want[i]));
    }
}

inline std::vector<Bytes> routed_all(const std::vector<Bytes>& in, const MacAddr& dst,
                                     const MacAddr& src) {
    std::vector<Bytes> v;
    for (const auto& f : in) v.push_back(routed(f, dst, src));
    return v;
}

// The IPv4 id that makes the header checksum after the TTL decrement
// 0x0000, the value an incremental update by RFC 1141 would get wrong.
inline uint16_t id_for_zero_checksum(V4 p) {
    for (uint32_t id = 0; id <= 0xffff; ++id) {
        p.id = uint16_t(id);
        Bytes ip = ipv4_udp(p);
        ip[8]--;
        store_v4_checksum(ip);
        if (packet_bytes::be16(ip, 10) == 0) return uint16_t(id);
    }
    FAIL("no id gives a zero checksum");
    return 0;
}

}  // namespace pmdfwd::test
