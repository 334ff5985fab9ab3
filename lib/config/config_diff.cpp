// Configs compared key by key (see config_diff.hpp).
#include "config_diff.hpp"

#include <toml++/toml.h>

#include <array>
#include <string_view>

#include "config_writer.hpp"

namespace pmdfwd {

bool live_key(const std::string& key) {
    static constexpr std::array<std::string_view, 25> kLive = {
        "l3.icmp_rate_limit",
        "l3.icmp_rate_burst",
        "l3.kernel_rate_limit",
        "l3.kernel_rate_burst",
        "log.level",
        "netlog.level",
        "netlog.rate_limit",
        "netlog.rate_burst",
        "poll.idle_polls",
        "poll.max_sleep_us",
        "control.stall_us",
        "control.stats_log_interval_s",
        "control.metrics",
        "control.metrics_allow",
        "control.metrics_allow_remote",
        "netlog.dst_ip",
        "netlog.dst_mac",
        "netlog.dst_port",
        "netlog.src_ip",
        "netlog.src_port",
        "l3.max_resolving",
        "l3.max_waiting_packets",
        "l3.resolve_retries",
        "l3.resolve_interval_ms",
        "l3.reachable_s",
    };
    if (key.starts_with("route.") || key.starts_with("neighbour.")) return true;
    for (const auto k : kLive)
        if (k == key) return true;
    return false;
}

std::vector<ConfigChange> diff_configs(const Config& before, const Config& after) {
    const auto a = config_keys(before);
    const auto b = config_keys(after);
    std::vector<ConfigChange> changes;
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() || j != b.end()) {
        if (j == b.end() || (i != a.end() && i->first < j->first)) {
            changes.push_back({i->first, i->second, "", live_key(i->first)});
            ++i;
        } else if (i == a.end() || j->first < i->first) {
            changes.push_back({j->first, "", j->second, live_key(j->first)});
            ++j;
        } else {
            if (i->second != j->second)
                changes.push_back({i->first, i->second, j->second, live_key(i->first)});
            ++i;
            ++j;
        }
    }
    return changes;
}

std::string to_string(const ConfigChange& c) {
    return c.key + ": " + (c.before.empty() ? "(none)" : c.before) + " -> " +
           (c.after.empty() ? "(none)" : c.after);
}

}  // namespace pmdfwd
