// The busy-poll loop of a forwarding worker. One worker polls one (port, rx
// queue); it either owns a TX queue on its output port or hands its bursts
// to the worker that does, and it transmits whatever other workers hand to
// it. Runs on its worker lcore.
#pragma once

#include "worker_context.hpp"

namespace pmdfwd {

// rte_lcore_function_t entry: arg is a WorkerContext*. Returns 0 after *stop.
int worker_main(void* arg);

}  // namespace pmdfwd
