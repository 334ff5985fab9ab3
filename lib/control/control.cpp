// Telemetry command handlers (see control.hpp). Telemetry thread.
#include "control.hpp"

#include <rte_telemetry.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <type_traits>

#include "stats_records.hpp"
#include "token_bucket.hpp"

namespace pmdfwd {

namespace {

std::mutex g_mutex;
ControlTarget* g_target = nullptr;

// A record as a flat dict, in its table's order; an array (a histogram's
// edges and counts) as a u64 array container, which DPDK 22.11 nests one
// level deep.
void put_record(rte_tel_data* d, const Record& r) {
    rte_tel_data_start_dict(d);
    r.for_each_wire([&](std::string_view key, const WireValue& value) {
        const std::string name(key);
        if (const auto* u = std::get_if<uint64_t>(&value)) {
            rte_tel_data_add_dict_u64(d, name.c_str(), *u);
        } else if (const auto* s = std::get_if<std::string>(&value)) {
            rte_tel_data_add_dict_string(d, name.c_str(),
                                         s->substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
        } else {
            const auto& a = std::get<std::vector<uint64_t>>(value);
            rte_tel_data* array = rte_tel_data_alloc();
            if (!array) return;
            rte_tel_data_start_array(array, RTE_TEL_U64_VAL);
            for (size_t i = 0; i < a.size() && i < RTE_TEL_MAX_ARRAY_ENTRIES; ++i)
                rte_tel_data_add_array_u64(array, a[i]);
            if (rte_tel_data_add_dict_container(d, name.c_str(), array, 0) != 0)
                rte_tel_data_free(array);
        }
    });
}

void put_ids(rte_tel_data* d, size_t count) {
    rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
    for (size_t i = 0; i < count; ++i) rte_tel_data_add_array_u64(d, i);
}

// Parses a decimal index param; false on anything else.
bool parse_index(const char* params, size_t limit, size_t& out) {
    if (!params || !*params) return false;
    char* end = nullptr;
    errno = 0;
    const unsigned long v = std::strtoul(params, &end, 10);
    if (errno || *end != '\0' || params[0] == '-' || params[0] == '+' || v >= limit) return false;
    out = v;
    return true;
}

// A command that takes no parameter refuses one, rather than act as if it
// had not been given (/pmdfwd/clear,garbage must not clear).
bool no_params(const char* params) { return !params || !*params; }

template <class Fn>
int with_target(rte_tel_data* d, Fn&& fn) {
    std::lock_guard lock(g_mutex);
    if (!g_target) {
        rte_tel_data_start_dict(d);
        rte_tel_data_add_dict_string(d, "error", "pmdfwd is shutting down");
        return 0;
    }
    return fn(*g_target);
}

template <auto kGet>
int cmd_record(const char*, const char* params, rte_tel_data* d) {
    if (!no_params(params)) return -EINVAL;
    return with_target(d, [&](ControlTarget& t) {
        if constexpr (std::is_invocable_r_v<Record, decltype(kGet), ControlTarget&, Since>)
            put_record(d, (t.*kGet)(Since::clear));
        else
            put_record(d, (t.*kGet)());
        return 0;
    });
}

int cmd_plan(const char*, const char* params, rte_tel_data* d) {
    if (!no_params(params)) return -EINVAL;
    return with_target(d, [&](ControlTarget& t) {
        rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
        for (const auto& line : t.plan_lines())
            rte_tel_data_add_array_string(d, line.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
        return 0;
    });
}

// A list command (ids, like /ethdev/list) and its per-item command
// (/pmdfwd/worker,<id>), for workers, ports and pools alike.
template <size_t (ControlTarget::*kCount)() const>
int cmd_list(const char*, const char* params, rte_tel_data* d) {
    if (!no_params(params)) return -EINVAL;
    return with_target(d, [&](ControlTarget& t) {
        put_ids(d, (t.*kCount)());
        return 0;
    });
}

template <size_t (ControlTarget::*kCount)() const,
          Record (ControlTarget::*kItem)(size_t, Since) const>
int cmd_item(const char*, const char* params, rte_tel_data* d) {
    return with_target(d, [&](ControlTarget& t) {
        size_t i;
        if (!parse_index(params, (t.*kCount)(), i)) return -EINVAL;
        put_record(d, (t.*kItem)(i, Since::clear));
        return 0;
    });
}

// A command that acts and says what it did.
constexpr char kCleared[] = "stats cleared";
constexpr char kStopping[] = "shutdown requested";
template <void (ControlTarget::*kAct)(), const char* kResult>
int cmd_act(const char*, const char* params, rte_tel_data* d) {
    if (!no_params(params)) return -EINVAL;
    return with_target(d, [&](ControlTarget& t) {
        (t.*kAct)();
        put_record(d, result_record(kResult));
        return 0;
    });
}

// The longest test record: twice the log channel's record limit
// (kNetlogRecordMax), so that the cut of a record too long for netconsole
// can be checked end to end.
constexpr size_t kMaxTestRecord = 16 * 1024;

// Each test record is a warning on every log sink: a client looping on
// log_test must not flood the log or take the log channel's rate for itself.
// Counted in records and in bytes: two of the longest at once, then 4 KB a
// second (about 340 MB a day at most, where 16 KB a request was 1.4 GB an
// hour).
constexpr uint32_t kLogTestsPerSecond = 5;
constexpr uint32_t kLogTestBurst = 10;
constexpr uint32_t kLogTestBytesPerSecond = 4096;
constexpr uint32_t kLogTestBytesBurst = 2 * kMaxTestRecord;

int cmd_log_test(const char*, const char* params, rte_tel_data* d) {
    return with_target(d, [&](ControlTarget& t) {
        size_t bytes;
        if (!parse_index(params, kMaxTestRecord + 1, bytes)) return -EINVAL;
        // Under g_mutex, both.
        static TokenBucket records(kLogTestsPerSecond, kLogTestBurst);
        static TokenBucket bytes_budget(kLogTestBytesPerSecond, kLogTestBytesBurst);
        const auto now_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now().time_since_epoch())
                                         .count());
        if (!records.take(now_ns) || !bytes_budget.take(now_ns, std::max<size_t>(bytes, 1))) {
            rte_tel_data_start_dict(d);
            static const std::string kLimited =
                "rate limited: at most " + std::to_string(kLogTestsPerSecond) + " log tests and " +
                std::to_string(kLogTestBytesPerSecond) + " bytes of them a second, " +
                std::to_string(kLogTestBytesBurst) + " at once";
            rte_tel_data_add_dict_string(d, "error", kLimited.c_str());
            return 0;
        }
        put_record(d, t.log_test(bytes));
        return 0;
    });
}

void put_error(rte_tel_data* d, const std::string& message) {
    rte_tel_data_start_dict(d);
    rte_tel_data_add_dict_string(d, "error", message.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
}

// Lines of a table in one reply: DPDK 22.11 holds at most 63 strings in an
// array; a few fewer leaves room for the dict around them.
constexpr size_t kLinesPerPage = 60;

// /pmdfwd/routes[,<first>] and /pmdfwd/neighbours[,<first>]:
// {"total": n, "first": i, "lines": [...]}, a page of the table's lines.
template <Result<TextPage> (ControlTarget::*kTable)(size_t, size_t) const>
int cmd_table(const char*, const char* params, rte_tel_data* d) {
    size_t first = 0;
    if (!no_params(params) && !parse_index(params, SIZE_MAX, first)) return -EINVAL;
    return with_target(d, [&](ControlTarget& t) {
        const auto page = (t.*kTable)(first, kLinesPerPage);
        if (!page) {
            put_error(d, page.error().message);
            return 0;
        }
        rte_tel_data_start_dict(d);
        rte_tel_data_add_dict_u64(d, "total", page.value().total);
        rte_tel_data_add_dict_u64(d, "first", first);
        rte_tel_data* lines = rte_tel_data_alloc();
        if (!lines) return 0;
        rte_tel_data_start_array(lines, RTE_TEL_STRING_VAL);
        for (const auto& line : page.value().lines)
            rte_tel_data_add_array_string(lines,
                                          line.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
        if (rte_tel_data_add_dict_container(d, "lines", lines, 0) != 0) rte_tel_data_free(lines);
        return 0;
    });
}

int cmd_router_counters(const char*, const char* params, rte_tel_data* d) {
    if (!no_params(params)) return -EINVAL;
    return with_target(d, [&](ControlTarget& t) {
        const auto r = t.router_counters();
        if (!r)
            put_error(d, r.error().message);
        else
            put_record(d, r.value());
        return 0;
    });
}

// The comma-separated words of a parameter.
std::vector<std::string> split_params(const char* params) {
    std::vector<std::string> out;
    std::string_view p = params ? params : "";
    while (!p.empty()) {
        const size_t comma = p.find(',');
        out.emplace_back(p.substr(0, comma));
        if (comma == std::string_view::npos) break;
        p.remove_prefix(comma + 1);
    }
    return out;
}

// /pmdfwd/route_add,<prefix>[,<via or ->[,<port>]]
int cmd_route_add(const char*, const char* params, rte_tel_data* d) {
    const auto words = split_params(params);
    if (words.empty() || words.size() > 3) return -EINVAL;
    std::string why;
    const auto prefix = parse_ip_prefix(words[0], &why);
    if (!prefix) {
        put_error(d, why);
        return 0;
    }
    std::optional<IpAddress> via;
    if (words.size() > 1 && words[1] != "-") {
        via = parse_ip_address(words[1], &why);
        if (!via) {
            put_error(d, why);
            return 0;
        }
    }
    const std::string port = words.size() > 2 ? words[2] : "";
    return with_target(d, [&](ControlTarget& t) {
        if (auto st = t.route_add(*prefix, via, port); !st)
            put_error(d, st.error().message);
        else
            put_record(d, result_record(("route " + prefix->to_string() + " added").c_str()));
        return 0;
    });
}

// /pmdfwd/route_del,<prefix>
int cmd_route_del(const char*, const char* params, rte_tel_data* d) {
    const auto words = split_params(params);
    if (words.size() != 1) return -EINVAL;
    std::string why;
    const auto prefix = parse_ip_prefix(words[0], &why);
    if (!prefix) {
        put_error(d, why);
        return 0;
    }
    return with_target(d, [&](ControlTarget& t) {
        if (auto st = t.route_del(*prefix); !st)
            put_error(d, st.error().message);
        else
            put_record(d, result_record(("route " + prefix->to_string() + " deleted").c_str()));
        return 0;
    });
}

struct Handler {
    ControlCommand cmd;
    telemetry_cb fn;
};

const Handler kHandlers[] = {
    {{"/pmdfwd/info", "Version, mode, burst, counts of workers/ports/pools, uptime."},
     cmd_record<&ControlTarget::info>},
    {{"/pmdfwd/plan", "The resolved plan: ports, queues, which lcore polls which queue."},
     cmd_plan},
    {{"/pmdfwd/workers", "List of worker ids."}, cmd_list<&ControlTarget::worker_count>},
    {{"/pmdfwd/worker", "Stats of one worker since the last clear. Parameters: int worker_id"},
     cmd_item<&ControlTarget::worker_count, &ControlTarget::worker>},
    {{"/pmdfwd/ports", "List of pmdfwd port indexes."}, cmd_list<&ControlTarget::port_count>},
    {{"/pmdfwd/port", "Config, link and ethdev stats of one port. Parameters: int port_index"},
     cmd_item<&ControlTarget::port_count, &ControlTarget::port>},
    {{"/pmdfwd/pools", "List of pool indexes."}, cmd_list<&ControlTarget::pool_count>},
    {{"/pmdfwd/pool", "Size, cache, available and in-use mbufs of one pool. Parameters: int"},
     cmd_item<&ControlTarget::pool_count, &ControlTarget::pool>},
    {{"/pmdfwd/latency",
      "Residence time (rx burst to tx done) of one worker's packets: "
      "percentiles, buckets. Parameters: int worker_id"},
     cmd_item<&ControlTarget::worker_count, &ControlTarget::latency>},
    {{"/pmdfwd/stats", "Totals over all workers since the last clear."},
     cmd_record<&ControlTarget::totals>},
    {{"/pmdfwd/log",
      "The emergency log channel: records sent, drops by reason, reserve, "
      "send latency."},
     cmd_record<&ControlTarget::netlog>},
    {{"/pmdfwd/log_test",
      "Log one warning of the given length (0-16384) to check the log "
      "channel end to end. Parameters: int bytes"},
     cmd_log_test},
    {{"/pmdfwd/clear", "Clear worker and port stats (a baseline; counters keep running)."},
     cmd_act<&ControlTarget::clear_stats, kCleared>},
    {{"/pmdfwd/shutdown", "Graceful stop: workers finish their burst, ports stop, pools audited."},
     cmd_act<&ControlTarget::request_stop, kStopping>},
    {{"/pmdfwd/routes",
      "Router mode: 60 routes from <first>: prefix origin port via state. Parameters: [int "
      "first]"},
     cmd_table<&ControlTarget::routes>},
    {{"/pmdfwd/neighbours",
      "Router mode: 60 neighbours from <first>: port/address state mac age_ms waiting "
      "requests. Parameters: [int first]"},
     cmd_table<&ControlTarget::neighbours>},
    {{"/pmdfwd/router", "Router mode: the control path's counters (ARP, ND, ICMP, neighbours)."},
     cmd_router_counters},
    {{"/pmdfwd/route_add",
      "Router mode: add or replace a route, workers never stopped. Parameters: "
      "prefix[,via or -[,port]]"},
     cmd_route_add},
    {{"/pmdfwd/route_del", "Router mode: delete a static or added route. Parameters: prefix"},
     cmd_route_del},
};

}  // namespace

const std::vector<ControlCommand> kControlCommands = [] {
    std::vector<ControlCommand> v;
    for (const auto& h : kHandlers) v.push_back(h.cmd);
    return v;
}();

void control_attach(ControlTarget* target) {
    static std::once_flag registered;
    std::call_once(registered, [] {
        for (const auto& h : kHandlers)
            if (const int rc = rte_telemetry_register_cmd(h.cmd.path, h.fn, h.cmd.help); rc != 0)
                spdlog::error("telemetry: cannot register {}: {}", h.cmd.path, rc);
    });
    std::lock_guard lock(g_mutex);
    g_target = target;
}

void control_detach(const ControlTarget* target) {
    std::lock_guard lock(g_mutex);
    if (g_target == target) g_target = nullptr;
}

bool control_read(const std::function<void(const ControlTarget&)>& fn) {
    std::lock_guard lock(g_mutex);
    if (!g_target) return false;
    fn(*g_target);
    return true;
}

}  // namespace pmdfwd
