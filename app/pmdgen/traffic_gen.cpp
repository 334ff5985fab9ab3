// pmdgen's send and receive paths (see traffic_gen.hpp).
#include "traffic_gen.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>

namespace pmdfwd {

namespace {
constexpr uint16_t kMaxGenBurst = 512;
}  // namespace

TrafficGen::TrafficGen(const GenConfig& cfg)
    : cfg_(cfg),
      frames_(cfg.endpoints, std::max<uint32_t>(cfg.flows, 1), cfg.frame_size),
      hz_(rte_get_tsc_hz()) {
    cfg_.burst = std::clamp<uint16_t>(cfg_.burst, 1, kMaxGenBurst);
}

void TrafficGen::start(uint64_t start_tsc, uint64_t end_tsc) {
    start_tsc_ = start_tsc;
    end_tsc_ = end_tsc;
}

void TrafficGen::poll(bool send_now) {
    if (send_now) send(rte_rdtsc());
    receive();
}

// Packets due by `now` at the configured rate, less those already sent: a
// stall is made up in bursts of at most `burst`, so the rate holds on average.
void TrafficGen::send(uint64_t now) {
    uint64_t n = cfg_.burst;
    if (cfg_.rate_pps != 0) {
        const uint64_t until = std::min(now, end_tsc_);
        const auto due = uint64_t((unsigned __int128)(until - start_tsc_) * cfg_.rate_pps / hz_);
        if (due <= counters_.sent) return;
        n = std::min<uint64_t>(n, due - counters_.sent);
    }
    rte_mbuf* pkts[kMaxGenBurst];
    if (rte_pktmbuf_alloc_bulk(cfg_.pool, pkts, unsigned(n)) != 0) {
        counters_.alloc_fail++;
        return;
    }
    // One timestamp per burst, taken as late as possible.
    const uint64_t tsc = rte_rdtsc();
    for (uint64_t i = 0; i < n; ++i) {
        rte_mbuf* m = pkts[i];
        m->data_len = frames_.data_len();
        m->pkt_len = frames_.data_len();
        frames_.write(rte_pktmbuf_mtod(m, uint8_t*), next_flow_, counters_.sent + i, tsc);
        if (++next_flow_ == frames_.flows()) next_flow_ = 0;
    }
    const uint16_t sent = rte_eth_tx_burst(cfg_.tx_port, cfg_.tx_queue, pkts, uint16_t(n));
    if (sent < n) {
        // Their numbers go to the next burst: the stream stays gap-free.
        rte_pktmbuf_free_bulk(pkts + sent, unsigned(n - sent));
        counters_.tx_full += n - sent;
    }
    counters_.sent += sent;
}

unsigned TrafficGen::receive() {
    rte_mbuf* pkts[kMaxGenBurst];
    const uint16_t n = rte_eth_rx_burst(cfg_.rx_port, cfg_.rx_queue, pkts, cfg_.burst);
    if (n == 0) return 0;
    const uint64_t now = rte_rdtsc();
    for (uint16_t i = 0; i < n; ++i) {
        const rte_mbuf* m = pkts[i];
        const auto probe = parse_probe(rte_pktmbuf_mtod(m, const uint8_t*), m->data_len);
        if (!probe) {
            counters_.rx_other++;
            continue;
        }
        seq_.receive(probe->seq);
        const uint64_t transit = now > probe->tsc ? now - probe->tsc : 0;
        latency_.record(transit);
        if (have_transit_) {
            const double d = transit > prev_transit_ ? double(transit - prev_transit_)
                                                     : double(prev_transit_ - transit);
            jitter_ += (d - jitter_) / 16;
        }
        prev_transit_ = transit;
        have_transit_ = true;
    }
    rte_pktmbuf_free_bulk(pkts, n);
    return n;
}

}  // namespace pmdfwd
