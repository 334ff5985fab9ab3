// Turns counters into the records the control plane and the log show:
// derived figures (cycles per packet, busy share) are computed here, once.
#pragma once

#include <string>

#include "port.hpp"
#include "pool.hpp"
#include "record.hpp"
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
};

Record worker_record(const WorkerIdentity& who, const WorkerSnapshot& s);
void add_port_stats(Record& r, const PortStats& s);
Record pool_record(const PoolAudit& a, uint64_t cache_size, int64_t avail, int socket);
// The recycle driver's counters, each name with `prefix` in front.
void add_recycle_counts(Record& r, const RecycleCounts& c, const std::string& prefix = "");
void add_recycle_levels(Record& r, const RecycleLevels& l);
// Sum of all workers, for `pmdctl stats` and the shutdown log.
Record totals_record(const std::vector<WorkerSnapshot>& all);

}  // namespace pmdfwd
