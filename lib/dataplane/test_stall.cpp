// The stall a test asks for (see TestStall in worker_context.hpp). Compiled
// only into test/pmdfwd_hooks, with PMDFWD_TEST_HOOKS: a release build has
// neither this file nor a call to it.
#include <rte_cycles.h>
#include <rte_pause.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "worker_context.hpp"

namespace pmdfwd {

void load_test_stall(WorkerContext& w) {
    const char* spec = std::getenv("PMDFWD_TEST_STALL");  // "worker:phase:after_ms:for_ms"
    if (!spec) return;
    unsigned worker = 0;
    char phase[16] = {};
    unsigned long after_ms = 0, for_ms = 0;
    if (std::sscanf(spec, "%u:%15[a-z]:%lu:%lu", &worker, phase, &after_ms, &for_ms) != 4) return;
    if (worker != w.id) return;
    for (const LoopPhase p :
         {LoopPhase::rx, LoopPhase::forward, LoopPhase::tx, LoopPhase::handoff, LoopPhase::idle}) {
        if (to_string(p) != phase) continue;
        const uint64_t hz = rte_get_tsc_hz();
        w.test_stall.worker = w.id;
        w.test_stall.phase = p;
        w.test_stall.at_tsc = rte_rdtsc() + after_ms * hz / 1000;
        w.test_stall.for_cycles = for_ms * hz / 1000;
    }
}

void test_stall_point(const WorkerContext& w, LoopPhase p) {
    TestStall& t = w.test_stall;
    if (t.for_cycles == 0 || t.phase != p) return;
    const uint64_t now = rte_rdtsc();
    if (now < t.at_tsc) return;
    const uint64_t until = now + t.for_cycles;
    t.for_cycles = 0;  // once
    while (rte_rdtsc() < until) rte_pause();
}

}  // namespace pmdfwd
