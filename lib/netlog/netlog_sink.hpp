// The bridge from spdlog to the emergency log channel, and the crash path.
// The sink numbers every record at or above its level (gap-free per process,
// so a receiver sees loss), keeps the last ones in memory, and sends it when
// a channel is attached. On SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT the
// handler writes a report (the signal, the fault address or the sender's
// pid, those records, a backtrace) to stderr, and to the channel when one is
// attached, bounded in time, then lets the signal kill the process as it
// would have (exit status 128 + signal).
#pragma once

#include <string>

namespace pmdfwd {

class NetlogChannel;

// Adds the sink to the default logger (once); records below `level` are
// neither numbered, kept nor sent. Installed without [netlog] too (at the
// log level), so the crash report has records to replay. Main thread,
// before other threads log.
void netlog_install_sink(const std::string& level);
// A reload: the sink's level (the channel's, or the log's without one).
void netlog_set_sink_level(const std::string& level);
// Start / stop sending through ch. detach returns once no thread is inside
// the channel any more, so ch can then be destroyed.
void netlog_attach(NetlogChannel* ch);
void netlog_detach();
// The fatal-signal handlers, with an alternate stack for the calling thread;
// loads what backtrace() needs first, so the handler does not allocate.
void netlog_install_crash_handler();
// An alternate signal stack for the calling thread (each worker calls it).
void netlog_protect_this_thread();
// The calling thread is worker `id`: its records name it (rfc5424's worker
// parameter). Any other thread is named "main" or by its thread name.
void netlog_name_this_worker(unsigned id);

}  // namespace pmdfwd
