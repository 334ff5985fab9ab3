// The field table of every record the control plane returns, one per record
// kind, in wire order. Counters come from the lists their owners count with
// (worker_stats.hpp, port_stats.hpp, recycle_counts.hpp, netlog_counters.hpp,
// telemetry_counters.hpp, drop_reasons.hpp); everything else is declared
// here. To add a counter, add a line to its list: the struct, the record,
// pmdctl and the docs check follow. Pure.
#pragma once

#include <span>

#include "burst_histogram.hpp"
#include "counter_list.hpp"
#include "drop_reasons.hpp"
#include "fields.hpp"
#include "join.hpp"
#include "port_stats.hpp"
#include "recycle_counts.hpp"
#include "telemetry_counters.hpp"
#include "worker_stats.hpp"

namespace pmdfwd {

namespace fields {

inline constexpr Field kDrops{"drops", Unit::packets, Kind::counter,
                              "packets dropped, all reasons"};

// Figures derived from the counters, in the worker and the stats records.
inline constexpr Field kDerived[] = {
    {"cycles_per_pkt", Unit::cycles, Kind::gauge,
     "busy cycles per packet: busy_tsc / (rx_pkts + handoff_in)", "cyc/pkt"},
    {"busy_permille", Unit::permille, Kind::gauge,
     "share of the loop's TSC time spent on polls that found work", "busy%"},
    {"idle_permille", Unit::permille, Kind::gauge,
     "share of the loop's TSC time spent on empty polls", "spin%"},
    {"sleep_permille", Unit::permille, Kind::gauge,
     "share of the loop's TSC time asleep or waiting on rx interrupts", "sleep%"},
};

// The rx burst histogram's buckets, a field each, from their table.
constexpr std::array<Field, kBurstBuckets> burst_fields() {
    std::array<Field, kBurstBuckets> out{};
    for (size_t i = 0; i < kBurstBuckets; ++i) {
        const BurstBucket& b = kBurstBucketTable[i];
        out[i] = group_field(b.key, Unit::polls, Tally::counter, b.help, "burst_sizes", b.column,
                             "size");
    }
    return out;
}

// Which worker a record is about, in the worker and the latency records.
inline constexpr Field kWorkerId{"worker", Unit::none, Kind::label,
                                 "the worker's id, its place in the plan"};
inline constexpr Field kRxPort{.key = "rx_port",
                               .kind = Kind::label,
                               .help = "the name of the port it polls",
                               .label = "port"};
inline constexpr Field kRxQueue{
    .key = "rx_queue", .kind = Kind::label, .help = "the rx queue it polls", .label = "queue"};
inline constexpr Field kPoll{"poll", Unit::none, Kind::info,
                             "its poll mode: busy, adaptive or interrupt ([poll] mode, [[port]] "
                             "poll)"};

inline constexpr Field kWorkerHead[] = {
    kWorkerId,
    {"lcore", Unit::none, Kind::info, "the EAL lcore it runs on"},
    kRxPort,
    kRxQueue,
    {"tx_port", Unit::none, Kind::info,
     "the port its packets leave on; - when its rx port is the source of no pair; routed in "
     "mode l3, where each packet's route says"},
    {"tx_queue", Unit::none, Kind::info,
     "the TX queue its packets leave on: its own, or that of the owner it hands them to"},
    kPoll,
    PMDFWD_WORKER_COUNTERS(PMDFWD_LIST_FIELD)  //
    kDrops,
    PMDFWD_DROP_REASONS(PMDFWD_LIST_DROP_FIELD)  //
    kDerived[0],
    kDerived[1],
    kDerived[2],
    kDerived[3],
};

inline constexpr Field kWorkerTail[] = {
    {"cpu_ns", Unit::nanoseconds, Kind::counter,
     "the worker thread's CPU time, as the kernel counts it "
     "(pthread_getcpuclockid)"},
    {"cpu_permille", Unit::permille, Kind::gauge,
     "that CPU time over the wall time: the thread's real share of a core, entering and "
     "leaving sleeps included",
     "cpu%"},
    {"quiet_ns", Unit::nanoseconds, Kind::gauge,
     "how long its loop has gone without progress (the age of its heartbeat); 0 while it sleeps "
     "by choice",
     "quiet"},
    {"hung", Unit::none, Kind::gauge,
     "1 while its loop has made no progress for a second or more (not asleep by choice), else 0"},
#define PMDFWD_WORKER_RECYCLE_FIELD(name, unit, kind, help) \
    group_field("recycle_" #name, Unit::unit, Tally::kind, help, "recycle", #name),
    PMDFWD_RECYCLE_COUNTS(PMDFWD_WORKER_RECYCLE_FIELD)
#undef PMDFWD_WORKER_RECYCLE_FIELD
};

inline constexpr auto kWorkerFields = join<Field>(kWorkerHead, burst_fields(), kWorkerTail);

inline constexpr Field kStatsFields[] = {
    {"workers", Unit::none, Kind::info, "the workers summed"},
    PMDFWD_WORKER_COUNTERS(PMDFWD_LIST_FIELD)  //
    kDrops,
    PMDFWD_DROP_REASONS(PMDFWD_LIST_DROP_FIELD)  //
    kDerived[0],
    kDerived[1],
    kDerived[2],
    kDerived[3],
    {"in_flight", Unit::packets, Kind::gauge,
     "packets handed off and not yet taken by their owner (in handoff rings): handoff_out - "
     "handoff_in since start"},
};

inline constexpr Field kLatencyFields[] = {
    kWorkerId,
    kRxPort,
    kRxQueue,
    kPoll,
    {"enabled", Unit::none, Kind::info,
     "true when [forward] latency keeps the histogram; false: it stays empty"},
    {"residence", Unit::nanoseconds, Kind::histogram,
     "per packet received, the time from its rx burst to the end of that burst's tx_burst"},
};

inline constexpr Field kPortFieldsByKey[] = {
    {"index", Unit::none, Kind::info, "its place among the config's [[port]] tables"},
    {.key = "name", .kind = Kind::label, .help = "its name in the config", .label = "port"},
    {"port_id", Unit::none, Kind::info, "the ethdev port id"},
    {"devargs", Unit::none, Kind::info, "the device it was opened with"},
    {"driver", Unit::none, Kind::info, "the PMD driving it"},
    {"mac", Unit::none, Kind::info, "its MAC address"},
    {"link", Unit::none, Kind::info,
     "up, down, or gone for a net_tap or net_af_packet port whose interface was deleted, as the "
     "main lcore last saw it"},
    {"speed_mbps", Unit::none, Kind::gauge, "the link speed in Mbit/s"},
    {"mtu", Unit::bytes, Kind::info, "its mtu from the config"},
    {"rx_queues", Unit::none, Kind::info,
     "rx queues configured (spare ones a quirk adds included)"},
    {"tx_queues", Unit::none, Kind::info, "TX queues configured (the log channel's included)"},
    PMDFWD_PORT_COUNTERS(PMDFWD_LIST_FIELD)};
// pmdctl's headers for the ethdev counters, in the words of the workers'.
inline constexpr ColumnName kPortColumns[] = {{"ipackets", "rx_pkts"},
                                              {"opackets", "tx_pkts"},
                                              {"ibytes", "rx_bytes"},
                                              {"obytes", "tx_bytes"}};
inline constexpr auto kPortFields = with_columns(kPortFieldsByKey, kPortColumns);

inline constexpr Field kPoolFields[] = {
    {.key = "name",
     .kind = Kind::label,
     .help = "the mempool's name: pmdfwd_w<k> is worker k's, pmdfwd_shared the one pool of model "
             "shared, pmdfwd_spare<p> that of the rx queues a PMD quirk added to port p (polled "
             "by the worker of its rx queue 0), pmdfwd_netlog the log channel's reserve",
     .label = "pool"},
    {"socket", Unit::none, Kind::info, "the NUMA socket of its memory"},
    {"size", Unit::mbufs, Kind::info, "mbufs in the pool"},
    {"cache_size", Unit::mbufs, Kind::info, "DPDK's per-lcore cache size in front of the driver"},
    {"avail", Unit::mbufs, Kind::gauge, "free mbufs: the driver's count plus the lcore caches"},
    {"in_use", Unit::mbufs, Kind::gauge,
     "size - avail: what ports and workers hold (rx rings, bursts in hand, handoff rings)"},
    {"present_unclamped", Unit::mbufs, Kind::gauge,
     "the free count before DPDK clamps it at size: above size means an mbuf was freed twice"},
    {"ops", Unit::none, Kind::info,
     "the mempool driver: pmdfwd_recycle for recycle pools; for stock pools DPDK's default with "
     "coloured placement (ring_mp_mc_colored), or ring_mp_mc itself with [pool] color = false"},
    {"owner_lcore", Unit::none, Kind::info,
     "recycle pools: the lcore that owns the pool (its worker's); - for stock pools", "owner"},
#define PMDFWD_POOL_LEVEL_FIELD(name, unit, kind, help) \
    group_field(#name, Unit::unit, Tally::kind, help, "free_levels"),
#define PMDFWD_POOL_RECYCLE_FIELD(name, unit, kind, help) \
    group_field(#name, Unit::unit, Tally::kind, help, "recycle"),
    PMDFWD_RECYCLE_LEVELS(PMDFWD_POOL_LEVEL_FIELD)  //
    PMDFWD_RECYCLE_COUNTS(PMDFWD_POOL_RECYCLE_FIELD)
#undef PMDFWD_POOL_LEVEL_FIELD
#undef PMDFWD_POOL_RECYCLE_FIELD
};

inline constexpr Field kInfoFields[] = {
    {"version", Unit::none, Kind::info, "pmdfwd's version"},
    {"pid", Unit::none, Kind::info, "its process id"},
    {"config", Unit::none, Kind::info, "the config file it runs"},
    {"file_prefix", Unit::none, Kind::info, "its EAL file prefix"},
    {"mode", Unit::none, Kind::info, "the forwarding mode: patch, l2 or l3"},
    {"burst", Unit::packets, Kind::info, "the rx burst size"},
    {"tx_retries", Unit::none, Kind::info, "extra tx_burst calls before a TX shortfall is a drop"},
    {"read_lengths", Unit::none, Kind::info,
     "true, or false when [forward] read_lengths = false: patch workers then read no frame, so "
     "their rx_bytes and tx_bytes stay 0 and no frame is dropped as oversize"},
    {"pool_model", Unit::none, Kind::info, "recycle, shared or per-worker-stock"},
    {"pool_model_source", Unit::none, Kind::info,
     "default, or config: set by [pool] model (pmdctl show pools says why the default is what it "
     "is)"},
    {"main_lcore", Unit::none, Kind::info, "the control lcore"},
    {"workers", Unit::none, Kind::info, "worker lcores"},
    {"ports", Unit::none, Kind::info, "ports"},
    {"pools", Unit::none, Kind::info, "mempools, spare and log channel pools included"},
    {"tsc_hz", Unit::hertz, Kind::info, "the TSC's rate: cycles per second"},
    {"uptime_s", Unit::seconds, Kind::gauge, "seconds since the appliance started"},
#define PMDFWD_TELEMETRY_FIELD(name, unit, kind, help) \
    list_field("telemetry_" #name, Unit::unit, Tally::kind, help),
    PMDFWD_TELEMETRY_COUNTERS(PMDFWD_TELEMETRY_FIELD)
#undef PMDFWD_TELEMETRY_FIELD
};

}  // namespace fields

inline constexpr RecordSchema kInfoRecord{
    "info", "The appliance: version, settings, sizes, uptime, its telemetry socket.",
    fields::kInfoFields};
inline constexpr RecordSchema kWorkerRecord{
    "worker",
    "One worker: what it polls and sends on, and its counters since the last clear. Each keeps "
    "rx_pkts + handoff_in == tx_pkts + drops + handoff_out + punted. The recycle_ fields are there "
    "with "
    "pool model recycle: the driver's counters as counted on the worker's lcore, summed over the "
    "recycle pools.",
    fields::kWorkerFields};
inline constexpr RecordSchema kStatsRecord{
    "stats",
    "The sums over all workers since the last clear, and what is in flight: rx_pkts == tx_pkts + "
    "drops + punted + in_flight once traffic stops.",
    fields::kStatsFields};
inline constexpr RecordSchema kLatencyRecord{
    "latency", "One worker's residence-time histogram since the last clear.",
    fields::kLatencyFields};
inline constexpr RecordSchema kPortRecord{
    "port", "One port: its config, link, and ethdev counters since the last clear.",
    fields::kPortFields};
inline constexpr RecordSchema kPoolRecord{
    "pool",
    "One mempool: sizes and levels; a recycle pool adds its owner, where its free objects lie and "
    "the driver's counters since the last clear.",
    fields::kPoolFields};
// The records index these families by position: the burst fields are the
// histogram's buckets in order, the drop fields the reasons in order.
static_assert(kWorkerRecord.group("burst_sizes").size() == kBurstBuckets);
static_assert(kWorkerRecord.group("recycle").size() == kPoolRecord.group("recycle").size());
static_assert(kWorkerRecord.group("drops").size() == kDropReasonCount);
static_assert(kStatsRecord.group("drops").size() == kDropReasonCount);

}  // namespace pmdfwd
