// Records shaped like the ones a running pmdfwd returns (worker, pool and
// log channel), for pmdctl's tests: fixed inputs to what renders them.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol.hpp"
#include "record_view.hpp"

namespace pmdctl::test {

// A worker record shaped like lib/records/stats_records.cpp's worker_record(): every
// worker keeps rx_pkts + handoff_in == tx_pkts + drops + handoff_out.
inline Json worker_record(uint64_t id, uint64_t rx, uint64_t drops_tx_full,
                          uint64_t handoff_out = 0, uint64_t handoff_in = 0) {
    const uint64_t tx = rx + handoff_in - drops_tx_full - handoff_out;
    return Json{{"worker", id},
                {"lcore", id + 1},
                {"rx_port", id ? "p1" : "p0"},
                {"rx_queue", 0},
                {"tx_port", id ? "p0" : "p1"},
                {"tx_queue", 0},
                {"rx_pkts", rx},
                {"rx_bytes", rx * 64},
                {"tx_pkts", tx},
                {"tx_bytes", tx * 64},
                {"drops", drops_tx_full},
                {"drop_tx_full", drops_tx_full},
                {"drop_handoff_full", 0},
                {"drop_no_route", 0},
                {"drop_runt", 0},
                {"handoff_out", handoff_out},
                {"handoff_in", handoff_in},
                {"polls", 1000},
                {"empty_polls", 250},
                {"busy_tsc", 7000},
                {"idle_tsc", 3000},
                {"cycles_per_pkt", 41},
                {"busy_permille", 700},
                {"burst_1", 10},
                {"burst_2_3", 0},
                {"burst_512_up", 0},
                {"full_bursts", 740}};
}

// The recycle counters, as Appliance::worker() adds them under model
// "recycle" (the worker table's recycle group, in its order).
inline void add_worker_recycle(Json& w, std::vector<uint64_t> values) {
    const auto fields = pmdfwd::kWorkerRecord.group("recycle");
    REQUIRE(values.size() == fields.size());
    for (size_t i = 0; i < values.size(); ++i) w[std::string(fields[i].key)] = values[i];
}

// A pool record shaped like pool_record() plus Appliance::pool()'s "ops".
inline Json stock_pool(const std::string& name, uint64_t size, uint64_t in_use) {
    return Json{{"name", name},
                {"socket", 0},
                {"size", size},
                {"cache_size", 256},
                {"avail", size - in_use},
                {"in_use", in_use},
                {"present_unclamped", size - in_use},
                {"ops", "ring_mp_mc"}};
}

// A recycle pool: the stock fields, then owner, free levels and counters.
inline Json recycle_pool(const std::string& name, uint64_t owner, uint64_t in_use,
                         std::vector<uint64_t> counts) {
    Json p = stock_pool(name, 8192, in_use);
    p["ops"] = "pmdfwd_recycle";
    p["owner_lcore"] = owner;
    p["free_owner_store"] = 6000;
    p["free_pending"] = 32;
    p["free_defer_rings"] = 1024;
    p["free_shared_ring"] = 0;
    p["overflow"] = 0;
    const auto fields = pmdfwd::kPoolRecord.group("recycle");
    REQUIRE(counts.size() == fields.size());
    for (size_t i = 0; i < counts.size(); ++i) p[std::string(fields[i].key)] = counts[i];
    return p;
}

// A /pmdfwd/log dict shaped like NetlogChannel::stats(): 1224 sends timed,
// 42 datagrams dropped (30 by the token bucket, 10 finding the channel busy,
// 2 refused by the TX queue), the pre-filled stack ran dry 3 times. The
// percentiles are what HistogramView::percentile_ns gives for these buckets.
inline Json log_record() {
    return Json{{"enabled", "true"},
                {"port", "p0"},
                {"queue", 1},
                {"src", "10.0.0.1:6665"},
                {"dst", "10.0.0.2:6666"},
                {"dst_mac", "02:00:00:00:00:02"},
                {"format", "extended"},
                {"level", "info"},
                {"send_path", "pool-first"},
                {"rate_limit", 2000},
                {"records", 1200},
                {"datagrams", 1250},
                {"bytes", 312000},
                {"dropped", 42},
                {"drop_rate_limited", 30},
                {"drop_busy", 10},
                {"drop_no_buffer", 0},
                {"drop_tx_full", 2},
                {"drop_stopped", 0},
                {"reserve_size", 512},
                {"reserve_free", 448},
                {"prefill_target", 64},
                {"prefilled", 60},
                {"refilled", 1190},
                {"inline_refills", 0},
                {"reserve_allocs", 3},
                {"emergency_sends", 0},
                {"truncated", 3},
                {"latency_count", 1224},
                {"latency_sum_ns", 492048},
                {"latency_min_ns", 150},
                {"latency_avg_ns", 402},
                {"latency_p50_ns", 447},
                {"latency_p90_ns", 639},
                {"latency_p99_ns", 1791},
                {"latency_p999_ns", 5210},
                {"latency_max_ns", 5210},
                {"latency_le_ns", {191, 447, 639, 1791, 3583, 5631}},
                {"latency_buckets", {12, 980, 200, 30, 0, 2}}};
}

}  // namespace pmdctl::test
