// The bridge from spdlog to the emergency log channel, and the crash path.
// The sink numbers every record at or above the netlog level (gap-free per
// process, so a receiver sees loss), keeps the last ones in memory, and sends
// it when a channel is attached. On SIGSEGV, SIGBUS, SIGFPE, SIGILL and
// SIGABRT the handler sends those records and a backtrace, bounded in time,
// then lets the signal kill the process as it would have.
#pragma once

#include <string>

namespace pmdfwd {

class NetlogChannel;

// Adds the sink to the default logger (once); records below `level` are
// neither numbered nor sent. Main thread, before other threads log.
void netlog_install_sink(const std::string& level);
// Start / stop sending through ch. detach returns once no thread is inside
// the channel any more, so ch can then be destroyed.
void netlog_attach(NetlogChannel* ch);
void netlog_detach();
// The fatal-signal handlers, with an alternate stack for the calling thread.
void netlog_install_crash_handler();
// An alternate signal stack for the calling thread (each worker calls it).
void netlog_protect_this_thread();

}  // namespace pmdfwd
