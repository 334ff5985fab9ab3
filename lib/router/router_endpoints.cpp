// Router mode's endpoints (see router_endpoints.hpp). Telemetry thread,
// under the control lock; the router takes its own.
#include "router_endpoints.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>

#include "router_api.hpp"
#include "stats_records.hpp"

namespace pmdfwd {

namespace {

// The first row a page starts at: none given is 0.
bool first_row(std::string_view params, size_t& first) {
    first = 0;
    return params.empty() || parse_index(params, SIZE_MAX, first);
}

Record route_record(const RouteInfo& r) {
    const RecordSchema& t = kRouteRecord;
    Record rec(t);
    rec.set(t.at("prefix"), r.prefix.to_string());
    rec.set(t.at("origin"), r.origin);
    rec.set(t.at("port"), r.port.empty() ? "-" : r.port);
    rec.set(t.at("via"), r.via.empty() ? "-" : r.via);
    rec.set(t.at("state"), r.state);
    return rec;
}

}  // namespace

RouterEndpoints::RouterEndpoints(Router& router, std::vector<std::string> port_names)
    : router_(router), port_names_(std::move(port_names)) {
    using namespace endpoints;
    bindings_.emplace_back(kRoutes, [this](std::string_view p, Reply& r) { return routes(p, r); });
    bindings_.emplace_back(kNeighbours,
                           [this](std::string_view p, Reply& r) { return neighbours(p, r); });
    bindings_.emplace_back(kRouter, [this](std::string_view p, Reply& r) {
        if (!p.empty()) return -EINVAL;
        r.record(router_record(router_.sizes(), router_.counters(), router_.neighbour_counters()));
        return 0;
    });
    bindings_.emplace_back(kRouteAdd,
                           [this](std::string_view p, Reply& r) { return route_add(p, r); });
    bindings_.emplace_back(kRouteDel,
                           [this](std::string_view p, Reply& r) { return route_del(p, r); });
    bindings_.emplace_back(kRouteBatch,
                           [this](std::string_view p, Reply& r) { return route_batch(p, r); });
}

// A page from the router, so the control path waits for one page only.
int RouterEndpoints::routes(std::string_view params, Reply& reply) const {
    size_t first;
    if (!first_row(params, first)) return -EINVAL;
    size_t total = 0;
    std::vector<Record> rows;
    for (const RouteInfo& r : router_.routes(first, kPageRows, &total))
        rows.push_back(route_record(r));
    reply.page(kRouteRecord, rows, first, total);
    return 0;
}

int RouterEndpoints::neighbours(std::string_view params, Reply& reply) const {
    size_t first;
    if (!first_row(params, first)) return -EINVAL;
    const auto all = router_.neighbours();
    const RecordSchema& t = kNeighbourRecord;
    std::vector<Record> rows;
    for (size_t i = first; i < all.size() && rows.size() < kPageRows; ++i) {
        const NeighbourEntry& n = all[i];
        Record rec(t);
        rec.set(t.at("port"),
                n.key.port < port_names_.size() ? port_names_[n.key.port] : std::string("?"));
        rec.set(t.at("address"), n.key.address.to_string());
        rec.set(t.at("state"), std::string(neighbour_state_name(n.state)));
        rec.set(t.at("mac"), n.mac ? n.mac->to_string() : "-");
        rec.set(t.at("age_ms"), uint64_t(n.age_ms));
        rec.set(t.at("waiting"), uint64_t(n.waiting));
        rec.set(t.at("requests"), uint64_t(n.requests));
        rows.push_back(std::move(rec));
    }
    reply.page(t, rows, first, all.size());
    return 0;
}

// /pmdfwd/route_add,<prefix>[,<via or ->[,<port or ->]]...: a path a
// pair, more than one for an equal-cost route.
int RouterEndpoints::route_add(std::string_view params, Reply& reply) {
    const auto words = split_params(params);
    if (words.empty() || words.size() > 1 + 2 * kMaxEcmpPaths) return -EINVAL;
    std::string why;
    const auto prefix = parse_ip_prefix(words[0], &why);
    if (!prefix) {
        reply.error(why);
        return 0;
    }
    std::vector<RoutePath> paths;
    std::string said;  // the paths, for the log
    for (size_t w = 1; w == 1 || w < words.size(); w += 2) {
        RoutePath path;
        if (w < words.size() && words[w] != "-") {
            path.via = parse_ip_address(words[w], &why);
            if (!path.via) {
                reply.error(why);
                return 0;
            }
            said += " via " + path.via->to_string();
        }
        if (w + 1 < words.size() && words[w + 1] != "-") {
            path.port = words[w + 1];
            said += " port " + path.port;
        }
        paths.push_back(std::move(path));
    }
    if (auto st = router_.add_route(*prefix, paths); !st) {
        reply.error(st.error().message);
        return 0;
    }
    // One line a route at debug: a table loaded route by route would flood
    // the log; housekeeping sums the changes up at info.
    spdlog::debug("route {}{} added", prefix->to_string(), said);
    added_.fetch_add(1, std::memory_order_relaxed);
    reply.record(result_record(("route " + prefix->to_string() + " added").c_str()));
    return 0;
}

// /pmdfwd/route_del,<prefix>
int RouterEndpoints::route_del(std::string_view params, Reply& reply) {
    const auto words = split_params(params);
    if (words.size() != 1) return -EINVAL;
    std::string why;
    const auto prefix = parse_ip_prefix(words[0], &why);
    if (!prefix) {
        reply.error(why);
        return 0;
    }
    if (auto st = router_.delete_route(*prefix); !st) {
        reply.error(st.error().message);
        return 0;
    }
    spdlog::debug("route {} deleted", prefix->to_string());
    deleted_.fetch_add(1, std::memory_order_relaxed);
    reply.record(result_record(("route " + prefix->to_string() + " deleted").c_str()));
    return 0;
}

// /pmdfwd/route_batch,=via[,port];+prefix;-prefix;...: the changes in
// order. An item that does not parse is refused where it stands, as the
// router refuses a change it cannot make, so the count and the first
// refusal's position (its item, 0 up) cover both.
int RouterEndpoints::route_batch(std::string_view params, Reply& reply) {
    if (params.empty()) return -EINVAL;
    std::vector<RouteChange> changes;
    std::vector<size_t> item_of;  // each change's item
    std::optional<RoutePath> path;
    size_t item_index = 0, bad_at = 0, bad = 0;
    std::string bad_why;
    const auto refuse = [&](std::string why) {
        if (bad++ == 0) {
            bad_at = item_index;
            bad_why = std::move(why);
        }
    };
    size_t from = 0;
    for (; from <= params.size(); ++item_index) {
        size_t end = params.find(';', from);
        if (end == std::string_view::npos) end = params.size();
        const std::string_view item = params.substr(from, end - from);
        from = end + 1;
        std::string why;
        if (item.size() < 2) {
            refuse("an empty or one-character item '" + std::string(item) + "'");
        } else if (item[0] == '=') {
            const auto words = split_params(item.substr(1));
            path.reset();
            if (words.empty() || words.size() > 2) {
                refuse("'" + std::string(item) + "': =via[,port]");
                continue;
            }
            RoutePath p;
            if (words[0] != "-") p.via = parse_ip_address(words[0], &why);
            if (words[0] != "-" && !p.via) {
                refuse(why);
                continue;
            }
            if (words.size() == 2) p.port = words[1];
            path = std::move(p);
        } else if (item[0] == '+' || item[0] == '-') {
            const auto prefix = parse_ip_prefix(item.substr(1), &why);
            if (!prefix)
                refuse(why);
            else if (item[0] == '+' && !path)
                refuse("'" + std::string(item) + "': no path before it (=via[,port])");
            else {
                changes.push_back({*prefix, item[0] == '-', item[0] == '+' ? *path : RoutePath{}});
                item_of.push_back(item_index);
            }
        } else {
            refuse("'" + std::string(item) + "': not =via, +prefix or -prefix");
        }
    }
    RouteBatchResult r = router_.apply_route_changes(changes);
    if (r.refused) r.first_refused = item_of[r.first_refused];
    // An item that did not parse comes first when it stood earlier.
    if (bad && (r.refused == 0 || bad_at < r.first_refused)) {
        r.first_refused = bad_at;
        r.error = bad_why;
    }
    r.refused += bad;
    added_.fetch_add(r.added, std::memory_order_relaxed);
    deleted_.fetch_add(r.deleted, std::memory_order_relaxed);
    const RecordSchema& t = kRouteBatchRecord;
    Record rec(t);
    rec.set(t.at("added"), r.added);
    rec.set(t.at("deleted"), r.deleted);
    rec.set(t.at("refused"), r.refused);
    rec.set(t.at("first_refused"), uint64_t(r.refused ? r.first_refused : 0));
    rec.set(t.at("refusal"), r.refused ? r.error : std::string("-"));
    reply.record(rec);
    return 0;
}

void RouterEndpoints::summarize_route_changes() {
    constexpr auto kInterval = std::chrono::seconds(10);
    const auto now = std::chrono::steady_clock::now();
    if (now < next_summary_) return;
    const uint64_t added = added_.load(std::memory_order_relaxed);
    const uint64_t deleted = deleted_.load(std::memory_order_relaxed);
    if (added == added_told_ && deleted == deleted_told_) return;
    spdlog::info(
        "routes changed over telemetry: {} added, {} deleted since the last such line "
        "({} and {} since start; each change at debug level)",
        added - added_told_, deleted - deleted_told_, added, deleted);
    added_told_ = added;
    deleted_told_ = deleted;
    next_summary_ = now + kInterval;
}

}  // namespace pmdfwd
