// pmdfwd: load and check the config, start EAL and the appliance, run until
// SIGINT/SIGTERM or a telemetry shutdown, then stop gracefully and audit pools.
// SIGHUP reopens the log file and reloads the config, SIGUSR1 only reopens; SIGPIPE is ignored; a
// fatal signal prints a crash report. Exit codes: 0 ok, 1 start-up failure, 2 bad config, 3 mbufs
// missing at exit, 128 + signal when a fatal (or second stop) signal ends it.
#include <fcntl.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "appliance.hpp"
#include "config_loader.hpp"
#include "dpdk_log.hpp"
#include "eal_args.hpp"
#include "eal_cleanup.hpp"
#include "hugepage_files.hpp"
#include "logging.hpp"
#include "memory_plan.hpp"
#include "netlog_sink.hpp"
#include "plan.hpp"
#include "signal_mask.hpp"
#include "system_check.hpp"
#include "systemd_notify.hpp"
#include "version.hpp"

namespace {

constexpr int kExitStartFailed = 1;
constexpr int kExitBadConfig = 2;
constexpr int kExitPoolsNotFull = 3;
// rte_eal_cleanup takes milliseconds; far longer means a lock nobody will
// release (eal_cleanup.hpp), and systemd's stop timeout is 90 s.
constexpr unsigned kEalCleanupLimitS = 10;

// The config refuses more ports than this build of DPDK can hold.
static_assert(pmdfwd::kMaxPorts <= RTE_MAX_ETHPORTS, "pmdfwd::kMaxPorts is above RTE_MAX_ETHPORTS");

std::atomic<int> g_signal{0};
std::atomic<int> g_reopen_log{0};  // the signal that asked for it
std::atomic<bool> g_reload{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

// The handlers only set flags: the main lcore's loop acts on them.
extern "C" void on_stop_signal(int sig) { g_signal.store(sig); }
// SIGHUP (systemctl reload): reopen the log file and reload the config;
// SIGUSR1 (logrotate's postrotate): reopen the log file only, so that a
// rotation never applies a half-edited file nor drops run-time routes.
extern "C" void on_hangup(int) {
    g_reopen_log.store(SIGHUP);
    g_reload.store(true);
}
extern "C" void on_reopen(int) { g_reopen_log.store(SIGUSR1); }

// The signals pmdfwd handles itself (the fatal ones are the crash report's).
constexpr int kOwnSignals[] = {SIGINT,  SIGTERM, SIGHUP, SIGUSR1, SIGPIPE,
                               SIGSEGV, SIGBUS,  SIGFPE, SIGILL,  SIGABRT};
struct sigaction g_installed[std::size(kOwnSignals)];

// First thing in main: a stop asked for while the config loads or EAL
// starts is remembered, and the normal shutdown (pool audit included) runs
// as soon as start-up is over, instead of the default action killing a
// half-started appliance.
void install_signal_handlers() {
    struct sigaction stop {};
    stop.sa_handler = on_stop_signal;
    // SA_RESETHAND: a second signal takes the default action, so an operator
    // can always end a shutdown that hangs.
    stop.sa_flags = SA_RESTART | SA_RESETHAND;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, nullptr);
    sigaction(SIGTERM, &stop, nullptr);
    struct sigaction hup {};
    hup.sa_handler = on_hangup;
    hup.sa_flags = SA_RESTART;
    sigemptyset(&hup.sa_mask);
    sigaction(SIGHUP, &hup, nullptr);
    struct sigaction usr1 = hup;
    usr1.sa_handler = on_reopen;
    sigaction(SIGUSR1, &usr1, nullptr);
    // A telemetry client that hangs up before its reply is written must cost
    // that write an EPIPE, not the process its life.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, nullptr);
}

void remember_signal_handlers() {
    for (size_t i = 0; i < std::size(kOwnSignals); ++i)
        sigaction(kOwnSignals[i], nullptr, &g_installed[i]);
}

// EAL and the PMDs install handlers of their own (net_tap: a real-time
// signal per packet; EAL: SIGBUS while it maps hugepages); if one took over
// a signal of ours, say so rather than let that signal misbehave unexplained.
void check_signal_handlers() {
    for (size_t i = 0; i < std::size(kOwnSignals); ++i) {
        const int sig = kOwnSignals[i];
        struct sigaction now {};
        sigaction(sig, nullptr, &now);
        if (now.sa_handler == g_installed[i].sa_handler) continue;
        if (sig == g_signal.load() && now.sa_handler == SIG_DFL) continue;  // SA_RESETHAND
        const char* abbrev = sigabbrev_np(sig);
        spdlog::warn(
            "the handler of SIG{} was replaced during start-up: pmdfwd's own "
            "handling of that signal is lost",
            abbrev ? abbrev : "?");
    }
}

// The pid of the DPDK primary process that runs with this file prefix, or 0.
// A primary holds a write lock on its runtime directory's config file for its
// whole life; EAL itself, started on a prefix in use, fails with rte_errno 0.
pid_t prefix_owner(const std::string& prefix) {
    const char* xdg = std::getenv("XDG_RUNTIME_DIR");
    const std::string run = getuid() == 0 ? "/var/run" : (xdg ? xdg : "/tmp");
    const std::string path = run + "/dpdk/" + prefix + "/config";
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return 0;
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    const bool held = fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
    close(fd);
    return held ? lock.l_pid : 0;
}

// Sleeps until `ms` from now on CLOCK_MONOTONIC, to an absolute deadline.
// net_tap signals the process for every packet (a queued real-time signal)
// and this thread takes most of them; interrupted relative sleeps resumed from their remaining
// time (as std::this_thread::sleep_for does) were seen to sleep for seconds
// after a storm of them, and a SIGTERM then went unnoticed that long.
void sleep_ms(long ms) {
    timespec deadline{};
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_nsec += ms * 1000000;
    deadline.tv_sec += deadline.tv_nsec / 1000000000;
    deadline.tv_nsec %= 1000000000;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
    }
}

