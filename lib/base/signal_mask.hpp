// Which thread takes the signals that arrive at any moment: net_tap raises
// one for every packet it queues (SIGIO, or the real-time signal set with
// F_SETSIG), and the operator's SIGTERM and SIGHUP come whenever they come.
// A thread that takes one sees its blocking socket calls fail with EINTR
// (always, where SO_RCVTIMEO or SO_SNDTIMEO is set, whatever SA_RESTART
// says), so the control path's threads are kept off them: threads inherit
// their creator's mask, and the main thread, whose sleeps expect EINTR,
// takes them all. The fatal, synchronous signals are never blocked: they
// belong to the thread that faulted and to the crash report.
#pragma once

#include <signal.h>

namespace pmdfwd {

// SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGIO,
// SIGPIPE, SIGWINCH and every real-time signal.
sigset_t async_signals();

// Blocks async_signals() in the calling thread; threads it starts from now
// on inherit the block. Returns the mask it replaced.
sigset_t block_async_signals();

// Puts back a mask that block_async_signals() returned.
void restore_signal_mask(const sigset_t& mask);

}  // namespace pmdfwd
