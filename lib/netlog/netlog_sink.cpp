// spdlog sink and crash handler for the log channel (see netlog_sink.hpp).
// The sink runs on whatever thread logs; the handler in a signal context, so
// it formats by hand, allocates nothing, and waits only for bounded times.
#include "netlog_sink.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <rte_pause.h>
#include <signal.h>
#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "logging.hpp"
#include "netlog_channel.hpp"
#include "recent_records.hpp"

namespace pmdfwd {

namespace {

std::atomic<NetlogChannel*> g_channel{nullptr};
std::atomic<unsigned> g_senders{0};  // threads inside g_channel->send
std::atomic<uint64_t> g_next_seq{0};
RecentRecords g_recent;
bool g_sink_installed = false;
std::shared_ptr<spdlog::sinks::sink> g_netlog_sink;

// Who logs on this thread, named on its first record (or by the worker
// loop as it starts): read again by the crash path, which cannot ask.
struct WorkerLabel {
    char name[kNetlogWorkerMax];
    uint8_t len;
    bool known;
};
__attribute__((tls_model("initial-exec"))) thread_local WorkerLabel t_worker{};

void set_worker_label(std::string_view name) {
    t_worker.len = uint8_t(std::min(name.size(), sizeof(t_worker.name)));
    std::memcpy(t_worker.name, name.data(), t_worker.len);
    t_worker.known = true;
}

std::string_view this_thread_worker() {
    if (!t_worker.known) {
        // prctl, not pthread_getname_np: this may run in the crash handler,
        // and a system call is async-signal-safe where a libc wrapper is not.
        char name[16] = {};
        if (gettid() == getpid())
            set_worker_label("main");
        else if (prctl(PR_GET_NAME, name) == 0 && name[0] != '\0')
            set_worker_label(std::string_view(name, strnlen(name, sizeof(name))));
        else
            set_worker_label("-");
    }
    return {t_worker.name, t_worker.len};
}

class NetlogSink final : public spdlog::sinks::sink {
  public:
    void log(const spdlog::details::log_msg& msg) override {
        NetlogRecord r;
        r.level = syslog_severity(int(msg.level));
        r.worker = this_thread_worker();
        r.seq = g_next_seq.fetch_add(1, std::memory_order_relaxed);
        r.timestamp_us = uint64_t(
            std::chrono::duration_cast<std::chrono::microseconds>(msg.time.time_since_epoch())
                .count());
        r.text = std::string_view(msg.payload.data(), msg.payload.size());
        g_recent.put(r);
        // seq_cst on both sides: once detach has seen no sender, no sender
        // can still see the channel.
        g_senders.fetch_add(1, std::memory_order_seq_cst);
        if (NetlogChannel* ch = g_channel.load(std::memory_order_seq_cst)) ch->send(r);
        g_senders.fetch_sub(1, std::memory_order_seq_cst);
    }
    void flush() override {}
    void set_pattern(const std::string&) override {}
    void set_formatter(std::unique_ptr<spdlog::formatter>) override {}
};

// --- crash path: no allocation, no stdio ------------------------------------

struct Text {
    char buf[RecentRecords::kTextMax + 64];
    size_t len = 0;
    Text& str(const char* s) {
        while (*s && len < sizeof(buf)) buf[len++] = *s++;
        return *this;
    }
    Text& str(std::string_view s) {
        for (const char c : s)
            if (len < sizeof(buf)) buf[len++] = c;
        return *this;
    }
    Text& num(uint64_t v) {
        char tmp[20];
        size_t n = 0;
        do tmp[n++] = char('0' + v % 10);
        while ((v /= 10) != 0);
        while (n && len < sizeof(buf)) buf[len++] = tmp[--n];
        return *this;
    }
    Text& hex(uintptr_t v) {
        str("0x");
        char tmp[16];
        size_t n = 0;
        do tmp[n++] = "0123456789abcdef"[v & 15];
        while ((v >>= 4) != 0);
        while (n && len < sizeof(buf)) buf[len++] = tmp[--n];
        return *this;
    }
    std::string_view view() const { return {buf, len}; }
};

uint64_t realtime_us() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);  // async-signal-safe
    return uint64_t(ts.tv_sec) * 1000000 + uint64_t(ts.tv_nsec) / 1000;
}

