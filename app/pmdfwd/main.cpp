// pmdfwd: load and check the config, start EAL and the appliance, run until
// SIGINT/SIGTERM or a telemetry shutdown, then stop gracefully and audit pools.
// Exit codes: 0 ok, 1 start-up failure, 2 bad config, 3 mbufs missing at exit.
#include <rte_eal.h>
#include <rte_errno.h>
#include <spdlog/spdlog.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <thread>

#include "../../lib/appliance.hpp"
#include "../../lib/config_loader.hpp"
#include "../../lib/netlog_sink.hpp"
#include "../../lib/eal_args.hpp"
#include "../../lib/logging.hpp"
#include "../../lib/plan.hpp"
#include "../../lib/system_check.hpp"
#include "../../lib/version.hpp"

namespace {

constexpr int kExitStartFailed = 1;
constexpr int kExitBadConfig = 2;
constexpr int kExitPoolsNotFull = 3;

// The config refuses more ports than this build of DPDK can hold.
static_assert(pmdfwd::kMaxPorts <= RTE_MAX_ETHPORTS, "pmdfwd::kMaxPorts is above RTE_MAX_ETHPORTS");

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int sig) { g_signal.store(sig); }

void install_signal_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    // SA_RESETHAND: a second signal takes the default action, so an operator
    // can always end a shutdown that hangs.
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
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

// Main lcore: sleeps between checks; the workers do the polling.
void wait_for_stop(pmdfwd::Appliance& app, const pmdfwd::Config& cfg) {
    using namespace std::chrono;
    auto next_stats = steady_clock::now() + seconds(cfg.control.stats_log_interval_s);
    while (g_signal.load() == 0 && !app.stop_requested()) {
        sleep_ms(20);
        app.housekeeping();
        if (cfg.control.stats_log_interval_s && steady_clock::now() >= next_stats) {
            spdlog::info("stats: {}", app.totals().to_line());
            next_stats += seconds(cfg.control.stats_log_interval_s);
        }
    }
    if (const int sig = g_signal.load())
        spdlog::info("signal {} received, stopping", sig);
    else
        spdlog::info("shutdown requested over telemetry, stopping");
}

}  // namespace

int main(int argc, char** argv) {
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
        if (auto err = pmdfwd::check_against_system(cfg, pmdfwd::read_system_facts())) {
            std::fprintf(stderr, "pmdfwd: config error: %s\n", err->to_string().c_str());
            return kExitBadConfig;
        }
    }
    if (check_only) {
        std::printf("%s: OK\n", config_path.c_str());
        for (const auto& line : pmdfwd::render_plan(cfg, plan)) std::printf("  %s\n", line.c_str());
        return 0;
    }

    if (auto st = pmdfwd::setup_logging(cfg.log); !st) {
        std::fprintf(stderr, "pmdfwd: config error: %s\n", st.error().message.c_str());
        return kExitBadConfig;
    }
    if (cfg.netlog.enabled) {
        pmdfwd::netlog_install_sink(cfg.netlog.level);
        pmdfwd::netlog_install_crash_handler();
    }
    // The plan is logged once the devices' limits have resolved it (Appliance).
    spdlog::info("pmdfwd {} starting with {}", pmdfwd::kVersion, config_path);

    auto args = pmdfwd::build_eal_args(cfg, plan);
    std::vector<char*> argv_eal;
    for (auto& a : args) argv_eal.push_back(a.data());
    argv_eal.push_back(nullptr);
    if (rte_eal_init(int(args.size()), argv_eal.data()) < 0) {
        spdlog::critical("EAL initialisation failed: {} (check the [eal] section and ports' devargs)",
                         rte_strerror(rte_errno));
        return kExitStartFailed;
    }
    install_signal_handlers();

    int rc = 0;
    {
        // Pool names need not carry the file prefix: EAL keeps each prefix's
        // memzones apart, and DPDK allows only 25 characters.
        auto app = pmdfwd::Appliance::start(cfg, plan);
        if (!app) {
            spdlog::critical("cannot start: {}", app.error().message);
            rc = kExitStartFailed;
        } else {
            spdlog::info("running: {} worker(s); pmdctl --file-prefix {} show workers",
                         plan.workers.size(), cfg.eal.file_prefix);
            wait_for_stop(*app.value(), cfg);
            const auto report = app.value()->shutdown();
            rc = report.pools_full() ? 0 : kExitPoolsNotFull;
        }
    }
    rte_eal_cleanup();
    spdlog::info("pmdfwd stopped (exit {})", rc);
    return rc;
}
