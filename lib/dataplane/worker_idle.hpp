// What a worker does when its queues stay empty, by poll mode (see
// PollMode): nothing (busy), pause then sleep longer and longer (adaptive),
// or wait on the rx interrupts of its queues (interrupt). Only the idle path
// calls in here, after idle_polls empty polls in a row; the forwarding path
// stays free of syscalls.
#pragma once

#include <cstdint>

#include "worker_context.hpp"

namespace pmdfwd {

struct IdleState {
    uint64_t empty_run = 0;   // empty polls in a row
    uint32_t sleep_us = 0;    // adaptive: the last sleep
    bool enabled = false;     // interrupt: its queues' rx interrupts are enabled
    bool rearmed = false;     // interrupt: enabled again and polled once since; wait next
    bool recheck = false;     // interrupt: woken by an event that brought no packet (yet)
    bool interrupts = false;  // interrupt: this thread's epoll set holds the queues
};

// On the worker's thread, before the loop: joins its rx queues to the
// thread's epoll set (interrupt mode) and tightens the timer slack so that
// short sleeps are short (adaptive). False when a queue cannot be joined:
// the worker then backs off as adaptive does.
bool idle_start(WorkerContext& w, IdleState& s);
void idle_stop(WorkerContext& w, IdleState& s);

// One step of backing off, on an empty poll at `now` (TSC) once
// s.empty_run >= w.idle_polls. Before sleeping it publishes `pending`, so
// readers never wait for the worker to wake. Returns the TSC after the step.
uint64_t idle_back_off(WorkerContext& w, IdleState& s, WorkerSnapshot& pending, uint64_t now);

// Back to spinning: the first poll with work after backing off.
void idle_leave(WorkerContext& w, IdleState& s);

}  // namespace pmdfwd