// SIGHUP: systemd's ExecReload asks for a reload (the config file read
// again, what may change live applied).
void reload(pmdfwd::Appliance& app) {
    std::lock_guard lock(pmdfwd::control_mutex());
    const auto lines = app.reload(false).lines(false);
    spdlog::info("SIGHUP: reload: {}", lines.front());
    for (size_t i = 1; i < lines.size(); ++i) spdlog::info("SIGHUP: reload: {}", lines[i]);
}

// SIGHUP or SIGUSR1: logrotate has moved the file away.
void reopen_log(const pmdfwd::LogConfig& cfg, int sig) {
    const char* name = sig == SIGUSR1 ? "SIGUSR1" : "SIGHUP";
    if (cfg.file.empty()) {
        spdlog::info("{}: no [log] file to reopen", name);
        return;
    }
    spdlog::info("{}: reopening log file '{}'", name, cfg.file);  // the last line in the old file
    if (auto st = pmdfwd::reopen_log_file(); !st)
        spdlog::error("{}: {}; still writing to the file opened before", name, st.error().message);
    else
        spdlog::info("{}: log file '{}' reopened", name, cfg.file);
}

// With capture, EAL keeps its hugepage files linked for secondary processes
// and leaves them at exit, holding their pages: give them back, as
// --huge-unlink would have. A capture still attached keeps its mappings.
void remove_own_hugepage_files(const std::string& prefix) {
    const auto removed = pmdfwd::remove_hugepage_files(prefix, pmdfwd::hugetlbfs_mounts());
    if (removed.count)
        spdlog::info("removed {} hugepage files ({} MiB) of file prefix '{}'", removed.count,
                     removed.bytes >> 20, prefix);
}

// Main lcore: sleeps between checks; the workers do the polling. Returns
// why it stopped.
std::string wait_for_stop(pmdfwd::Appliance& app, const pmdfwd::Config& cfg,
                          pmdfwd::SystemdNotify& systemd) {
    using namespace std::chrono;
    auto next_stats = steady_clock::now() + seconds(app.stats_log_interval_s());
    while (g_signal.load() == 0 && !app.stop_requested()) {
        if (const int sig = g_reopen_log.exchange(0)) reopen_log(cfg.log, sig);
        if (g_reload.exchange(false)) reload(app);
        // A reload may change the stall threshold, and so the period.
        sleep_ms(long(app.housekeeping_period_ms()));
        app.housekeeping();
        systemd.tick(app);
        const uint32_t interval = app.stats_log_interval_s();
        if (interval && steady_clock::now() >= next_stats) {
            spdlog::info("stats: {}", app.totals(pmdfwd::Since::clear).to_line());
            next_stats = steady_clock::now() + seconds(interval);
        }
    }
    if (const int sig = g_signal.load()) {
        const char* abbrev = sigabbrev_np(sig);
        spdlog::info("signal {} (SIG{}) received, stopping", sig, abbrev ? abbrev : "?");
        return std::string("SIG") + (abbrev ? abbrev : "?");
    }
    spdlog::info("shutdown requested over telemetry, stopping");
    return "shutdown over telemetry";
}

}  // namespace

