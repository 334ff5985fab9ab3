// Turns counters into the records the control plane and the log show
// (record_schemas.hpp): derived figures (cycles per packet, time shares) are
// computed here, once. Pure.
#pragma once

#include <string>
#include <vector>

#include "endpoint.hpp"
#include "histogram.hpp"
#include "pool_audit.hpp"
#include "port_stats.hpp"
#include "record.hpp"
#include "record_schemas.hpp"
#include "recycle_counts.hpp"
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

// The worker record's identity and counters; the appliance adds the CPU
// share and, with recycle pools, the recycle counters.
Record worker_record(const WorkerIdentity& who, const WorkerSnapshot& s);
// The recycle counters of a worker's lcore (its recycle_ fields).
void add_worker_recycle_counts(Record& r, const RecycleCounts& c);
// What sits in handoff rings now: sum of handoff_out - handoff_in over the
// workers' counters since start (not since a clear: it is a level).
uint64_t in_flight_level(const std::vector<WorkerSnapshot>& since_start);
// Sum of all workers, for `pmdctl stats` and the shutdown log; in_flight is
// the level above, so rx == tx + drops + in_flight holds when nothing was
// in flight at the last clear.
Record totals_record(const std::vector<WorkerSnapshot>& all, uint64_t in_flight);
// One worker's residence histogram, in ns.
Record latency_record(const WorkerIdentity& who, bool enabled, const HistogramSnapshot& residence,
                      uint64_t tsc_hz);

struct PortIdentity {
    uint64_t index = 0;
    std::string name;
    uint64_t port_id = 0;
    std::string devargs, driver, mac, link;
    uint64_t speed_mbps = 0, mtu = 0, rx_queues = 0, tx_queues = 0;
};
Record port_record(const PortIdentity& who, const PortStats& s);
// A port record with only the counters (the shutdown log's line).
Record port_counters_record(const PortStats& s);

Record pool_record(const PoolAudit& a, uint64_t cache_size, int64_t avail, int socket,
                   const std::string& ops);
// A recycle pool's owner, free levels and counters.
void add_recycle_pool(Record& r, unsigned owner_lcore, const RecycleLevels& l,
                      const RecycleCounts& c);

Record result_record(const char* result);

}  // namespace pmdfwd
