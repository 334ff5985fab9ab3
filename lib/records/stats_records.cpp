// Counter snapshots -> records (see stats_records.hpp). Control thread.
#include "stats_records.hpp"

namespace pmdfwd {

namespace {

// Where the counts the worker and the stats records share sit in each
// one's table, found when the program is compiled.
struct CountFields {
    FieldId counters[kWorkerCounterCount];  // PMDFWD_WORKER_COUNTERS' order
    FieldId drops, first_drop, cycles_per_pkt, busy_permille, idle_permille, sleep_permille;
};

consteval CountFields count_fields(const RecordSchema& t) {
    CountFields f{};
    size_t i = 0;
#define PMDFWD_COUNTER_AT(name, unit, kind, help) f.counters[i++] = t.at(#name);
    PMDFWD_WORKER_COUNTERS(PMDFWD_COUNTER_AT)
#undef PMDFWD_COUNTER_AT
    f.drops = t.at("drops");
    f.first_drop = t.group_first("drops");
    f.cycles_per_pkt = t.at("cycles_per_pkt");
    f.busy_permille = t.at("busy_permille");
    f.idle_permille = t.at("idle_permille");
    f.sleep_permille = t.at("sleep_permille");
    return f;
}

constexpr CountFields kWorkerCounts = count_fields(kWorkerRecord);
constexpr CountFields kStatsCounts = count_fields(kStatsRecord);

// The counters, the drop reasons and the figures derived from them: what
// the worker and the stats records share, each set through its own table.
void add_counts(Record& r, const CountFields& f, const WorkerSnapshot& s) {
    size_t i = 0;
#define PMDFWD_SET_COUNTER(name, unit, kind, help) r.set(f.counters[i++], s.name);
    PMDFWD_WORKER_COUNTERS(PMDFWD_SET_COUNTER)
#undef PMDFWD_SET_COUNTER
    r.set(f.drops, s.total_drops());
    for (size_t d = 0; d < kDropReasonCount; ++d) r.set(Record::next(f.first_drop, d), s.drops[d]);
    // A worker's packets: those it received and those handed to it to send.
    const uint64_t pkts = s.rx_pkts + s.handoff_in;
    r.set(f.cycles_per_pkt, pkts ? s.busy_tsc / pkts : 0);
    // The time split by the loop's clock: forwarding, spinning on empty
    // queues, asleep or waiting on interrupts. Entering and leaving a sleep
    // costs CPU too, so the core's real share is the thread's CPU time
    // (cpu_permille, added by the appliance), not busy + idle.
    const uint64_t total = s.busy_tsc + s.idle_tsc + s.sleep_tsc;
    const auto permille = [&](uint64_t part) { return total ? part * 1000 / total : 0; };
    r.set(f.busy_permille, permille(s.busy_tsc));
    r.set(f.idle_permille, permille(s.idle_tsc));
    r.set(f.sleep_permille, permille(s.sleep_tsc));
}

void add_identity(Record& r, const WorkerIdentity& who) {
    r.set(kWorkerRecord.at("worker"), who.id);
    r.set(kWorkerRecord.at("lcore"), who.lcore);
    r.set(kWorkerRecord.at("rx_port"), who.rx_port);
    r.set(kWorkerRecord.at("rx_queue"), who.rx_queue);
    r.set(kWorkerRecord.at("tx_port"), who.tx_port.empty() ? std::string("-") : who.tx_port);
    r.set(kWorkerRecord.at("tx_queue"), who.tx_queue);
    r.set(kWorkerRecord.at("poll"), who.poll);
}

}  // namespace

Record worker_record(const WorkerIdentity& who, const WorkerSnapshot& s) {
    Record r(kWorkerRecord);
    add_identity(r, who);
    add_counts(r, kWorkerCounts, s);
    constexpr FieldId kFirstBurst = kWorkerRecord.group_first("burst_sizes");
    for (size_t b = 0; b < kBurstBuckets; ++b) r.set(Record::next(kFirstBurst, b), s.burst_hist[b]);
    return r;
}

void add_worker_recycle_counts(Record& r, const RecycleCounts& c) {
#define PMDFWD_SET_RECYCLE(name, unit, kind, help) \
    r.set(kWorkerRecord.at("recycle_" #name), c.name);
    PMDFWD_RECYCLE_COUNTS(PMDFWD_SET_RECYCLE)
#undef PMDFWD_SET_RECYCLE
}

uint64_t in_flight_level(const std::vector<WorkerSnapshot>& since_start) {
    WorkerSnapshot sum;
    for (const auto& s : since_start) sum += s;
    return sum.in_flight();
}

Record totals_record(const std::vector<WorkerSnapshot>& all, uint64_t in_flight) {
    WorkerSnapshot sum;
    for (const auto& s : all) sum += s;
    Record r(kStatsRecord);
    r.set(kStatsRecord.at("workers"), uint64_t(all.size()));
    add_counts(r, kStatsCounts, sum);
    r.set(kStatsRecord.at("in_flight"), in_flight);
    return r;
}

Record latency_record(const WorkerIdentity& who, bool enabled, const HistogramSnapshot& residence,
                      uint64_t tsc_hz) {
    Record r(kLatencyRecord);
    r.set(kLatencyRecord.at("worker"), who.id);
    r.set(kLatencyRecord.at("rx_port"), who.rx_port);
    r.set(kLatencyRecord.at("rx_queue"), who.rx_queue);
    r.set(kLatencyRecord.at("poll"), who.poll);
    r.set(kLatencyRecord.at("enabled"), enabled ? "true" : "false");
    r.set(kLatencyRecord.at("residence"), histogram_view(residence, tsc_hz));
    return r;
}

Record port_counters_record(const PortStats& s) {
    Record r(kPortRecord);
#define PMDFWD_SET_PORT(name, unit, kind, help) r.set(kPortRecord.at(#name), s.name);
    PMDFWD_PORT_COUNTERS(PMDFWD_SET_PORT)
#undef PMDFWD_SET_PORT
    return r;
}

Record port_record(const PortIdentity& who, const PortStats& s) {
    Record r = port_counters_record(s);
    r.set(kPortRecord.at("index"), who.index);
    r.set(kPortRecord.at("name"), who.name);
    r.set(kPortRecord.at("port_id"), who.port_id);
    r.set(kPortRecord.at("devargs"), who.devargs);
    r.set(kPortRecord.at("driver"), who.driver);
    r.set(kPortRecord.at("mac"), who.mac);
    r.set(kPortRecord.at("link"), who.link);
    r.set(kPortRecord.at("speed_mbps"), who.speed_mbps);
    r.set(kPortRecord.at("mtu"), who.mtu);
    r.set(kPortRecord.at("rx_queues"), who.rx_queues);
    r.set(kPortRecord.at("tx_queues"), who.tx_queues);
    return r;
}

Record pool_record(const PoolAudit& a, uint64_t cache_size, int64_t avail, int socket,
                   const std::string& ops) {
    Record r(kPoolRecord);
    r.set(kPoolRecord.at("name"), a.name);
    r.set(kPoolRecord.at("socket"), uint64_t(socket < 0 ? 0 : socket));
    r.set(kPoolRecord.at("size"), a.size);
    r.set(kPoolRecord.at("cache_size"), cache_size);
    r.set(kPoolRecord.at("avail"), uint64_t(avail < 0 ? 0 : avail));
    r.set(kPoolRecord.at("in_use"), a.size > uint64_t(avail) ? a.size - uint64_t(avail) : 0);
    r.set(kPoolRecord.at("present_unclamped"), uint64_t(a.present < 0 ? 0 : a.present));
    r.set(kPoolRecord.at("ops"), ops);
    return r;
}

void add_recycle_pool(Record& r, unsigned owner_lcore, const RecycleLevels& l,
                      const RecycleCounts& c) {
    r.set(kPoolRecord.at("owner_lcore"), uint64_t(owner_lcore));
#define PMDFWD_SET_LEVEL(name, unit, kind, help) r.set(kPoolRecord.at(#name), l.name);
    PMDFWD_RECYCLE_LEVELS(PMDFWD_SET_LEVEL)
#undef PMDFWD_SET_LEVEL
#define PMDFWD_SET_COUNT(name, unit, kind, help) r.set(kPoolRecord.at(#name), c.name);
    PMDFWD_RECYCLE_COUNTS(PMDFWD_SET_COUNT)
#undef PMDFWD_SET_COUNT
}

Record result_record(const char* result) {
    Record r(kResultRecord);
    r.set(kResultRecord.at("result"), result);
    return r;
}

}  // namespace pmdfwd
