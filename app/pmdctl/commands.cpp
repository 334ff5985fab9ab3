// The command table (see commands.hpp): what each command asks pmdfwd and
// which renderer draws it.
#include "commands.hpp"

#include <chrono>
#include <iostream>
#include <thread>

#include "completion.hpp"
#include "config_commands.hpp"
#include "drop_capture.hpp"
#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "route_load.hpp"
#include "table_columns.hpp"
#include "version.hpp"

namespace pmdctl {

namespace {

namespace ep = pmdfwd::endpoints;

template <class T>
T need(pmdfwd::Result<T> r) {
    if (!r) throw Failure(r.error().message);
    return std::move(r.value());
}

// A value sent as one parameter of a telemetry request: the request's
// parameters are split at commas, so `--via 10.61.1.2,b` would pass b as
// the port; spaces and control characters end or break a request.
const CLI::Validator kOneParameter(
    [](std::string& value) -> std::string {
        for (const char ch : value) {
            if (ch == ',')
                return "'" + value +
                       "' holds a comma, which separates a request's parameters; give one value";
            if (ch == ' ' || uint8_t(ch) < 0x20 || ch == 0x7f)
                return "'" + value + "' holds a space or control character; give one value";
        }
        return {};
    },
    "", "one parameter");

// A list command's records (/pmdfwd/workers, then /pmdfwd/worker,<id> each).
Json records(TelemetryClient& c, const pmdfwd::Endpoint& list, const pmdfwd::Endpoint& item) {
    return Json(need(c.query_each(list, item)));
}

// What a list command fetched, back as the records a renderer takes.
std::vector<Json> list(const Json& j) {
    return j.is_array() ? j.get<std::vector<Json>>() : std::vector<Json>{};
}

Json workers(TelemetryClient& c) { return records(c, ep::kWorkers, ep::kWorker); }

// The info record's version, "?" without one.
std::string version_text(const Json& info) {
    constexpr FieldRef kVersion = pmdfwd::kInfoRecord.ref("version");
    return has(info, kVersion) ? text(info, kVersion) : "?";
}

// /pmdfwd/log; a pmdfwd from before the log channel lacks the command, which
// the client words as "is it pmdfwd?": when /pmdfwd/info answers, it is.
Json query_log(TelemetryClient& c) {
    auto log = c.query(ep::kLog);
    if (log) return std::move(*log);
    if (log.error().code == kNoCommand) {
        if (auto info = c.query(ep::kInfo); info && info->is_object())
            throw Failure("this pmdfwd (version " + version_text(*info) + ", pid " +
                          std::to_string(c.greeting().pid) +
                          ") has no /pmdfwd/log command: it predates the log channel");
    }
    throw Failure(log.error().message);
}

// trace start's parameters: port, count, mode and the filter's bytes in
// hex (a filter has spaces, which a request cannot carry).
std::string trace_start_params(const CommandArgs& a) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string p = (a.port.empty() ? "-" : a.port) + "," + std::to_string(a.trace_count) + "," +
                    (a.drops        ? "drops"
                     : a.continuous ? "continuous"
                                    : "count");
    if (!a.filter.empty()) {
        p += ",";
        for (const unsigned char ch : a.filter) {
            p.push_back(kDigits[ch >> 4]);
            p.push_back(kDigits[ch & 15]);
        }
    }
    return p;
}

// A record that may be an error said in words ({"error": "..."}).
Json need_answer(pmdfwd::Result<Json> r) {
    Json j = need(std::move(r));
    if (j.is_object() && j.contains("error") && j["error"].is_string())
        throw Failure(j["error"].get<std::string>());
    return j;
}

// The sentence of a command that acts ({"result": "stats cleared"}).
std::string result_text(TelemetryClient*, const Json& reply, const CommandArgs&) {
    const Json* result = value(reply, pmdfwd::kResultRecord.ref("result"));
    if (result && result->is_string()) return result->get<std::string>() + '\n';
    return scalar_text(reply) + '\n';
}

// /ethdev/xstats of each port, by the port's name ("port <id>" without one).
// The path is DPDK's own command, not one pmdfwd declares, and its reply
// is DPDK's: no field table describes it.
Json xstats_by_port(TelemetryClient& c) {
    constexpr FieldRef kPortId = pmdfwd::kPortRecord.ref("port_id");
    constexpr FieldRef kName = pmdfwd::kPortRecord.ref("name");
    Json out = Json::object();
    for (const auto& port : records(c, ep::kPorts, ep::kPort)) {
        const std::string id = std::to_string(u64(port, kPortId));
        out[has(port, kName) ? text(port, kName) : "port " + id] =
            need(c.query("/ethdev/xstats", id));
    }
    return out;
}

// "logged a warning of 2500 bytes; the log channel is on", or "logged 100
// warnings of 64 bytes; ...".
std::string log_test_text(TelemetryClient*, const Json& j, const CommandArgs&) {
    constexpr FieldRef kBytes = pmdfwd::kLogTestRecord.ref("bytes");
    constexpr FieldRef kCount = pmdfwd::kLogTestRecord.ref("count");
    constexpr FieldRef kChannel = pmdfwd::kLogTestRecord.ref("channel");
    const std::string count = has(j, kCount) ? text(j, kCount) : "1";
    return "logged " + (count == "1" ? std::string("a warning") : count + " warnings") + " of " +
           text(j, kBytes) + " bytes; the log channel is " + text(j, kChannel) + "\n";
}

Snapshot take_snapshot(TelemetryClient& c, std::chrono::steady_clock::time_point start) {
    using namespace std::chrono;
    const auto before = steady_clock::now();
    const Json records = workers(c);
    const auto after = steady_clock::now();
    Snapshot s;
    // The counters were read somewhere between the two clock reads.
    s.t_s = duration<double>(before + (after - before) / 2 - start).count();
    for (const auto& w : records) s.workers.push_back(worker_counters(w));
    return s;
}

void watch(TelemetryClient& c, const CommandArgs& a) {
    using namespace std::chrono;
    const auto start = steady_clock::now();
    const auto interval = duration_cast<steady_clock::duration>(duration<double>(a.interval_s));
    Snapshot prev = take_snapshot(c, start);
    auto deadline = start;
    for (uint64_t n = 0; a.count == 0 || n < a.count; ++n) {
        // Deadlines, not sleeps, so samples do not drift by the query time;
        // after a stall (suspend, slow replies) start afresh, no catch-up burst.
        deadline += interval;
        if (const auto now = steady_clock::now(); deadline < now) deadline = now;
        std::this_thread::sleep_until(deadline);
        Snapshot cur = take_snapshot(c, start);
        const auto rows = compute_rates(prev, cur);
        const double dt = cur.t_s - prev.t_s;
        if (a.json)
            std::cout << rates_json(rows, cur.t_s, dt)
                             .dump(-1, ' ', false, Json::error_handler_t::replace)
                      << '\n';
        else
            std::cout << (n ? "\n" : "") << render_rates(rows, cur.t_s, dt);
        std::cout.flush();
        prev = std::move(cur);
    }
}

// `pmdctl fields --columns NAME`: the named table's reference.
std::string render_columns(std::string_view name) {
    std::string names;
    for (const auto& t : documented_tables()) {
        if (t.name == name) return columns_markdown(t.columns);
        names += (names.empty() ? "'" : ", '") + std::string(t.name) + "'";
    }
    throw Failure("no table '" + std::string(name) + "': the tables are " + names);
}

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

const Command kCommands[] = {
    {.words = {"show", "ports"},
     .help = "Port link, packet and error counters",
     .asks = {&ep::kPorts, &ep::kPort},
     .fetch = [](TelemetryClient* c,
                 const CommandArgs&) { return records(*c, ep::kPorts, ep::kPort); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_ports(list(j)); }},
    {.words = {"show", "workers"},
     .help = "Per-worker counters, handoff, drop reasons, rx burst sizes, recycle counters",
     .asks = {&ep::kWorkers, &ep::kWorker},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return workers(*c); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_workers(list(j)); }},
    {.words = {"show", "pools"},
     .help = "Mempool ops, owner, sizes, mbufs in use; recycle counters and free objects",
     .asks = {&ep::kPools, &ep::kPool, &ep::kInfo},
     .fetch = [](TelemetryClient* c,
                 const CommandArgs&) { return records(*c, ep::kPools, ep::kPool); },
     .render =
         [](TelemetryClient* c, const Json& j, const CommandArgs&) {
             const Json info = c ? need(c->query(ep::kInfo)) : Json::object();
             return render_pool_model(info) + render_pools(list(j));
         }},
    {.words = {"show", "plan"},
     .help = "Appliance info and the resolved plan",
     .asks = {&ep::kInfo, &ep::kPlan},
     .fetch =
         [](TelemetryClient* c, const CommandArgs&) {
             // pmdctl's own pair of two answers, not a record of pmdfwd's:
             // its keys are strings, and --json prints it as it is.
             return Json{{"info", need(c->query(ep::kInfo))}, {"plan", need(c->query(ep::kPlan))}};
         },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_plan(j["info"], j["plan"]); }},
    {.words = {"show", "latency"},
     .help = "Per-worker residence time (rx burst to tx done): min/avg/p50/p99/max",
     .asks = {&ep::kWorkers, &ep::kLatency},
     .fetch = [](TelemetryClient* c,
                 const CommandArgs&) { return records(*c, ep::kWorkers, ep::kLatency); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs& a) { return render_latency(list(j), a.histogram); },
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_flag("--histogram", a.histogram, "Also print each worker's buckets");
         }},
    {.words = {"show", "log"},
     .help = "The emergency log channel: sent, drops by reason, reserve, send latency",
     .asks = {&ep::kLog, &ep::kInfo},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return query_log(*c); },
     .render = [](TelemetryClient*, const Json& j, const CommandArgs&) { return render_log(j); }},
    {.words = {"show", "xstats"},
     .help = "Extended ethdev stats of every port (/ethdev/xstats)",
     .asks = {&ep::kPorts, &ep::kPort},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return xstats_by_port(*c); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs& a) { return render_xstats(j, a.all); },
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_flag("--all", a.all, "Include counters that are zero");
         }},
    {.words = {"show", "routes"},
     .help = "Router mode: every route with its origin, port, next hop and state",
     .asks = {&ep::kRoutes},
     .fetch = [](TelemetryClient* c,
                 const CommandArgs&) { return need(c->query_pages(ep::kRoutes)); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_routes(j); }},
    {.words = {"show", "neighbours"},
     .help = "Router mode: ARP and ND neighbours, their state, MAC and packets waiting",
     .asks = {&ep::kNeighbours},
     .fetch = [](TelemetryClient* c,
                 const CommandArgs&) { return need(c->query_pages(ep::kNeighbours)); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_neighbours(j); }},
    {.words = {"show", "router"},
     .help = "Router mode: table sizes and the control path's counters (ARP, ND, ICMP)",
     .asks = {&ep::kRouter},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return need(c->query(ep::kRouter)); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_router(j); }},
    {.words = {"show", "config"},
     .help = "The running config as TOML, routes added or deleted at run time included",
     .asks = {&ep::kConfig},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return Json(running_config(*c)); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return j.get<std::string>(); }},
    {.words = {"route", "add"},
     .help = "Router mode: add or replace a route, without stopping a worker",
     .asks = {&ep::kRouteAdd},
     .fetch =
         [](TelemetryClient* c, const CommandArgs& a) {
             // A (via, port) pair a path; the port, if given, for each.
             const std::string port = a.port.empty() ? "-" : a.port;
             std::string params = a.prefix;
             if (a.vias.empty()) params += ",-," + port;
             for (const std::string& via : a.vias) params += "," + via + "," + port;
             return need(c->query(ep::kRouteAdd, params));
         },
     .render = result_text,
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("prefix", a.prefix, "The destination, like 10.9.0.0/16")
                 ->required()
                 ->check(kOneParameter);
             sub.add_option("--via", a.vias,
                            "The next hop: a neighbour on a connected subnet; given again, an "
                            "equal-cost route whose flows spread over each (l3.max_ecmp_groups)")
                 ->check(kOneParameter);
             sub.add_option("--port", a.port,
                            "The port it leaves by (without --via: each destination is "
                            "resolved there)")
                 ->check(kOneParameter);
         }},
    {.words = {"route", "del"},
     .help = "Router mode: delete a static or added route",
     .asks = {&ep::kRouteDel},
     .fetch = [](TelemetryClient* c,
                 const CommandArgs& a) { return need(c->query(ep::kRouteDel, a.prefix)); },
     .render = result_text,
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("prefix", a.prefix, "The route's prefix, like 10.9.0.0/16")
                 ->required()
                 ->check(kOneParameter);
         }},
    {.words = {"route", "load"},
     .help = "Router mode: add, replace and delete many routes from a file, in batches",
     .asks = {&ep::kRouteBatch},
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("file", a.file,
                            "One change a line: 'PREFIX via GATEWAY [port NAME]', 'PREFIX port "
                            "NAME' or 'del PREFIX'; # comments")
                 ->required();
         },
     .run = [](TelemetryClient& c, const CommandArgs& a) { run_route_load(c, a.file, a.json); }},
    {.words = {"trace", "start"},
     .help = "Trace packets through the workers: each step of each, by a filter and a port",
     .asks = {&ep::kTraceStart},
     .fetch =
         [](TelemetryClient* c, const CommandArgs& a) {
             return need_answer(c->query(ep::kTraceStart, trace_start_params(a)));
         },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_trace_state(j); },
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("--port", a.port, "Only packets received on this port")
                 ->check(kOneParameter);
             sub.add_option("--filter", a.filter,
                            "Only packets this tcpdump filter matches, like 'udp port 53'");
             sub.add_option("--count", a.trace_count,
                            "How many packets: the trace stops by itself after them (with "
                            "--continuous: keeps the last this many)")
                 ->check(CLI::Range(uint64_t(1), uint64_t(pmdfwd::kMaxTraceCount)))
                 ->capture_default_str();
             auto* drops = sub.add_flag("--drops", a.drops, "Only packets that are dropped");
             sub.add_flag("--continuous", a.continuous,
                          "Keep tracing, keeping the last --count packets")
                 ->excludes(drops);
         }},
    {.words = {"trace", "show"},
     .help = "The traced packets: headers, then each step (received ... transmitted or dropped)",
     .asks = {&ep::kTrace},
     .fetch = [](TelemetryClient* c,
                 const CommandArgs&) { return need(c->query_pages(ep::kTrace)); },
     .render = [](TelemetryClient*, const Json& j, const CommandArgs&) { return render_trace(j); }},
    {.words = {"trace", "stop"},
     .help = "Stop the trace; what it traced stays for trace show",
     .asks = {&ep::kTraceStop},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return need(c->query(ep::kTraceStop)); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return render_trace_state(j); }},
    {.words = {"drops"},
     .help = "Write the packets pmdfwd drops to a pcapng file, a comment each with its reason",
     .asks = {&ep::kDropsStart, &ep::kDrops, &ep::kDropsStop, &ep::kPorts, &ep::kPort},
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("--pcap", a.pcap, "The pcapng file to write")->required();
             sub.add_option("--count", a.drop_count, "Stop after this many packets")
                 ->check(CLI::Range(uint64_t(1), uint64_t(pmdfwd::kMaxDropCount)))
                 ->capture_default_str();
             sub.add_option("--reason", a.reason,
                            "Only drops of this reason (a drop_<reason> of pmdctl fields)")
                 ->check(kOneParameter);
             sub.add_option("--rate", a.rate, "Copies a second each worker makes at most")
                 ->check(CLI::Range(uint64_t(1), uint64_t(1000000)))
                 ->capture_default_str();
             sub.add_option("--timeout", a.timeout_s, "Stop after this many seconds (0: never)")
                 ->check(CLI::Range(0.0, 86400.0));
         },
     .run =
         [](TelemetryClient& c, const CommandArgs& a) {
             run_drop_capture(c, {a.pcap, a.drop_count, a.rate, a.reason, a.timeout_s, a.json});
         }},
    {.words = {"reload"},
     .help = "Re-read the config file: apply what may change live, refuse what needs a restart",
     .asks = {&ep::kReload},
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_flag("--dry-run", a.dry_run, "Check the file and show the changes only");
         },
     .run = [](TelemetryClient& c, const CommandArgs& a) { run_reload(c, a.dry_run, a.json); }},
    {.words = {"config", "save"},
     .help = "Write the running config to a file (by default the one pmdfwd started with)",
     .asks = {&ep::kConfig, &ep::kInfo},
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("file", a.file, "Where to write it (a temporary file, then renamed)");
         },
     .run = [](TelemetryClient& c, const CommandArgs& a) { run_config_save(c, a.file, a.json); }},
    {.words = {"log", "test"},
     .help = "Log warnings of the given length, to check the log channel end to end",
     .asks = {&ep::kLogTest},
     .fetch =
         [](TelemetryClient* c, const CommandArgs& a) {
             // A single record asks as before the count existed.
             std::string params = std::to_string(a.bytes);
             if (a.log_count != 1) params += "," + std::to_string(a.log_count);
             return need(c->query(ep::kLogTest, params));
         },
     .render = log_test_text,
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("bytes", a.bytes, "Its length in characters")
                 ->required()
                 ->check(CLI::Range(uint64_t(0), uint64_t(pmdfwd::kMaxTestRecord)));
             sub.add_option("--count", a.log_count,
                            "How many, one after the other (a burst for the receiver)")
                 ->check(CLI::Range(uint64_t(1), uint64_t(pmdfwd::kMaxTestRecords)));
         }},
    {.words = {"stats"},
     .help = "Totals since the last clear (with in_flight), and one line per worker",
     .asks = {&ep::kStats, &ep::kWorkers, &ep::kWorker},
     // --json is the /pmdfwd/stats dict as it is; per-worker records are
     // `show workers --json`.
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return need(c->query(ep::kStats)); },
     .render = [](TelemetryClient* c, const Json& totals,
                  const CommandArgs&) { return render_stats(totals, list(workers(*c))); }},
    {.words = {"clear", "stats"},
     .help = "Set a new baseline for worker and port stats",
     .asks = {&ep::kClear},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return need(c->query(ep::kClear)); },
     .render = result_text},
    {.words = {"shutdown"},
     .help = "Ask pmdfwd to stop gracefully",
     .asks = {&ep::kShutdown},
     .fetch = [](TelemetryClient* c, const CommandArgs&) { return need(c->query(ep::kShutdown)); },
     .render = result_text},
    {.words = {"watch"},
     .help = "Per-worker and total rates, every interval",
     .asks = {&ep::kWorkers, &ep::kWorker},
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_option("-i,--interval", a.interval_s,
                            "Seconds between samples (fractional ok)")
                 ->check(kIntervalCheck)
                 ->capture_default_str();
             sub.add_option("-c,--count", a.count, "Samples to print, 0 for until interrupted")
                 ->check(kCountCheck)
                 ->capture_default_str();
         },
     .run = watch},
    {.words = {"fields"},
     .help = "The fields of every record pmdfwd returns: unit, kind, meaning (no pmdfwd needed)",
     .asks = {},
     .fetch = [](TelemetryClient*, const CommandArgs&) { return fields_json(); },
     .render =
         [](TelemetryClient*, const Json&, const CommandArgs& a) {
             return a.columns.empty() ? render_fields(a.markdown) : render_columns(a.columns);
         },
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_flag("--markdown", a.markdown, "As the reference tables of docs/cli.md");
             sub.add_option("--columns", a.columns,
                            "The columns of one of pmdctl's tables ('show workers', 'show "
                            "workers: time', 'show pools'), as docs/cli.md describes them");
         },
     .offline = true},
    {.words = {"endpoints"},
     .help = "Every telemetry endpoint pmdfwd serves: its parameter and answer (no pmdfwd "
             "needed)",
     .asks = {},
     .fetch = [](TelemetryClient*, const CommandArgs&) { return endpoints_json(); },
     .render = [](TelemetryClient*, const Json&,
                  const CommandArgs& a) { return render_endpoints(a.markdown); },
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_flag("--markdown", a.markdown, "As the table of docs/cli.md");
         },
     .offline = true},
    {.words = {"completion"},
     .help = "Bash completion for pmdctl, made from its command table (no pmdfwd needed)",
     .asks = {},
     .fetch = [](TelemetryClient*, const CommandArgs&) { return Json(bash_completion()); },
     .render = [](TelemetryClient*, const Json& j,
                  const CommandArgs&) { return j.get<std::string>(); },
     .offline = true},
    {.words = {"metrics"},
     .help = "The Prometheus metrics pmdfwd exports ([control] metrics), made from those fields "
             "(no pmdfwd needed)",
     .asks = {},
     .fetch = [](TelemetryClient*, const CommandArgs&) { return metrics_json(); },
     .render = [](TelemetryClient*, const Json&,
                  const CommandArgs& a) { return render_metrics(a.markdown); },
     .options =
         [](CLI::App& sub, CommandArgs& a) {
             sub.add_flag("--markdown", a.markdown,
                          "As the reference tables of docs/operations.md");
         },
     .offline = true},
};

