// pmdctl: asks a running pmdfwd questions over its DPDK telemetry socket and
// prints tables for people or --json for scripts. Single thread, no DPDK.
// Exit codes: 0 ok, 1 pmdfwd unreachable or a command failed, 2 usage error.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

#include "render.hpp"
#include "telemetry_client.hpp"
#include "version.hpp"

namespace {

using pmdctl::Json;
using pmdctl::TelemetryClient;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// Carries an error sentence from deep in a command up to main, which prints it.
struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class T>
T need(pmdfwd::Result<T> r) {
    if (!r) throw Failure(r.error().message);
    return std::move(r.value());
}

struct Options {
    std::string file_prefix{pmdctl::kDefaultFilePrefix};
    bool json = false;
    double interval_s = 1.0;
    uint64_t count = 0;  // 0: until interrupted
};

// 10 ms: below that the samples measure the telemetry round trip, not traffic.
const CLI::Validator kIntervalCheck(
    [](std::string& s) -> std::string {
        double v = 0;
        size_t used = 0;
        try {
            v = std::stod(s, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != s.size() || !(v >= 0.01 && v <= 3600))
            return "the interval must be a number of seconds from 0.01 to 3600, not '" + s + "'";
        return {};
    },
    "SECONDS");

// CLI11 2.1 wraps "-1" into a huge unsigned; only plain digits are a count.
const CLI::Validator kCountCheck(
    [](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
            return "the count must be a whole number (0 for until interrupted), not '" + s + "'";
        return {};
    },
    "N");

void print_json(const Json& j, int indent = 2) {
    std::cout << j.dump(indent, ' ', false, Json::error_handler_t::replace) << '\n';
}

void print_result(const Json& reply, const Options& o) {
    if (o.json) return print_json(reply);
    if (reply.is_object() && reply.contains("result") && reply["result"].is_string())
        std::cout << reply["result"].get<std::string>() << '\n';
    else
        std::cout << pmdctl::scalar_text(reply) << '\n';
}

std::vector<Json> workers(TelemetryClient& c) {
    return need(c.query_each("/pmdfwd/workers", "/pmdfwd/worker"));
}

// /pmdfwd/log; a pmdfwd from before the log channel lacks the command, which
// the client words as "is it pmdfwd?": when /pmdfwd/info answers, it is.
Json query_log(TelemetryClient& c) {
    auto log = c.query("/pmdfwd/log");
    if (log) return std::move(*log);
    if (log.error().code == pmdctl::kNoCommand) {
        if (auto info = c.query("/pmdfwd/info"); info && info->is_object())
            throw Failure("this pmdfwd (version " +
                          pmdctl::scalar_text(info->value("version", Json("?"))) + ", pid " +
                          std::to_string(c.greeting().pid) +
                          ") has no /pmdfwd/log command: it predates the log channel");
    }
    throw Failure(log.error().message);
}

pmdctl::Snapshot take_snapshot(TelemetryClient& c, std::chrono::steady_clock::time_point start) {
    using namespace std::chrono;
    const auto before = steady_clock::now();
    const auto records = workers(c);
    const auto after = steady_clock::now();
    pmdctl::Snapshot s;
    // The counters were read somewhere between the two clock reads.
    s.t_s = duration<double>(before + (after - before) / 2 - start).count();
    for (const auto& w : records) s.workers.push_back(pmdctl::worker_counters(w));
    return s;
}

void watch(TelemetryClient& c, const Options& o) {
    using namespace std::chrono;
    const auto start = steady_clock::now();
    const auto interval = duration_cast<steady_clock::duration>(duration<double>(o.interval_s));
    pmdctl::Snapshot prev = take_snapshot(c, start);
    auto deadline = start;
    for (uint64_t n = 0; o.count == 0 || n < o.count; ++n) {
        // Deadlines, not sleeps, so samples do not drift by the query time;
        // after a stall (suspend, slow replies) start afresh, no catch-up burst.
        deadline += interval;
        if (const auto now = steady_clock::now(); deadline < now) deadline = now;
        std::this_thread::sleep_until(deadline);
        pmdctl::Snapshot cur = take_snapshot(c, start);
        const auto rows = pmdctl::compute_rates(prev, cur);
        const double dt = cur.t_s - prev.t_s;
        if (o.json)
            print_json(pmdctl::rates_json(rows, cur.t_s, dt), -1);
        else
            std::cout << (n ? "\n" : "") << pmdctl::render_rates(rows, cur.t_s, dt);
        std::cout.flush();
        prev = std::move(cur);
    }
}

int run(int argc, char** argv) {
    Options o;
    CLI::App app{"pmdctl: query and control a running pmdfwd over its DPDK telemetry socket"};
    app.set_version_flag("--version", pmdfwd::kVersion);
    // Global flags may also follow the command: `pmdctl show ports --json`.
    app.fallthrough();
    // At most one command; a missing one is reported after parsing, so that an
    // unknown word is named as such rather than as "a subcommand is required".
    app.require_subcommand(-1);
    app.add_option("-f,--file-prefix", o.file_prefix,
                   "EAL file prefix of the pmdfwd to talk to (its [eal] file_prefix)")
        ->capture_default_str();
    app.add_flag("--json", o.json, "Print the raw records as JSON instead of tables");

    auto* show = app.add_subcommand(
        "show", "Show ports, workers, pools, the plan, xstats or the log channel");
    show->require_subcommand(-1);
    auto* show_ports = show->add_subcommand("ports", "Port link, packet and error counters");
    auto* show_workers = show->add_subcommand(
        "workers", "Per-worker counters, handoff, drop reasons, rx burst sizes, recycle counters");
    auto* show_pools = show->add_subcommand(
        "pools", "Mempool ops, owner, sizes, mbufs in use; recycle counters and free objects");
    auto* show_plan = show->add_subcommand("plan", "Appliance info and the resolved plan");
    auto* show_latency = show->add_subcommand(
        "latency", "Per-worker residence time (rx burst to tx done): min/avg/p50/p99/max");
    bool latency_histogram = false;
    show_latency->add_flag("--histogram", latency_histogram, "Also print each worker's buckets");
    auto* show_log = show->add_subcommand(
        "log", "The emergency log channel: sent, drops by reason, reserve, send latency");
    bool xstats_all = false;
    auto* show_xstats =
        show->add_subcommand("xstats", "Extended ethdev stats of every port (/ethdev/xstats)");
    show_xstats->add_flag("--all", xstats_all, "Include counters that are zero");

    auto* stats = app.add_subcommand(
        "stats", "Totals since the last clear (with in_flight), and one line per worker");
    auto* clear = app.add_subcommand("clear", "Clear counters");
    clear->require_subcommand(-1);
    auto* clear_stats =
        clear->add_subcommand("stats", "Set a new baseline for worker and port stats");
    auto* shutdown = app.add_subcommand("shutdown", "Ask pmdfwd to stop gracefully");

    auto* watch_cmd = app.add_subcommand("watch", "Per-worker and total rates, every interval");
    watch_cmd->add_option("-i,--interval", o.interval_s, "Seconds between samples (fractional ok)")
        ->check(kIntervalCheck)
        ->capture_default_str();
    watch_cmd->add_option("-c,--count", o.count, "Samples to print, 0 for until interrupted")
        ->check(kCountCheck)
        ->capture_default_str();

    try {
        app.parse(argc, argv);
        for (const CLI::App* parent : {&app, show, clear}) {
            if (parent->parsed() && parent->get_subcommands().empty()) {
                std::string names;
                for (const CLI::App* sub : parent->get_subcommands({}))
                    names += (names.empty() ? "" : ", ") + sub->get_name();
                const std::string who = parent == &app ? "pmdctl" : parent->get_name();
                throw CLI::RequiredError(who + " needs one of: " + names,
                                         CLI::ExitCodes::RequiredError);
            }
        }
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }

    const std::string path =
        pmdctl::telemetry_socket_path(pmdctl::runtime_env_from_process(), o.file_prefix);
    TelemetryClient c = need(TelemetryClient::connect(path, o.file_prefix));

    // A list of records: the JSON array as it is, or the command's table.
    const auto print_records = [&](const std::vector<Json>& records,
                                   std::string (*render)(const std::vector<Json>&)) {
        if (o.json)
            print_json(Json(records));
        else
            std::cout << render(records);
    };
    if (show_ports->parsed()) {
        print_records(need(c.query_each("/pmdfwd/ports", "/pmdfwd/port")), pmdctl::render_ports);
    } else if (show_workers->parsed()) {
        print_records(workers(c), pmdctl::render_workers);
    } else if (show_latency->parsed()) {
        const auto records = need(c.query_each("/pmdfwd/workers", "/pmdfwd/latency"));
        if (o.json)
            print_json(Json(records));
        else
            std::cout << pmdctl::render_latency(records, latency_histogram);
    } else if (show_pools->parsed()) {
        print_records(need(c.query_each("/pmdfwd/pools", "/pmdfwd/pool")), pmdctl::render_pools);
    } else if (show_xstats->parsed()) {
        std::vector<std::pair<std::string, Json>> xs;
        for (const auto& port : need(c.query_each("/pmdfwd/ports", "/pmdfwd/port"))) {
            const std::string id = std::to_string(port.value("port_id", uint64_t(0)));
            xs.emplace_back(port.value("name", std::string("port ") + id),
                            need(c.query("/ethdev/xstats", id)));
        }
        if (o.json) {
            Json j = Json::object();
            for (const auto& [name, x] : xs) j[name] = x;
            print_json(j);
        } else {
            std::cout << pmdctl::render_xstats(xs, xstats_all);
        }
    } else if (show_plan->parsed()) {
        const Json info = need(c.query("/pmdfwd/info"));
        const Json plan = need(c.query("/pmdfwd/plan"));
        if (o.json)
            print_json(Json{{"info", info}, {"plan", plan}});
        else
            std::cout << pmdctl::render_plan(info, plan);
    } else if (show_log->parsed()) {
        const Json log = query_log(c);
        if (o.json)
            print_json(log);
        else
            std::cout << pmdctl::render_log(log);
    } else if (stats->parsed()) {
        // --json is the /pmdfwd/stats dict as it is; per-worker records are
        // `show workers --json`.
        const Json totals = need(c.query("/pmdfwd/stats"));
        if (o.json)
            print_json(totals);
        else
            std::cout << pmdctl::render_stats(totals, workers(c));
    } else if (clear_stats->parsed()) {
        print_result(need(c.query("/pmdfwd/clear")), o);
    } else if (shutdown->parsed()) {
        print_result(need(c.query("/pmdfwd/shutdown")), o);
    } else if (watch_cmd->parsed()) {
        watch(c, o);
    }
    std::cout.flush();
    if (!std::cout) throw Failure("writing to stdout failed");
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pmdctl: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "pmdctl: unexpected error\n");
    }
    return kExitFailed;
}
