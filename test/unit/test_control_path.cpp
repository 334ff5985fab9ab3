// The control path's own habits: which thread takes the signals that come
// at any moment, warnings rate limited with their suppressions counted, and
// no reader of a worker's counters that waits on the worker without bound.
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <future>
#include <thread>

#include "log_rate_limit.hpp"
#include "signal_mask.hpp"
#include "worker_stats.hpp"

using namespace pmdfwd;

namespace {

sigset_t mask_of_this_thread() {
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, nullptr, &now);
    return now;
}

std::atomic<int> g_handled{0};
extern "C" void count_signal(int) { g_handled.fetch_add(1); }

}  // namespace

TEST_CASE("async_signals: what arrives at any moment, never a fault", "[signals]") {
    const sigset_t s = async_signals();
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGIO, SIGPIPE, SIGRTMIN, SIGRTMIN + 1, SIGRTMAX})
        CHECK(sigismember(&s, sig) == 1);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP})
        CHECK(sigismember(&s, sig) == 0);
}

TEST_CASE("a thread started under block_async_signals inherits the block", "[signals]") {
    const sigset_t before = block_async_signals();
    sigset_t in_thread;
    std::thread([&] { in_thread = mask_of_this_thread(); }).join();
    restore_signal_mask(before);
    CHECK(sigismember(&in_thread, SIGIO) == 1);
    CHECK(sigismember(&in_thread, SIGRTMIN) == 1);
    CHECK(sigismember(&in_thread, SIGTERM) == 1);
    CHECK(sigismember(&in_thread, SIGSEGV) == 0);
    // And the creator has its own mask back.
    const sigset_t after = mask_of_this_thread();
    CHECK(sigismember(&after, SIGIO) == sigismember(&before, SIGIO));
}

// What broke pmdctl under net_tap traffic: a receive with SO_RCVTIMEO, in a
// thread that takes a signal, fails with EINTR even under SA_RESTART. With
// the signals kept off it, it waits for its answer.
TEST_CASE("a timed receive in a thread kept off the signals is not interrupted", "[signals]") {
    struct sigaction sa {};
    sa.sa_handler = count_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    struct sigaction old {};
    REQUIRE(sigaction(SIGIO, &sa, &old) == 0);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);

    for (const bool kept_off : {false, true}) {
        g_handled = 0;
        std::atomic<int> err{0};
        std::atomic<bool> waiting{false};
        const sigset_t before = kept_off ? block_async_signals() : mask_of_this_thread();
        std::thread reader([&] {
            timeval tv{2, 0};
            setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
            char buf[16];
            waiting = true;
            const ssize_t n = recv(sv[1], buf, sizeof(buf), 0);
            err = n < 0 ? errno : 0;
        });
        restore_signal_mask(before);
        while (!waiting) std::this_thread::yield();
        usleep(20000);
        pthread_kill(reader.native_handle(), SIGIO);  // as the kernel picks a thread
        usleep(20000);
        REQUIRE(send(sv[0], "x", 1, 0) == 1);
        reader.join();
        if (kept_off) {
            CHECK(err == 0);  // the signal stays pending for a thread that takes it
        } else {
            CHECK(err == EINTR);
            CHECK(g_handled == 1);
        }
    }
    // The signal left pending on the kept-off thread went with it.
    sigaction(SIGIO, &old, nullptr);
    close(sv[0]);
    close(sv[1]);
}

TEST_CASE("LogRateLimit: a burst, then one line a period, the rest counted", "[log]") {
    constexpr uint64_t kSecond = 1000000000;
    LogRateLimit rl(kSecond, 3);
    uint64_t held = 99;
    const uint64_t t0 = 5 * kSecond;
    CHECK(rl.allow(t0, held));
    CHECK(held == 0);
    CHECK(rl.allow(t0 + 1, held));
    CHECK(rl.allow(t0 + 2, held));
    for (int i = 0; i < 10; ++i) CHECK_FALSE(rl.allow(t0 + 3 + i, held));
    CHECK(rl.held_back_total() == 10);
    CHECK(rl.take_summary(t0 + 100) == 0);  // still limited: nothing to sum up yet
    // One period later one line passes and tells of the ten held back.
    CHECK(rl.allow(t0 + kSecond, held));
    CHECK(held == 10);
    CHECK_FALSE(rl.allow(t0 + kSecond + 1, held));
    // The storm is over: the summary takes the one held back since.
    CHECK(rl.take_summary(t0 + 3 * kSecond) == 1);
    CHECK(rl.take_summary(t0 + 3 * kSecond) == 0);
    // A long quiet refills the burst, not more.
    uint64_t passed = 0;
    for (int i = 0; i < 10; ++i) passed += rl.allow(t0 + 100 * kSecond, held);
    CHECK(passed == 3);
    CHECK(rl.held_back_total() == 11 + 7);
}

// A worker preempted between begin_update and end_update (on a busy host,
// for a time slice or more): the reader, which holds the lock pmdctl,
// scrapes and shutdown share, must come back, with the newest consistent
// counts, not spin until the worker runs again. 10 s is a fuse, not a
// timing: before the bound the read never returned while the bracket was
// open.
TEST_CASE("WorkerStats::read returns while a worker is stopped mid-update", "[stats]") {
    WorkerStats ws;
    WorkerSnapshot delta;
    delta.rx_pkts = 5;
    delta.polls = 1;
    ws.publish(delta);
    CHECK(ws.read().rx_pkts == 5);

    ws.begin_update();  // the worker stops here
    ws.rx_pkts.add(3);
    auto reader = std::async(std::launch::async, [&] { return ws.read(); });
    const bool returned = reader.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    ws.end_update();  // the worker runs again
    const WorkerSnapshot during = reader.get();
    CHECK(returned);
    CHECK(during.rx_pkts == 5);  // the last consistent counts, never half an update
    CHECK(ws.stale_reads() == 1);
    // Once the bracket closes, reads are current again.
    CHECK(ws.read().rx_pkts == 8);
    CHECK(ws.stale_reads() == 1);
}
