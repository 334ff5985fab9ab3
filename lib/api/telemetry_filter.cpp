// Telemetry request checks (see telemetry_filter.hpp). Runs on the telemetry
// gate's thread.
#include "telemetry_filter.hpp"

#include <array>
#include <nlohmann/json.hpp>

namespace pmdfwd {

namespace {

enum class Params {
    none,          // no parameter at all
    port_id,       // decimal 0 .. max_ports-1
    heap_id,       // decimal 0 .. max_heaps-1
    memzone_idx,   // decimal 0 .. max_memzones-1
    mempool_name,  // printable, shorter than mempool_name_bytes
    command,       // a command name (/help)
    handler,       // /pmdfwd/...: pmdfwd's handlers check their own
};

struct Served {
    std::string_view cmd;
    Params params;
};

// The DPDK commands served, each with its parameter. Everything else DPDK
// registers (eventdev, cryptodev, dmadev, rawdev, security, cnxk) drives
// devices pmdfwd never creates, and some of it crashes on bad ids too.
constexpr std::array kServed = {
    Served{"/", Params::none},
    Served{"/info", Params::none},
    Served{"/help", Params::command},
    Served{"/eal/app_params", Params::none},
    Served{"/eal/params", Params::none},
    Served{"/eal/heap_list", Params::none},
    Served{"/eal/heap_info", Params::heap_id},
    Served{"/eal/memzone_list", Params::none},
    Served{"/eal/memzone_info", Params::memzone_idx},
    Served{"/ethdev/list", Params::none},
    Served{"/ethdev/stats", Params::port_id},
    Served{"/ethdev/xstats", Params::port_id},
    Served{"/ethdev/link_status", Params::port_id},
    Served{"/ethdev/info", Params::port_id},
    Served{"/ethdev/module_eeprom", Params::port_id},
    Served{"/ethdev/dump_priv", Params::port_id},
    Served{"/mempool/list", Params::none},
    Served{"/mempool/info", Params::mempool_name},
};

constexpr std::string_view kOwnPrefix = "/pmdfwd/";

const Served* find_served(std::string_view cmd) {
    for (const auto& s : kServed)
        if (s.cmd == cmd) return &s;
    return nullptr;
}

bool is_command_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '/';
}

bool is_command_name(std::string_view s) {
    if (s.empty() || s.front() != '/' || s.size() > kTelemetryMaxCommand) return false;
    for (const char c : s)
        if (!is_command_char(c)) return false;
    return true;
}

// Visible ASCII only: no spaces, quotes reach no handler that echoes them
// unescaped, and no control character forges a log line.
bool is_printable_token(std::string_view s) {
    for (const char c : s)
        if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\') return false;
    return true;
}

// Plain decimal below `limit`: no sign, base prefix, spaces or overflow,
// which DPDK's strtoul-based parsing would turn into another number.
bool is_index_below(std::string_view s, size_t limit) {
    if (s.empty() || s.size() > 9) return false;
    size_t v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + size_t(c - '0');
    }
    return v < limit;
}

bool params_fit(Params kind, bool has_params, std::string_view p, const TelemetryLimits& lim) {
    switch (kind) {
        case Params::none:
            return !has_params;
        case Params::port_id:
            return is_index_below(p, lim.max_ports);
        case Params::heap_id:
            return is_index_below(p, lim.max_heaps);
        case Params::memzone_idx:
            return is_index_below(p, lim.max_memzones);
        case Params::mempool_name:
            return !p.empty() && p.size() < lim.mempool_name_bytes && is_printable_token(p);
        case Params::command:
            return is_command_name(p);
        case Params::handler:
            return !has_params || (!p.empty() && is_printable_token(p));
    }
    return false;
}

}  // namespace

std::string telemetry_null_reply(std::string_view cmd) {
    nlohmann::json j = nlohmann::json::object();
    // Invalid UTF-8 is replaced, not thrown on: the name came from a client.
    j[std::string(cmd)] = nullptr;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string telemetry_error_reply(std::string_view cmd, std::string_view sentence) {
    nlohmann::json j = nlohmann::json::object();
    j[std::string(cmd)] = {{"error", std::string(sentence)}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool telemetry_command_served(std::string_view cmd) {
    if (cmd.substr(0, kOwnPrefix.size()) == kOwnPrefix) return is_command_name(cmd);
    return find_served(cmd) != nullptr;
}

TelemetryVerdict check_telemetry_request(std::string_view request, const TelemetryLimits& limits) {
    const size_t comma = request.find(',');
    const std::string_view cmd = request.substr(0, comma);
    const bool has_params = comma != std::string_view::npos;
    const std::string_view params = has_params ? request.substr(comma + 1) : std::string_view{};
    const auto refuse = [&] { return TelemetryVerdict{false, telemetry_null_reply(cmd)}; };

    if (request.size() > kTelemetryMaxRequest || !is_command_name(cmd)) return refuse();
    if (cmd.substr(0, kOwnPrefix.size()) == kOwnPrefix)
        return params_fit(Params::handler, has_params, params, limits) ? TelemetryVerdict{true, {}}
                                                                       : refuse();
    const Served* s = find_served(cmd);
    if (!s || !params_fit(s->params, has_params, params, limits)) return refuse();
    return {true, {}};
}

std::string filter_command_list(std::string_view reply) {
    const auto j = nlohmann::json::parse(reply, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("/") || !j["/"].is_array())
        return std::string(reply);
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& c : j["/"])
        if (c.is_string() && telemetry_command_served(c.get<std::string>())) kept.push_back(c);
    nlohmann::json out = nlohmann::json::object();
    out["/"] = std::move(kept);
    return out.dump();
}

}  // namespace pmdfwd