int main(int argc, char** argv) {
    install_signal_handlers();
    CLI::App cli{"pmdfwd: DPDK poll-mode forwarding appliance"};
    std::string config_path;
    bool check_only = false;
    cli.add_option("-c,--config", config_path, "TOML config file")->required();
    bool skip_system_check = false;
    auto* check = cli.add_flag("--check", check_only,
                               "validate the config, print the plan, and exit (0 or 2)");
    cli.add_flag("--no-system-check", skip_system_check,
                 "with --check: skip the checks against this machine (CPUs, memory, hugepages, "
                 "log file), for a config meant for another host")
        ->needs(check);
    cli.set_version_flag("--version", std::string("pmdfwd ") + pmdfwd::kVersion);
    CLI11_PARSE(cli, argc, argv);

    auto loaded = pmdfwd::load_config_file(config_path);
    if (auto* err = std::get_if<pmdfwd::ConfigError>(&loaded)) {
        std::fprintf(stderr, "pmdfwd: config error: %s\n", err->to_string().c_str());
        return kExitBadConfig;
    }
    const auto& cfg = std::get<pmdfwd::Config>(loaded);
    auto planned = pmdfwd::build_plan(cfg);
    if (auto* err = std::get_if<pmdfwd::ConfigError>(&planned)) {
        std::fprintf(stderr, "pmdfwd: config error: %s\n", err->to_string().c_str());
        return kExitBadConfig;
    }
    const auto& plan = std::get<pmdfwd::Plan>(planned);
    if (!skip_system_check) {
        if (auto err =
                pmdfwd::check_against_system(cfg, pmdfwd::read_system_facts(cfg.eal.file_prefix))) {
            std::fprintf(stderr, "pmdfwd: config error: %s\n", err->to_string().c_str());
            return kExitBadConfig;
        }
    }
    if (check_only) {
        std::printf("%s: OK\n", config_path.c_str());
        for (const auto& line : pmdfwd::render_plan(cfg, plan)) std::printf("  %s\n", line.c_str());
        std::printf("  %s\n", pmdfwd::memory_line(cfg, plan).c_str());
        return 0;
    }

    if (auto st = pmdfwd::setup_logging(cfg.log); !st) {
        std::fprintf(stderr, "pmdfwd: config error: %s\n", st.error().message.c_str());
        return kExitBadConfig;
    }
    // The crash report replays the last records, on stderr always and over
    // the log channel when there is one: the sink keeps them either way.
    pmdfwd::netlog_install_sink(cfg.netlog.enabled ? cfg.netlog.level : cfg.log.level);
    pmdfwd::netlog_install_crash_handler();
    // Before EAL, so that its own start-up lines go through the logger too:
    // to the log file, and on the console once, in the same form as the rest.
    if (auto st = pmdfwd::route_dpdk_log(); !st)
        spdlog::warn("{}; DPDK logs to its own stream", st.error().message);
    remember_signal_handlers();
    // The plan is logged once the devices' limits have resolved it (Appliance).
    spdlog::info("pmdfwd {} starting with {}", pmdfwd::kVersion, config_path);

    auto args = pmdfwd::build_eal_args(cfg, plan);
    std::vector<char*> argv_eal;
    for (auto& a : args) argv_eal.push_back(a.data());
    argv_eal.push_back(nullptr);
    if (const pid_t owner = prefix_owner(cfg.eal.file_prefix)) {
        spdlog::critical(
            "file prefix '{}' is in use by another DPDK process (pid {}); give this "
            "pmdfwd its own [eal] file_prefix",
            cfg.eal.file_prefix, owner);
        return kExitStartFailed;
    }
    // Every thread EAL and the appliance start inherits this mask: the
    // signals net_tap raises per packet, and the operator's, go to the main
    // thread alone once start-up is over (its sleeps expect EINTR), never
    // to a control path thread in the middle of a socket call. A stop asked
    // for meanwhile waits, pending, until then.
    const sigset_t main_mask = pmdfwd::block_async_signals();
    if (rte_eal_init(int(args.size()), argv_eal.data()) < 0) {
        // Some EAL failures leave rte_errno at 0 ("Success"): EAL's own
        // messages above say what went wrong then.
        spdlog::critical(
            "EAL initialisation failed: {} (check the [eal] section and ports' devargs)",
            rte_errno ? rte_strerror(rte_errno) : "see EAL's messages above");
        return kExitStartFailed;
    }

    int rc = 0;
    {
        // Pool names need not carry the file prefix: EAL keeps each prefix's
        // memzones apart, and DPDK allows only 25 characters.
        pmdfwd::ShutdownReport unwound;
        auto app = pmdfwd::Appliance::start(cfg, plan, "pmdfwd", &unwound);
        pmdfwd::restore_signal_mask(main_mask);
        if (!app) {
            spdlog::critical("cannot start: {}", app.error().message);
            // A leak outranks the failure: exit 3 is the one that says an
            // mbuf went missing, whenever it happened.
            rc = unwound.pools_full() ? kExitStartFailed : kExitPoolsNotFull;
        } else {
            check_signal_handlers();
            spdlog::info("running: {} worker(s); pmdctl --file-prefix {} show workers",
                         plan.workers.size(), cfg.eal.file_prefix);
            pmdfwd::SystemdNotify systemd;
            systemd.ready(*app.value());
            const std::string why = wait_for_stop(*app.value(), cfg, systemd);
            systemd.stopping(why);
            const auto report = app.value()->shutdown();
            rc = report.pools_full() ? 0 : kExitPoolsNotFull;
        }
    }
    // What the exit owes once EAL is done with its files, or given up on.
    const auto finish = [&] {
        pmdfwd::unroute_dpdk_log();
        if (cfg.eal.hugepages && cfg.control.capture)
            remove_own_hugepage_files(cfg.eal.file_prefix);
        spdlog::info("pmdfwd stopped (exit {})", rc);
    };
    pmdfwd::eal_cleanup_bounded(kEalCleanupLimitS, rc, finish);
    finish();
    return rc;
}
