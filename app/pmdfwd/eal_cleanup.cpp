// rte_eal_cleanup with a deadline (see eal_cleanup.hpp). Main thread, at
// exit; the watchdog is a plain thread that only waits, logs and exits.
#include "eal_cleanup.hpp"

#include <rte_eal.h>
#include <rte_eal_memconfig.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace pmdfwd {

void eal_cleanup_bounded(unsigned limit_s, int exit_code, const std::function<void()>& finish) {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    std::thread watchdog([&] {
        std::unique_lock lock(mutex);
        if (done_cv.wait_for(lock, std::chrono::seconds(limit_s), [&] { return done; })) return;
        spdlog::error(
            "EAL cleanup has not finished after {} s: a DPDK secondary process (dpdk-dumpcap) "
            "that died while attaching holds EAL's shared memory lock; ports and pools are "
            "already closed, so pmdfwd exits without it",
            limit_s);
        finish();
        spdlog::shutdown();
        ::_exit(exit_code);
    });
#ifdef PMDFWD_TEST_HOOKS
    // What such a secondary leaves behind: the lock held by no live thread.
    if (std::getenv("PMDFWD_TEST_HOLD_EAL_MEM_LOCK")) rte_mcfg_mem_write_lock();
#endif
    rte_eal_cleanup();
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    done_cv.notify_one();
    watchdog.join();
}

}  // namespace pmdfwd
