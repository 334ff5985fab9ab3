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

// The RIB route a kernel route becomes: its first next hop on a port's
// kernel interface (a next-hop object's, when it names one).
std::optional<Router::RibRoute> Router::rib_route_of(const KernelRoute& k,
                                                     KernelRouteSkip& why) const {
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
            if (member != kernel_next_hops_.end() && member->second.hop)
                hops.push_back(*member->second.hop);
        }
    }
    for (const KernelNextHop& h : hops) {
        const int port = port_of_ifindex(h.ifindex);
        if (port < 0) continue;
        if (h.via && h.via->family != k.prefix.address.family) continue;
        return RibRoute{k.prefix, Origin::kernel, h.via, port};
    }
    why = KernelRouteSkip::no_port;
    return std::nullopt;
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
            rib_.erase(held);
            counters_.kernel_routes_removed++;
        }
        return;
    }
    if (held != rib_.end() && held->second.via == wanted->via && held->second.port == wanted->port)
        return;  // the same route: nothing to change
    if (auto st = install(*wanted); !st) {
        counters_.kernel_routes_refused++;
        spdlog::warn("l3: kernel route {}: {}", prefix.to_string(), st.error().message);
        return;
    }
    counters_.kernel_routes_added++;
}

void Router::kernel_message(const nlmsghdr* message) {
    if (const auto nh = parse_nexthop_message(message)) {
        if (nh->removed)
            kernel_next_hops_.erase(nh->object.id);
        else
            kernel_next_hops_[nh->object.id] = nh->object;
        // Routes through it follow it.
        for (const auto& [prefix, route] : kernel_table_)
            if (route.nexthop_id == nh->object.id) kernel_dirty_.push_back(prefix);
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
        kernel_table_.erase(it);
    } else {
        if (it != kernel_table_.end() && it->second.metric < c.route.metric) return;
        kernel_table_[c.route.prefix] = c.route;
    }
    kernel_dirty_.push_back(c.route.prefix);
}

void Router::settle_dirty_kernel_prefixes() {
    for (const IpPrefix& p : kernel_dirty_) settle_kernel_prefix(p);
    kernel_dirty_.clear();
}

// The whole table again: the snapshot replaces what was held, and only
// prefixes whose route differs are changed in the workers' tables.
Status Router::reread_kernel_routes() {
    const uint64_t start = now_us();
    auto previous = std::move(kernel_table_);
    kernel_table_.clear();
    kernel_next_hops_.clear();
    kernel_dirty_.clear();
    const Status st = route_feed_->read_table([this](const nlmsghdr* m) { kernel_message(m); });
    if (!st) {
        kernel_table_ = std::move(previous);
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
