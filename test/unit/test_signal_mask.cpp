// Which thread takes the signals that come at any moment (signal_mask.hpp):
// the set that may arrive, its block inherited by the threads started under
// it, and a timed receive that a signal kept off its thread cannot cut short.
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <thread>

#include "signal_mask.hpp"

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
