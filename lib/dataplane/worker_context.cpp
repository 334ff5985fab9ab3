// Where a worker's context lives (see worker_context.hpp). Main lcore only.
#include "worker_context.hpp"

#include <rte_lcore.h>
#include <rte_malloc.h>

#include <new>

namespace pmdfwd {

void WorkerContextFree::operator()(WorkerContext* w) const {
    if (!w) return;
    w->~WorkerContext();
    rte_free(w);
}

WorkerContextPtr make_worker_context(unsigned lcore) {
    const int socket = int(rte_lcore_to_socket_id(lcore));
    void* mem =
        rte_zmalloc_socket("pmdfwd_worker", sizeof(WorkerContext), alignof(WorkerContext), socket);
    // Another socket's memory is slower, not wrong: better than not starting.
    if (!mem) mem = rte_zmalloc("pmdfwd_worker", sizeof(WorkerContext), alignof(WorkerContext));
    if (!mem) return nullptr;
    return WorkerContextPtr(new (mem) WorkerContext);
}

}  // namespace pmdfwd
