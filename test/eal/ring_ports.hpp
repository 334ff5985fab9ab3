// Test wiring for in-process forwarding: net_ring ports whose rx ring the test
// fills and whose tx ring the test reads, plus a tiny frame builder.
#pragma once

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "appliance.hpp"
#include "config.hpp"
#include "plan.hpp"

namespace pmdfwd::test {

struct RingPort {
    std::string name;         // ethdev name, also the config devargs
    rte_ring* rx = nullptr;   // test enqueues, pmdfwd receives
    rte_ring* tx = nullptr;   // pmdfwd sends, test dequeues
    rte_ring* tx2 = nullptr;  // a second TX queue, when asked for
    uint16_t port_id = 0;

    static RingPort create(const std::string& name, unsigned tx_ring_size = 4096,
                           unsigned tx_queues = 1) {
        RingPort p;
        p.name = "net_ring_" + name;
        p.rx = rte_ring_create((name + "_rx").c_str(), 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
        p.tx =
            rte_ring_create((name + "_tx").c_str(), tx_ring_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
        if (tx_queues > 1)
            p.tx2 =
                rte_ring_create((name + "_tx2").c_str(), 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
        rte_ring* txs[2] = {p.tx, p.tx2};
        // The ring PMD prefixes the ethdev name with "net_ring_".
        const int id = rte_eth_from_rings(name.c_str(), &p.rx, 1, txs, tx_queues > 1 ? 2 : 1, 0);
        p.port_id = id < 0 ? 0xffff : uint16_t(id);
        return p;
    }
    void destroy() {
        rte_ring_free(rx);
        rte_ring_free(tx);
        rte_ring_free(tx2);
    }
};

// A frame of `len` bytes: destination, source, IPv4 ethertype, then a payload
// stamped with `seq` so order and content can be checked.
inline std::vector<uint8_t> make_frame(uint32_t seq, uint16_t len = 64) {
    std::vector<uint8_t> f(len, 0);
    const uint8_t dst[6] = {0x02, 0xaa, 0, 0, 0, 1}, src[6] = {0x02, 0xbb, 0, 0, 0, 2};
    if (len >= 12) {
        std::memcpy(f.data(), dst, 6);
        std::memcpy(f.data() + 6, src, 6);
    }
    if (len >= 14) {
        f[12] = 0x08;
        f[13] = 0x00;
    }
    for (size_t i = 14; i < len; ++i) f[i] = uint8_t(seq + i);
    if (len >= 18) std::memcpy(f.data() + 14, &seq, 4);
    return f;
}

// n frames of len bytes, numbered from 0.
inline std::vector<std::vector<uint8_t>> make_frames(size_t n, uint16_t len = 64) {
    std::vector<std::vector<uint8_t>> v;
    for (size_t i = 0; i < n; ++i) v.push_back(make_frame(uint32_t(i), len));
    return v;
}

inline rte_mbuf* to_mbuf(rte_mempool* pool, const std::vector<uint8_t>& frame) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    if (!m) return nullptr;
    std::memcpy(rte_pktmbuf_append(m, uint16_t(frame.size())), frame.data(), frame.size());
    return m;
}

inline std::vector<uint8_t> bytes_of(const rte_mbuf* m) {
    const auto* d = rte_pktmbuf_mtod(m, const uint8_t*);
    return std::vector<uint8_t>(d, d + rte_pktmbuf_data_len(m));
}

// Dequeues up to `want` mbufs from ring within `timeout`, copying their bytes
// and freeing them.
inline std::vector<std::vector<uint8_t>> collect(
    rte_ring* ring, size_t want,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(30000)) {
    std::vector<std::vector<uint8_t>> out;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out.size() < want && std::chrono::steady_clock::now() < deadline) {
        void* objs[64];
        const unsigned n = rte_ring_dequeue_burst(ring, objs, 64, nullptr);
        for (unsigned i = 0; i < n; ++i) {
            auto* m = static_cast<rte_mbuf*>(objs[i]);
            out.push_back(bytes_of(m));
            rte_pktmbuf_free(m);
        }
        if (n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return out;
}

inline Config two_port_config(const RingPort& a, const RingPort& b, ForwardMode mode) {
    Config cfg;
    cfg.source_name = "test";
    cfg.eal.lcores = "0-2";
    for (const auto& [name, dev] : {std::pair{"a", a.name}, std::pair{"b", b.name}}) {
        PortConfig p;
        p.name = name;
        p.devargs = dev;
        p.rx_desc = p.tx_desc = 512;
        p.promiscuous = false;
        cfg.ports.push_back(p);
    }
    cfg.forward.mode = mode;
    cfg.forward.pairs = {{"a", "b", {}}, {"b", "a", {}}};
    if (mode == ForwardMode::l2) {
        cfg.forward.next_hop_mac["a"] = *MacAddr::parse("02:00:00:00:0a:0a");
        cfg.forward.next_hop_mac["b"] = *MacAddr::parse("02:00:00:00:0b:0b");
    }
    cfg.pool.mbufs = 4096;
    cfg.pool.cache = 64;
    return cfg;
}

// The log channel on port `port` (whose ring port needs a second TX queue:
// the channel's), sending to a fixed address that no test routes.
inline void enable_netlog(Config& cfg, const std::string& port) {
    cfg.netlog.enabled = true;
    cfg.netlog.port = port;
    cfg.netlog.src_ip = *Ipv4Addr::parse("10.9.0.1");
    cfg.netlog.dst_ip = *Ipv4Addr::parse("10.9.0.2");
    cfg.netlog.dst_mac = *MacAddr::parse("02:00:00:00:09:02");
}

inline Plan plan_of(const Config& cfg) {
    auto r = build_plan(cfg);
    if (auto* e = std::get_if<ConfigError>(&r)) throw std::runtime_error(e->to_string());
    return std::get<Plan>(r);
}

// Waits until worker i has counted at least `pkts` received packets.
// The deadline is for a wedged worker, not a slow one: a loaded host may
// give a worker a fraction of a core.
inline bool wait_rx(const Appliance& app, size_t worker, uint64_t pkts) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        if (app.worker_snapshot(worker).rx_pkts >= pkts) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

}  // namespace pmdfwd::test