const CommandGroup kGroups[] = {
    {"show",
     "Show ports, workers, pools, the plan, latency, xstats, the log channel, or the router's "
     "routes, neighbours and counters"},
    {"clear", "Clear counters"},
    {"route", "Add, delete or load routes (router mode)"},
    {"log", "Check the emergency log channel"},
    {"trace", "Trace packets through the workers, step by step"},
    {"config", "Save the running config"},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }
std::span<const CommandGroup> command_groups() { return kGroups; }

CommandLine::CommandLine() {
    app_.set_version_flag("--version", pmdfwd::kVersion);
    // Global flags may also follow the command: `pmdctl show ports --json`.
    app_.fallthrough();
    // At most one command; a missing one is reported after parsing, so that an
    // unknown word is named as such rather than as "a subcommand is required".
    app_.require_subcommand(-1);
    app_.add_option("-f,--file-prefix", file_prefix,
                    "EAL file prefix of the pmdfwd to talk to (its [eal] file_prefix)")
        ->capture_default_str();
    app_.add_flag("--json", args.json, "Print the raw records as JSON instead of tables");
    const auto group = [&](std::string_view word) {
        for (const auto& [w, sub] : groups_)
            if (w == word) return sub;
        std::string help;
        for (const auto& g : kGroups)
            if (g.word == word) help = g.help;
        CLI::App* sub = app_.add_subcommand(std::string(word), help);
        sub->require_subcommand(-1);
        groups_.emplace_back(word, sub);
        return sub;
    };
    for (const Command& cmd : kCommands) {
        CLI::App* parent = cmd.words.size() > 1 ? group(cmd.words.front()) : &app_;
        CLI::App* sub =
            parent->add_subcommand(std::string(cmd.words.back()), std::string(cmd.help));
        if (cmd.options) cmd.options(*sub, args);
        leaves_.emplace_back(sub, &cmd);
    }
}

const Command& CommandLine::parse(int argc, const char* const* argv) {
    app_.parse(argc, argv);
    // "pmdctl needs one of: show, stats, ..." when a word that groups
    // commands, or nothing at all, came without the command it needs.
    std::vector<const CLI::App*> parents{&app_};
    for (const auto& [word, sub] : groups_) parents.push_back(sub);
    for (const CLI::App* parent : parents) {
        if (!parent->parsed() || !parent->get_subcommands().empty()) continue;
        std::string names;
        for (const CLI::App* sub : parent->get_subcommands({}))
            names += (names.empty() ? "" : ", ") + sub->get_name();
        const std::string who = parent == &app_ ? "pmdctl" : parent->get_name();
        throw CLI::RequiredError(who + " needs one of: " + names, CLI::ExitCodes::RequiredError);
    }
    for (const auto& [sub, cmd] : leaves_)
        if (sub->parsed()) return *cmd;
    throw CLI::RequiredError("pmdctl needs a command", CLI::ExitCodes::RequiredError);
}

}  // namespace pmdctl
