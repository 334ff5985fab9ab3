// A mempool records its ops as an index into the ops table of the process
// that created it. dpdk-dumpcap, a DPDK secondary process, creates the pool
// a capture copies packets into, and pmdfwd's workers allocate from it: the
// two tables must agree on every index dumpcap may use. Main lcore.
#pragma once

#include <string>

namespace pmdfwd {

// pmdfwd's own ops: the recycle driver and the coloured copies.
bool is_pmdfwd_mempool_ops(const char* name);

// Empty when every ops pmdfwd registered comes after every other one in this
// process's table (a secondary registers only the others, in the same order
// when it loads the same driver plugins); else a sentence naming the first
// that does not.
std::string mempool_ops_order_problem();

}  // namespace pmdfwd
