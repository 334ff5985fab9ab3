// Signal masks of the control path's threads (see signal_mask.hpp). Any thread.
#include "signal_mask.hpp"

#include <pthread.h>

#include <initializer_list>

namespace pmdfwd {

sigset_t async_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD,
                          SIGIO, SIGPIPE, SIGWINCH})
        sigaddset(&set, sig);
    // glibc keeps the two real-time signals below SIGRTMIN for itself and
    // never lets them be blocked.
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) sigaddset(&set, sig);
    return set;
}

sigset_t block_async_signals() {
    const sigset_t set = async_signals();
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &set, &old);
    return old;
}

void restore_signal_mask(const sigset_t& mask) { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }

}  // namespace pmdfwd
