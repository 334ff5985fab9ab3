// A burst the packet trace or the drop capture observes (observe.hpp): the
// poll loop's other path, taken only while the worker's switch is on.
// Runs on the worker: no lock, no allocation, no system call.
#pragma once

#include <rte_mbuf.h>

#include "forward.hpp"

namespace pmdfwd {

// Forwards pkts as forward_burst does, and meanwhile: the packets the
// trace selects (port, filter, count) go one at a time, each leaving one
// record of its steps in the worker's trace ring, the rest in runs as
// bursts, all in the order received; every drop is offered to the drop
// capture. `queue`: the rx queue they came from.
template <ForwardMode kMode>
void observed_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, uint16_t queue,
                    BurstOutcome& out);

}  // namespace pmdfwd
