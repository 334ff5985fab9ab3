// pmdgen's engine: sends numbered, timestamped probe frames on one port at a
// fixed rate (or as fast as the device takes them) and accounts for what
// comes back on another (or the same) port: loss, reordering, duplicates,
// one-way latency (TSC to TSC: both ends on this host) and inter-arrival
// jitter. One thread, one TX and one RX queue; no allocation per packet.
#pragma once

#include <cstdint>

#include "histogram.hpp"
#include "probe_frame.hpp"
#include "sequence_tracker.hpp"

struct rte_mempool;
struct rte_mbuf;

namespace pmdfwd {

struct GenConfig {
    uint16_t tx_port = 0, tx_queue = 0;
    uint16_t rx_port = 0, rx_queue = 0;
    rte_mempool* pool = nullptr;
    UdpEndpoints endpoints;
    uint32_t flows = 1;
    uint16_t frame_size = kMinProbeFrame;
    uint64_t rate_pps = 0;  // 0: as fast as the TX queue takes them
    uint16_t burst = 32;
};

struct GenCounters {
    uint64_t sent = 0;        // left on the TX queue, numbered 0..sent-1
    uint64_t tx_full = 0;     // built but refused by a full TX queue (not numbered)
    uint64_t alloc_fail = 0;  // bursts skipped: the pool was empty
    uint64_t rx_other = 0;    // received frames that are not probes
};

class TrafficGen {
  public:
    explicit TrafficGen(const GenConfig& cfg);

    // Pacing counts from start_tsc; nothing falls due after end_tsc, so a
    // stall at the end of the run is not made up past it (rate x duration
    // probes at most).
    void start(uint64_t start_tsc, uint64_t end_tsc = UINT64_MAX);
    // One iteration: when `send`, transmit what is due by now; then receive
    // one burst.
    void poll(bool send);
    // Only receive (the drain after the last send); returns packets taken.
    unsigned receive();

    const GenCounters& counters() const { return counters_; }
    const SequenceTracker& sequence() const { return seq_; }
    const Histogram& latency() const { return latency_; }
    double jitter_cycles() const { return jitter_; }  // RFC 3550 estimate

  private:
    void send(uint64_t now);

    GenConfig cfg_;
    ProbeFrames frames_;
    uint64_t hz_ = 0;
    uint64_t start_tsc_ = 0;
    uint64_t end_tsc_ = UINT64_MAX;
    uint32_t next_flow_ = 0;
    GenCounters counters_;
    SequenceTracker seq_;
    Histogram latency_;
    double jitter_ = 0;
    uint64_t prev_transit_ = 0;
    bool have_transit_ = false;
};

}  // namespace pmdfwd
