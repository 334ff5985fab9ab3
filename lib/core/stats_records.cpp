// Counter snapshots -> records (see stats_records.hpp). Control thread.
#include "stats_records.hpp"

#include <map>

namespace pmdfwd {

namespace {

void add_counts(Record& r, const WorkerSnapshot& s) {
    r.add("rx_pkts", s.rx_pkts);
    r.add("rx_bytes", s.rx_bytes);
    r.add("tx_pkts", s.tx_pkts);
    r.add("tx_bytes", s.tx_bytes);
    r.add("drops", s.total_drops());
    for (size_t i = 0; i < kDropReasonCount; ++i)
        r.add(std::string("drop_") + kDropReasons[i].name, s.drops[i]);
    r.add("handoff_out", s.handoff_out);
    r.add("handoff_in", s.handoff_in);
    r.add("polls", s.polls);
    r.add("empty_polls", s.empty_polls);
    r.add("busy_tsc", s.busy_tsc);
    r.add("idle_tsc", s.idle_tsc);
    r.add("sleep_tsc", s.sleep_tsc);
    r.add("wakeups", s.wakeups);
    // A worker's packets: those it received and those handed to it to send.
    const uint64_t pkts = s.rx_pkts + s.handoff_in;
    r.add("cycles_per_pkt", pkts ? s.busy_tsc / pkts : 0);
    // The time split by the loop's clock: forwarding, spinning on empty
    // queues, asleep or waiting on interrupts. Entering and leaving a sleep
    // costs CPU too, so the core's real share is the thread's CPU time
    // (cpu_permille, added by the appliance), not busy + idle.
    const uint64_t total = s.busy_tsc + s.idle_tsc + s.sleep_tsc;
    const auto permille = [&](uint64_t part) { return total ? part * 1000 / total : 0; };
    r.add("busy_permille", permille(s.busy_tsc));
    r.add("idle_permille", permille(s.idle_tsc));
    r.add("sleep_permille", permille(s.sleep_tsc));
}

}  // namespace

Record worker_record(const WorkerIdentity& who, const WorkerSnapshot& s) {
    Record r;
    r.add("worker", who.id);
    r.add("lcore", who.lcore);
    r.add("rx_port", who.rx_port);
    r.add("rx_queue", who.rx_queue);
    r.add("tx_port", who.tx_port.empty() ? std::string("-") : who.tx_port);
    r.add("tx_queue", who.tx_queue);
    r.add("poll", who.poll);
    add_counts(r, s);
    for (size_t b = 0; b < kBurstBuckets; ++b) r.add(burst_bucket_name(b), s.burst_hist[b]);
    r.add("full_bursts", s.full_bursts);
    return r;
}

void add_latency(Record& r, const LatencySummary& l, const std::string& prefix) {
    r.add(prefix + "pkts", l.count);
    const auto ns = [](double v) { return uint64_t(v + 0.5); };
    r.add(prefix + "min_ns", ns(l.min_ns));
    r.add(prefix + "avg_ns", ns(l.avg_ns));
    r.add(prefix + "p50_ns", ns(l.p50_ns));
    r.add(prefix + "p90_ns", ns(l.p90_ns));
    r.add(prefix + "p99_ns", ns(l.p99_ns));
    r.add(prefix + "p999_ns", ns(l.p999_ns));
    r.add(prefix + "max_ns", ns(l.max_ns));
}

void add_latency_buckets(Record& r, const TscSnapshot& s, uint64_t tsc_hz) {
    const auto ns = [&](uint64_t cycles) {
        return uint64_t(double(cycles) * 1e9 / double(tsc_hz ? tsc_hz : 1) + 0.5);
    };
    // Buckets narrower than a nanosecond share a name: merged.
    std::map<uint64_t, uint64_t> by_edge;
    for (size_t i = 0; i < kTscBuckets; ++i)
        if (s.buckets[i]) by_edge[ns(tsc_bucket_high(i))] += s.buckets[i];
    for (const auto& [edge, n] : by_edge) r.add("lt_" + std::to_string(edge) + "_ns", n);
}

void add_port_stats(Record& r, const PortStats& s) {
    r.add("ipackets", s.ipackets);
    r.add("opackets", s.opackets);
    r.add("ibytes", s.ibytes);
    r.add("obytes", s.obytes);
    r.add("imissed", s.imissed);
    r.add("ierrors", s.ierrors);
    r.add("oerrors", s.oerrors);
    r.add("rx_nombuf", s.rx_nombuf);
}

Record pool_record(const PoolAudit& a, uint64_t cache_size, int64_t avail, int socket) {
    Record r;
    r.add("name", a.name);
    r.add("socket", uint64_t(socket < 0 ? 0 : socket));
    r.add("size", a.size);
    r.add("cache_size", cache_size);
    r.add("avail", uint64_t(avail < 0 ? 0 : avail));
    r.add("in_use", a.size > uint64_t(avail) ? a.size - uint64_t(avail) : 0);
    r.add("present_unclamped", uint64_t(a.present < 0 ? 0 : a.present));
    return r;
}

void add_recycle_counts(Record& r, const RecycleCounts& c, const std::string& prefix) {
    for_each_recycle_count(c, c, [&](const RecycleCountInfo& info, uint64_t v, uint64_t) {
        r.add(prefix + info.name, v);
    });
}

void add_recycle_levels(Record& r, const RecycleLevels& l) {
    r.add("free_owner_store", l.owner_store);
    r.add("free_pending", l.pending);
    r.add("free_defer_rings", l.defer_rings);
    r.add("free_shared_ring", l.shared_ring);
    r.add("overflow", l.overflow);
}

uint64_t in_flight_level(const std::vector<WorkerSnapshot>& since_start) {
    WorkerSnapshot sum;
    for (const auto& s : since_start) sum += s;
    return sum.in_flight();
}

Record totals_record(const std::vector<WorkerSnapshot>& all, uint64_t in_flight) {
    WorkerSnapshot sum;
    for (const auto& s : all) sum += s;
    Record r;
    r.add("workers", uint64_t(all.size()));
    add_counts(r, sum);
    r.add("in_flight", in_flight);
    return r;
}

}  // namespace pmdfwd
