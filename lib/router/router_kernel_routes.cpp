// Router mode's routes from a kernel routing table (`[l3] kernel_routes`,
// see router.hpp, route_feed.hpp): read in full at start, then change by
// change on the control path's thread, each into the RIB as a `kernel`
// route. A kernel route leaves by the port whose kernel interface its next
// hop is on; any other is skipped and counted by reason. Precedence: a
// prefix that is connected, one of the router's own, a neighbour's host
// route, a [[route]] or a route added with pmdctl keeps that route; the
// kernel's takes its place when that one goes. When the kernel dropped
// changes (the socket overran), the whole table is read again and only
// what differs is changed, so routes that did not change never stop
// forwarding.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "kernel_interface.hpp"
#include "route_feed.hpp"
#include "route_message.hpp"
#include "router.hpp"
#include "router_frames.hpp"

namespace pmdfwd {

namespace {

// Changes read per poll (every millisecond): 4 million a second at most,
// and one poll never holds the lock for long.
constexpr unsigned kChangesPerPoll = 4096;

uint64_t now_us() {
    return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

}  // namespace

Status Router::open_kernel_routes() {
    if (cfg_.l3.kernel_routes_table == 0) return Ok{};
    auto feed = RouteFeed::open(size_t(cfg_.l3.kernel_routes_buffer_kb) * 1024);
    if (!feed) return feed.error();
    route_feed_ = std::move(feed.value());
    return reread_kernel_routes();
}

int Router::port_of_ifindex(unsigned ifindex) const {
    for (size_t p = 0; p < kernel_ifs_.size(); ++p)
        if (kernel_ifs_[p] && kernel_ifs_[p]->ifindex() == ifindex) return int(p);
    return -1;
}

// The RIB route a kernel route becomes: its next hops (a next-hop
// object's, when it names one) on ports' kernel interfaces; of several,
// an equal-cost route over those that are gateways.
std::optional<Router::RibRoute> Router::rib_route_of(const KernelRoute& k, KernelRouteSkip& why) {
    std::vector<KernelNextHop> hops = k.hops;
    if (k.nexthop_id != 0) {
        const auto o = kernel_next_hops_.find(k.nexthop_id);
        if (o == kernel_next_hops_.end()) {
            why = KernelRouteSkip::unknown_next_hop;
            return std::nullopt;
        }
        if (o->second.hop) hops.push_back(*o->second.hop);
        for (const auto& [id, weight] : o->second.group) {
            const auto member = kernel_next_hops_.find(id);
            if (member == kernel_next_hops_.end() || !member->second.hop) continue;
            hops.push_back(*member->second.hop);
            hops.back().weight = weight;
        }
    }
    std::vector<EcmpPath> paths;
    for (const KernelNextHop& h : hops) {
        const int port = port_of_ifindex(h.ifindex);
        if (port < 0) continue;
        if (h.via && h.via->family != k.prefix.address.family) continue;
        paths.push_back({h.via, uint16_t(port), h.weight});
    }
    if (paths.empty()) {
        why = KernelRouteSkip::no_port;
        return std::nullopt;
    }
    const RibRoute first{k.prefix, Origin::kernel, paths[0].via, int(paths[0].port)};
    if (paths.size() == 1 || cfg_.l3.max_ecmp_groups == 0) return first;
    // Of several paths, the gateways (an on-link path names no neighbour
    // to hash flows onto), at most kMaxEcmpPaths.
    const size_t given = paths.size();
    std::erase_if(paths, [](const EcmpPath& p) { return !p.via; });
    if (paths.size() > kMaxEcmpPaths) paths.resize(kMaxEcmpPaths);
    counters_.ecmp_paths_dropped += given - paths.size();
    if (paths.size() < 2)
        return paths.empty() ? first
                             : RibRoute{k.prefix, Origin::kernel, paths[0].via, int(paths[0].port)};
    EcmpGroup* group = group_for(std::move(paths));
    if (!group) return first;
    return RibRoute{k.prefix, Origin::kernel, {}, -1, group};
}

// The RIB entry of a prefix after the kernel's route for it changed: the
// kernel's where no other origin holds the prefix, nothing where the
// kernel has none.
void Router::settle_kernel_prefix(const IpPrefix& prefix) {
    const auto held = rib_.find(prefix);
    if (held != rib_.end() && held->second.origin != Origin::kernel) return;
    const auto k = kernel_table_.find(prefix);
    std::optional<RibRoute> wanted;
    if (k != kernel_table_.end()) {
        KernelRouteSkip why = KernelRouteSkip::none;
        wanted = rib_route_of(k->second, why);
        if (!wanted) counters_.kernel_routes_skipped.count(why);
    }
    if (!wanted) {
        if (held != rib_.end()) {
            (void)tables_->delete_route(prefix);
            forget(held);
            counters_.kernel_routes_removed++;
        }
        return;
    }
    if (held != rib_.end() && held->second.via == wanted->via &&
        held->second.port == wanted->port && held->second.group == wanted->group)
        return;  // the same route: nothing to change
    if (auto st = install(*wanted); !st) {
        counters_.kernel_routes_refused++;
        kernel_refused_last_ = prefix.to_string() + ": " + st.error().message;
        return;
    }
    counters_.kernel_routes_added++;
}

void Router::kernel_message(const nlmsghdr* message) {
    if (const auto nh = parse_nexthop_message(message)) {
        const uint32_t id = nh->object.id;
        // The objects it changes: itself, and the groups it is a member of
        // (the kernel takes a deleted member out of its groups).
        std::vector<uint32_t> changed{id};
        for (auto& [group_id, object] : kernel_next_hops_) {
            const auto member = [id](const auto& m) { return m.first == id; };
            if (std::none_of(object.group.begin(), object.group.end(), member)) continue;
            changed.push_back(group_id);
            if (nh->removed) std::erase_if(object.group, member);
        }
        if (nh->removed)
            kernel_next_hops_.erase(id);
        else
            kernel_next_hops_[id] = nh->object;
        // Routes through them follow them.
        for (const uint32_t object : changed)
            if (const auto it = kernel_routes_by_object_.find(object);
                it != kernel_routes_by_object_.end())
                kernel_dirty_.insert(kernel_dirty_.end(), it->second.begin(), it->second.end());
        return;
    }
    const auto parsed = parse_route_message(message, cfg_.l3.kernel_routes_table);
    if (!parsed) return;
    if (const auto* why = std::get_if<KernelRouteSkip>(&*parsed)) {
        counters_.kernel_routes_skipped.count(*why);
        return;
    }
    const KernelRouteChange& c = std::get<KernelRouteChange>(*parsed);
    const auto it = kernel_table_.find(c.route.prefix);
    if (c.removed) {
        // The kernel keeps several routes to a prefix only by metric; the
        // one removed is the one held unless its metric says otherwise.
        if (it == kernel_table_.end() || it->second.metric != c.route.metric) return;
        drop_kernel_route(c.route.prefix);
    } else {
        if (it != kernel_table_.end() && it->second.metric < c.route.metric) return;
        hold_kernel_route(c.route);
    }
    kernel_dirty_.push_back(c.route.prefix);
}

void Router::hold_kernel_route(const KernelRoute& route) {
    auto [it, fresh] = kernel_table_.try_emplace(route.prefix, route);
    if (!fresh) {
        if (it->second.nexthop_id == route.nexthop_id) {
            it->second = route;
            return;
        }
        drop_kernel_route(route.prefix);
        it = kernel_table_.emplace(route.prefix, route).first;
    }
    if (route.nexthop_id) kernel_routes_by_object_[route.nexthop_id].insert(route.prefix);
}

void Router::drop_kernel_route(const IpPrefix& prefix) {
    const auto it = kernel_table_.find(prefix);
    if (it == kernel_table_.end()) return;
    if (const uint32_t object = it->second.nexthop_id) {
        const auto by = kernel_routes_by_object_.find(object);
        if (by != kernel_routes_by_object_.end() && by->second.erase(prefix) && by->second.empty())
            kernel_routes_by_object_.erase(by);
    }
    kernel_table_.erase(it);
}

void Router::settle_dirty_kernel_prefixes() {
    for (const IpPrefix& p : kernel_dirty_) settle_kernel_prefix(p);
    kernel_dirty_.clear();
}

// The whole table again: the snapshot replaces what was held, and only
// prefixes whose route differs are changed in the workers' tables.
Status Router::reread_kernel_routes() {
    const uint64_t start = now_us();
    // Changes read before the overrun are in kernel_table_ but maybe not
    // yet in the RIB: settled first, or a route the kernel deleted then
    // would be in neither table's difference and stay in the RIB.
    settle_dirty_kernel_prefixes();
    auto previous = std::move(kernel_table_);
    auto previous_by_object = std::move(kernel_routes_by_object_);
    kernel_table_.clear();
    kernel_routes_by_object_.clear();
    kernel_next_hops_.clear();
    kernel_dirty_.clear();
    const Status st = route_feed_->read_table([this](const nlmsghdr* m) { kernel_message(m); });
    if (!st) {
        kernel_table_ = std::move(previous);
        kernel_routes_by_object_ = std::move(previous_by_object);
        return st;
    }
    kernel_dirty_.clear();
    for (const auto& [prefix, route] : previous)
        if (!kernel_table_.contains(prefix)) kernel_dirty_.push_back(prefix);
    for (const auto& [prefix, route] : kernel_table_) kernel_dirty_.push_back(prefix);
    settle_dirty_kernel_prefixes();
    counters_.kernel_routes_rereads++;
    counters_.kernel_routes_sync_ns = (now_us() - start) * 1000;
    return Ok{};
}

// A table too small for the kernel's refuses route after route: the
// operator hears of it at most every 10 s, with the count and the last.
void Router::log_kernel_routes_refused(uint64_t now) {
    constexpr uint64_t kRefusedLogPeriodMs = 10000;
    const uint64_t refused = counters_.kernel_routes_refused - kernel_refused_logged_;
    if (refused == 0 ||
        (kernel_refused_logged_ms_ && now < kernel_refused_logged_ms_ + kRefusedLogPeriodMs))
        return;
    spdlog::warn(
        "l3: {} kernel route(s) refused since the last report (kernel_routes_refused), "
        "the last: {}",
        refused, kernel_refused_last_);
    kernel_refused_logged_ = counters_.kernel_routes_refused;
    kernel_refused_logged_ms_ = now;
}

void Router::poll_kernel_routes() {
    if (!route_feed_) return;
    const uint64_t start = now_us();
    const auto read = route_feed_->read_changes(kChangesPerPoll,
                                                [this](const nlmsghdr* m) { kernel_message(m); });
    if (read == RouteFeed::Read::overrun) {
        counters_.kernel_routes_overruns++;
        spdlog::warn(
            "l3: the kernel dropped route changes (socket buffer full); reading table "
            "{} again",
            cfg_.l3.kernel_routes_table);
        if (auto st = reread_kernel_routes(); !st)
            spdlog::error("l3: kernel routes: {}", st.error().message);
        return;
    }
    if (kernel_dirty_.empty()) return;
    settle_dirty_kernel_prefixes();
    counters_.kernel_routes_sync_ns = (now_us() - start) * 1000;
}

}  // namespace pmdfwd