// Standard error first and always: it needs nothing from the channel, and
// without [netlog] it is the only place the report goes.
void emergency_send(NetlogChannel* ch, uint8_t level, std::string_view text, uint64_t timestamp_us,
                    std::string_view worker) {
    (void)!write(STDERR_FILENO, text.data(), text.size());
    (void)!write(STDERR_FILENO, "\n", 1);
    NetlogRecord r;
    r.level = level;
    r.crash = true;
    r.worker = worker;
    r.seq = g_next_seq.fetch_add(1, std::memory_order_relaxed);
    r.timestamp_us = timestamp_us;
    r.text = text;
    if (ch) ch->send_emergency(r);
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
// A handler that hangs (a lock in the unwinder, a stuck queue) must not keep
// a dying process alive: SIGALRM's default action ends it.
constexpr unsigned kHandlerDeadlineS = 2;
std::atomic<bool> g_report_started{false};
std::atomic<bool> g_report_done{false};

void on_fatal_signal(int sig, siginfo_t* info, void*) {
    alarm(kHandlerDeadlineS);
    if (g_report_started.exchange(true)) {
        // Another thread is reporting: let it finish (bounded by its alarm).
        while (!g_report_done.load()) rte_pause();
    } else {
        // Registered as a sender, so shutdown cannot free the channel meanwhile.
        g_senders.fetch_add(1, std::memory_order_seq_cst);
        NetlogChannel* ch = g_channel.load(std::memory_order_seq_cst);
        const uint64_t last_seq = g_next_seq.load();
        const std::string_view me = this_thread_worker();
        Text head;
        const char* abbrev = sigabbrev_np(sig);
        head.str("pmdfwd: fatal signal ")
            .num(uint64_t(sig))
            .str(" (SIG")
            .str(abbrev ? abbrev : "?")
            .str(")");
        if (info->si_code <= 0) {
            // Sent with kill(2), tgkill(2) or sigqueue(3) (abort() included):
            // si_addr then overlays the sender's pid, not a fault address.
            head.str(" sent by pid ").num(uint64_t(info->si_pid));
        } else if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) {
            head.str(" at address ").hex(uintptr_t(info->si_addr));
        }
        head.str("; the last records and a backtrace follow");
        emergency_send(ch, 0, head.view(), realtime_us(), me);
        g_recent.for_each(last_seq, [&](const NetlogRecord& rec) {
            Text t;
            t.str("replay seq ").num(rec.seq).str(": ").str(rec.text);
            emergency_send(ch, rec.level, t.view(), rec.timestamp_us, rec.worker);
        });
        void* frames[64];
        const int n = backtrace(frames, 64);
        for (int i = 0; i < n; ++i) {
            Text t;
            t.str("backtrace #").num(uint64_t(i)).str(" ").hex(uintptr_t(frames[i]));
            Dl_info dl{};
            if (dladdr(frames[i], &dl) && dl.dli_fname) {
                t.str(" ")
                    .str(dl.dli_fname)
                    .str("+")
                    .hex(uintptr_t(frames[i]) - uintptr_t(dl.dli_fbase));
                if (dl.dli_sname)
                    t.str(" (")
                        .str(dl.dli_sname)
                        .str("+")
                        .hex(uintptr_t(frames[i]) - uintptr_t(dl.dli_saddr))
                        .str(")");
            }
            emergency_send(ch, 2, t.view(), realtime_us(), me);
        }
        emergency_send(ch, 0, "pmdfwd: end of crash report", realtime_us(), me);
        g_senders.fetch_sub(1, std::memory_order_seq_cst);
        g_report_done.store(true);
    }
    // Die of the same signal, as without the handler (core dump included).
    signal(sig, SIG_DFL);
    raise(sig);
}

}  // namespace

void netlog_install_sink(const std::string& level) {
    if (g_sink_installed) return;
    g_sink_installed = true;
    auto sink = std::make_shared<NetlogSink>();
    g_netlog_sink = sink;
    sink->set_level(spdlog::level::from_str(level));
    auto logger = spdlog::default_logger();
    logger->sinks().push_back(sink);
    // The logger passes on only what reaches its own level.
    if (sink->level() < logger->level()) logger->set_level(sink->level());
}

void netlog_set_sink_level(const std::string& level) {
    if (!g_netlog_sink) return;
    g_netlog_sink->set_level(spdlog::level::from_str(level));
    lower_logger_to_sinks();
}

void netlog_attach(NetlogChannel* ch) { g_channel.store(ch, std::memory_order_seq_cst); }

void netlog_detach() {
    g_channel.store(nullptr, std::memory_order_seq_cst);
    while (g_senders.load(std::memory_order_seq_cst) != 0) rte_pause();
}

void netlog_protect_this_thread() {
    // The handler needs about 12 KiB (a record's escaped text and a datagram);
    // a thread whose own stack overflowed can still report. Mapped once per
    // thread, not a thread_local array: static TLS is carved out of every
    // thread's stack, and a 64 KiB one overflowed the 100 KiB stacks of the
    // metrics listener's threads.
    constexpr size_t kAltStackBytes = 64 * 1024;
    thread_local void* alt_stack = nullptr;
    if (!alt_stack) {
        void* p = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (p == MAP_FAILED) return;  // no report from an overflowed stack; the rest still works
        alt_stack = p;
    }
    stack_t ss{};
    ss.ss_sp = alt_stack;
    ss.ss_size = kAltStackBytes;
    sigaltstack(&ss, nullptr);
}

void netlog_name_this_worker(unsigned id) {
    char digits[12];
    size_t n = 0;
    do digits[sizeof(digits) - ++n] = char('0' + id % 10);
    while ((id /= 10) != 0);
    set_worker_label(std::string_view(digits + sizeof(digits) - n, n));
}

void netlog_install_crash_handler() {
    // backtrace() loads libgcc on first use, which allocates: not in a handler.
    void* warm[2];
    (void)backtrace(warm, 2);
    netlog_protect_this_thread();
    struct sigaction sa {};
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (const int sig : kFatalSignals) sigaction(sig, &sa, nullptr);
}

}  // namespace pmdfwd
