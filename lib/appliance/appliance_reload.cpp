// A reload of the config while the appliance runs (see appliance.hpp), and
// the endpoints that ask for one and show the running config. Telemetry
// thread or main lcore (SIGHUP), under the control lock.
#include <rte_cycles.h>
#include <spdlog/spdlog.h>

#include <cerrno>

#include "appliance.hpp"
#include "appliance_api.hpp"
#include "config_loader.hpp"
#include "config_writer.hpp"
#include "logging.hpp"
#include "netlog_sink.hpp"

namespace pmdfwd {

namespace {

// A telemetry string holds 127 bytes: longer lines go on in the next one,
// the one before ending in a backslash (no line of TOML the writer makes
// ends in one).
constexpr size_t kLinePiece = 120;

std::vector<std::string> text_lines(const std::string& text) {
    std::vector<std::string> out;
    size_t from = 0;
    while (from < text.size()) {
        size_t end = text.find('\n', from);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(from, end - from);
        while (line.size() > kLinePiece) {
            out.push_back(line.substr(0, kLinePiece) + "\\");
            line.erase(0, kLinePiece);
        }
        out.push_back(std::move(line));
        from = end + 1;
    }
    return out;
}

// A route's port where its gateway's subnet already names it is left out,
// as a file usually leaves it out: the router keeps the port it resolved.
void drop_implied_ports(Config& cfg) {
    for (RouteConfig& r : cfg.routes) {
        if (!r.via || r.port.empty()) continue;
        const PortConfig* p = cfg.find_port(r.port);
        if (!p) continue;
        for (const IpPrefix& a : p->addresses)
            if (contains(a, *r.via)) {
                r.port.clear();
                break;
            }
    }
}

bool changed(const std::vector<ConfigChange>& changes, std::string_view prefix) {
    for (const auto& c : changes)
        if (c.key.starts_with(prefix)) return true;
    return false;
}

}  // namespace

std::vector<std::string> ReloadReport::lines(bool dry_run) const {
    std::vector<std::string> out;
    size_t restart = 0;
    for (const auto& c : changes) restart += !c.live;
    if (!error.empty())
        out.push_back("error: " + error);
    else if (refused)
        out.push_back("refused: " + std::to_string(restart) + " of " +
                      std::to_string(changes.size()) +
                      " changes need a restart; nothing was changed");
    else if (dry_run)
        out.push_back("dry run: " + std::to_string(changes.size()) +
                      " changes, all of them live; nothing was changed");
    else
        out.push_back("applied: " + std::to_string(changes.size()) + " changes");
    // A reply holds 512 strings and 16 KB: the restart lines first (what
    // the operator must act on), then the live ones, as many as fit.
    constexpr size_t kMaxChangeLines = 100;
    size_t shown = 0;
    for (const bool live : {false, true})
        for (const auto& c : changes) {
            if (c.live != live || shown == kMaxChangeLines) continue;
            std::string line = (c.live ? "live    " : "restart ") + to_string(c);
            if (line.size() > kLinePiece) line = line.substr(0, kLinePiece - 3) + "...";
            out.push_back(std::move(line));
            ++shown;
        }
    if (changes.size() > shown)
        out.push_back("... and " + std::to_string(changes.size() - shown) +
                      " more changes (the log has each)");
    return out;
}

Config Appliance::running_config() const {
    Config c = running_;
    if (router_) c.routes = router_->configured_routes();
    drop_implied_ports(c);
    return c;
}

LoopValues Appliance::loop_values(const Config& cfg) const {
    const uint64_t hz = rte_get_tsc_hz();
    LoopValues v;
    v.idle_polls_adaptive = cfg.poll.idle_polls_for(PollMode::adaptive);
    v.idle_polls_interrupt = cfg.poll.idle_polls_for(PollMode::interrupt);
    v.max_sleep_us = cfg.poll.max_sleep_us;
    v.stall_cycles = uint64_t(cfg.control.stall_us) * hz / 1000000;
    // As set_icmp_budget sets a worker's.
    const uint32_t rate = cfg.l3.icmp_rate_limit, burst = cfg.l3.icmp_rate_burst;
    v.icmp_interval_tsc = rate ? hz / rate : 0;
    v.icmp_burst_tsc = v.icmp_interval_tsc * (burst ? burst - 1 : 0);
    return v;
}

ReloadReport Appliance::reload(bool dry_run) {
    ReloadReport report;
    const std::string path = cfg_.source_name;
    auto loaded = load_config_file(path);
    if (auto* err = std::get_if<ConfigError>(&loaded)) {
        report.error = err->to_string();
        return report;
    }
    Config next = std::get<Config>(std::move(loaded));
    auto planned = build_plan(next);
    if (auto* err = std::get_if<ConfigError>(&planned)) {
        report.error = err->to_string();
        return report;
    }
    Config compared = next;
    drop_implied_ports(compared);
    report.changes = diff_configs(running_config(), compared);
    for (const auto& c : report.changes) report.refused = report.refused || !c.live;
    if (report.refused || dry_run || report.changes.empty()) {
        report.applied = !report.refused && !dry_run;
        return report;
    }
    if (auto st = apply_reload(next, report.changes); !st) {
        report.error = st.error().message + "; nothing was changed";
        return report;
    }
    report.applied = true;
    return report;
}

// The fallible steps first, each undone when a later one fails, so that a
// failed reload changes nothing: the router's tables (a full table), then
// the metrics endpoint (an address taken); then the rest, which cannot fail.
Status Appliance::apply_reload(const Config& next, const std::vector<ConfigChange>& changes) {
    std::vector<RouteConfig> routes_before;
    if (router_) {
        routes_before = router_->configured_routes();
        RouterReload r{next.routes, running_.neighbours, next.neighbours, next.l3};
        if (auto st = router_->reload(r); !st) {
            // What the failed reload added goes, what it removed comes back.
            router_->reload({routes_before, next.neighbours, running_.neighbours, running_.l3});
            return st;
        }
    }
    const bool metrics_moved = next.control.metrics != running_.control.metrics;
    if (metrics_moved && !next.control.metrics.empty()) {
        auto started = MetricsExporter::start(next.control.metrics, next.control.metrics_allow);
        if (!started) {
            if (router_)
                router_->reload({routes_before, next.neighbours, running_.neighbours, running_.l3});
            return started.error();
        }
        std::lock_guard lock(retired_mutex_);
        if (metrics_) retired_metrics_.push_back(std::move(metrics_));
        metrics_ = std::move(started.value());
        spdlog::info("reload: metrics now at http://{}/metrics", next.control.metrics);
    } else if (metrics_moved) {
        std::lock_guard lock(retired_mutex_);
        if (metrics_) retired_metrics_.push_back(std::move(metrics_));
        spdlog::info("reload: no metrics endpoint any more");
    } else if (metrics_ && changed(changes, "control.metrics_allow")) {
        metrics_->set_allow(next.control.metrics_allow);
    }
    set_log_level(next.log.level);
    netlog_set_sink_level(next.netlog.enabled ? next.netlog.level : next.log.level);
    if (netlog_) {
        netlog_->set_rate(next.netlog.rate_limit, next.netlog.rate_burst, next.netlog.level);
        if (changed(changes, "netlog.dst_") || changed(changes, "netlog.src_")) {
            netlog_->retarget(next.netlog);
            spdlog::info("reload: the log channel now sends to {}:{} ({})",
                         next.netlog.dst_ip.to_string(), next.netlog.dst_port,
                         next.netlog.dst_mac.to_string());
        }
    }
    const LoopValues v = loop_values(next);
    loop_settings_.publish(v);
    if (stall_watch_) stall_watch_->set_stall_cycles(v.stall_cycles);
    stats_log_interval_s_.store(next.control.stats_log_interval_s);
    running_ = next;
    for (const auto& c : changes) spdlog::info("reload: {}", to_string(c));
    return Ok{};
}

void Appliance::bind_config_endpoints() {
    config_bindings_.emplace_back(endpoints::kReload, [this](std::string_view p, Reply& r) {
        if (!p.empty() && p != "dry-run") return -EINVAL;
        const bool dry_run = p == "dry-run";
        const ReloadReport report = reload(dry_run);
        const auto lines = report.lines(dry_run);
        spdlog::info("reload over telemetry{}: {}", dry_run ? " (dry run)" : "", lines.front());
        r.lines(lines);
        return 0;
    });
    // Pages of kPageRows lines, from a snapshot row 0 takes: a table of
    // many routes is longer than a reply holds.
    config_bindings_.emplace_back(endpoints::kConfig, [this](std::string_view p, Reply& r) {
        size_t first = 0;
        if (!p.empty() && !parse_index(p, SIZE_MAX, first)) return -EINVAL;
        if (first == 0) config_snapshot_ = text_lines(config_to_toml(running_config()));
        const RecordSchema& t = kConfigLineRecord;
        std::vector<Record> rows;
        for (size_t i = first; i < config_snapshot_.size() && rows.size() < kPageRows; ++i) {
            Record rec(t);
            rec.set(t.at("line"), config_snapshot_[i]);
            rows.push_back(std::move(rec));
        }
        r.page(t, rows, first, config_snapshot_.size());
        return 0;
    });
}

}  // namespace pmdfwd
