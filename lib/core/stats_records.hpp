// Turns counters into the records the control plane and the log show:
// derived figures (cycles per packet, busy share) are computed here, once.
#pragma once

#include <string>

#include "pool_audit.hpp"
#include "port_stats.hpp"
#include "record.hpp"
#include "recycle_counts.hpp"
#include "tsc_histogram.hpp"
#include "worker_stats.hpp"

namespace pmdfwd {

struct WorkerIdentity {
    unsigned id = 0;
    unsigned lcore = 0;
    std::string rx_port;
    uint16_t rx_queue = 0;
    std::string tx_port;  // empty: no pair
    uint16_t tx_queue = 0;
    std::string poll = "busy";
};

Record worker_record(const WorkerIdentity& who, const WorkerSnapshot& s);
void add_port_stats(Record& r, const PortStats& s);
// min/avg/p50/p90/p99/p99.9/max of a latency histogram, `prefix` in front.
void add_latency(Record& r, const LatencySummary& l, const std::string& prefix);
// One "lt_<upper edge>_ns" count per non-empty bucket, lowest first: the
// values below that edge and at or above the previous field's.
void add_latency_buckets(Record& r, const TscSnapshot& s, uint64_t tsc_hz);
Record pool_record(const PoolAudit& a, uint64_t cache_size, int64_t avail, int socket);
// The recycle driver's counters, each name with `prefix` in front.
void add_recycle_counts(Record& r, const RecycleCounts& c, const std::string& prefix = "");
void add_recycle_levels(Record& r, const RecycleLevels& l);
// What sits in handoff rings now: sum of handoff_out - handoff_in over the
// workers' counters since start (not since a clear: it is a level).
uint64_t in_flight_level(const std::vector<WorkerSnapshot>& since_start);
// Sum of all workers, for `pmdctl stats` and the shutdown log; in_flight is
// the level above, so rx == tx + drops + in_flight holds when nothing was
// in flight at the last clear.
Record totals_record(const std::vector<WorkerSnapshot>& all, uint64_t in_flight);

}  // namespace pmdfwd
