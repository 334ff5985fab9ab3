// Router mode's RIB (see router.hpp): the routes as configured, learnt and
// changed at run time, each programmed into the workers' tables with the
// next hop it takes now. The control path thread and telemetry threads,
// under the router's lock; never a worker.
#include <algorithm>
#include <variant>

#include "kernel_interface.hpp"
#include "route_rules.hpp"
#include "router.hpp"
#include "router_frames.hpp"

namespace pmdfwd {

// Connected subnets resolve on their port, our addresses are local, static
// neighbours are resolved from the start, static routes follow them.
Status Router::program_config() {
    std::lock_guard lock(mutex_);
    NextHop local;
    local.kind = NextHopKind::local;
    auto hop = tables_->add_next_hop(local);
    if (!hop) return hop.error();
    local_hop_ = hop.value();
    resolve_hops_.assign(ports_.size(), kUnreachableNextHop);
    for (size_t p = 0; p < ports_.size(); ++p) {
        // The kernel interface's link-local address is the router's too:
        // what comes to it (OSPFv3, BGP over link-local) goes to the kernel.
        if (kernel_of(int(p))) {
            const IpPrefix ll = host_prefix(eui64_link_local(ports_[p].mac).address);
            if (!rib_.contains(ll))
                if (auto st = install({ll, Origin::local, {}, int(p)}); !st) return st;
        }
        if (ports_[p].addresses.empty()) continue;
        NextHop resolve;
        resolve.kind = NextHopKind::resolve;
        resolve.port = uint8_t(p);
        auto r = tables_->add_next_hop(resolve);
        if (!r) return r.error();
        resolve_hops_[p] = r.value();
        for (const auto& a : ports_[p].addresses) {
            if (auto st = install({a.network(), Origin::connected, {}, int(p)}); !st) return st;
            if (auto st = install({host_prefix(a.address), Origin::local, {}, int(p)}); !st)
                return st;
            // An IPv4 subnet's network and broadcast addresses name no
            // neighbour: they are the router's to drop (RFC 2644: no
            // directed broadcast is forwarded), never resolved.
            if (a.address.family != IpFamily::v4 || a.length > 30) continue;
            IpAddress broadcast = a.network().address;
            for (unsigned bit = a.length; bit < 32; ++bit)
                broadcast.bytes[bit / 8] |= uint8_t(0x80 >> (bit % 8));
            for (const IpAddress& x : {a.network().address, broadcast})
                if (auto st = install({host_prefix(x), Origin::local, {}, int(p)}); !st) return st;
        }
    }
    for (const auto& n : cfg_.neighbours) {
        const int p = int(std::find_if(ports_.begin(), ports_.end(),
                                       [&](const RouterPort& rp) { return rp.name == n.port; }) -
                          ports_.begin());
        if (auto st = neighbours_.add_static({uint16_t(p), n.address}, n.mac, now_ms(), actions_);
            !st)
            return st;
    }
    apply(actions_);
    for (const auto& r : cfg_.routes) {
        int p = -1;
        for (size_t i = 0; i < ports_.size(); ++i)
            if (ports_[i].name == r.port) p = int(i);
        if (p < 0 && r.via)
            for (size_t i = 0; i < ports_.size() && p < 0; ++i)
                for (const auto& a : ports_[i].addresses)
                    if (contains(a, *r.via)) p = int(i);
        if (auto st = install({r.prefix, Origin::static_route, r.via, p}); !st) return st;
    }
    return Ok{};
}

// The next hop a route takes now: its neighbour's if resolved, else the
// port's "resolve" hop (the control path then resolves the neighbour).
uint32_t Router::next_hop_for(const RibRoute& r) const {
    if (r.group) return r.group->next_hop;
    switch (r.origin) {
        case Origin::local:
            return local_hop_;
        case Origin::connected:
            return resolve_hops_[size_t(r.port)];
        default:
            break;
    }
    if (r.via) {
        const auto a = adjacencies_.find({uint16_t(r.port), *r.via});
        if (a != adjacencies_.end()) return a->second.next_hop;
    }
    return resolve_hops_[size_t(r.port)];
}

Status Router::install(RibRoute route) {
    route.next_hop = next_hop_for(route);
    if (auto st = tables_->set_route(route.prefix, route.next_hop); !st) {
        release_group(route.group);  // made for this route, if no other uses it
        return st;
    }
    auto [it, fresh] = rib_.try_emplace(route.prefix, route);
    if (fresh) rib_order_.insert(route.prefix);
    EcmpGroup* const was = fresh ? nullptr : it->second.group;
    if (!fresh) unindex_gateway(it->second);
    it->second = route;
    index_gateway(route);
    if (route.group != was) {
        if (route.group) route.group->routes++;
        if (was) {
            was->routes--;
            release_group(was);
        }
    }
    return Ok{};
}

void Router::forget(Rib::iterator route) {
    EcmpGroup* const group = route->second.group;
    unindex_gateway(route->second);
    rib_order_.erase(route->first);
    rib_.erase(route);
    if (group) {
        group->routes--;
        release_group(group);
    }
}

// A neighbour's own host route is not indexed: it is the neighbour's, made
// and removed with its adjacency.
void Router::index_gateway(const RibRoute& r) {
    if (r.via && r.port >= 0 && r.origin != Origin::neighbour)
        routes_via_[{uint16_t(r.port), *r.via}].insert(r.prefix);
}

void Router::unindex_gateway(const RibRoute& r) {
    if (!r.via || r.port < 0 || r.origin == Origin::neighbour) return;
    const auto it = routes_via_.find({uint16_t(r.port), *r.via});
    if (it == routes_via_.end()) return;
    it->second.erase(r.prefix);
    if (it->second.empty()) routes_via_.erase(it);
}

void Router::reinstall_routes_via(const NeighbourKey& key) {
    const auto it = routes_via_.find(key);
    if (it == routes_via_.end()) return;
    // A copy: install() takes each out of the index and puts it back.
    const std::vector<IpPrefix> prefixes(it->second.begin(), it->second.end());
    for (const IpPrefix& p : prefixes) (void)install(rib_.at(p));
}

const Router::RibRoute* Router::longest_match(const IpAddress& address) const {
    for (int len = int(address.bits()); len >= 0; --len) {
        const IpPrefix p = IpPrefix{address, uint8_t(len)}.network();
        const auto it = rib_.find(p);
        if (it != rib_.end()) return &it->second;
    }
    return nullptr;
}

// Whether the RIB reaches `address` on `port` without a gateway: a
// connected subnet, a route with a port and no via, or that address's own
// host route there. Only such a neighbour is learnt from what it sends: its
// host route would otherwise take any address's traffic to whoever claimed it.
bool Router::on_link(int port, const IpAddress& address) const {
    const RibRoute* r = longest_match(address);
    if (!r || r->port != port) return false;
    switch (r->origin) {
        case Origin::connected:
            return true;
        case Origin::neighbour:
            return r->via && *r->via == address;
        case Origin::static_route:
        case Origin::runtime:
        case Origin::kernel:
            return !r->via;
        case Origin::local:
            break;
    }
    return false;
}

Status Router::add_route(const IpPrefix& prefix, std::optional<IpAddress> via,
                         const std::string& port_name) {
    return add_route(prefix, std::vector<RoutePath>{{via, port_name}});
}

// The config's rules (route_rules.cpp) for each path, then what only the
// running table knows: a neighbour's host route is the neighbour's.
Status Router::add_route(const IpPrefix& prefix, const std::vector<RoutePath>& paths) {
    std::lock_guard lock(mutex_);
    return add_route_locked(prefix, paths, Origin::runtime);
}

Status Router::delete_route(const IpPrefix& prefix) {
    std::lock_guard lock(mutex_);
    return delete_route_locked(prefix);
}

RouteBatchResult Router::apply_route_changes(std::span<const RouteChange> changes) {
    std::lock_guard lock(mutex_);
    RouteBatchResult r;
    std::vector<RoutePath> one(1);
    for (size_t i = 0; i < changes.size(); ++i) {
        const RouteChange& c = changes[i];
        one[0] = c.path;
        const Status st = c.remove ? delete_route_locked(c.prefix)
                                   : add_route_locked(c.prefix, one, Origin::runtime);
        if (st) {
            ++(c.remove ? r.deleted : r.added);
            continue;
        }
        if (r.refused++ == 0) {
            r.first_refused = i;
            r.error = st.error().message;
        }
    }
    return r;
}

Status Router::add_route_locked(const IpPrefix& prefix, const std::vector<RoutePath>& paths,
                                Origin origin) {
    if (paths.empty()) return make_error("a route needs a gateway or a port");
    if (paths.size() > kMaxEcmpPaths)
        return make_error("a route has at most " + std::to_string(kMaxEcmpPaths) + " paths");
    std::vector<EcmpPath> checked;
    int port = -1;
    for (const RoutePath& path : paths) {
        port = -1;
        for (size_t i = 0; i < ports_.size(); ++i)
            if (ports_[i].name == path.port) port = int(i);
        if (!path.port.empty() && port < 0) return make_error("no port '" + path.port + "'");
        if (paths.size() > 1 && !path.via)
            return make_error("each path of an equal-cost route needs a gateway (--via)");
        const auto verdict = check_route(prefix, path.via, port, routed_ports_);
        if (const auto* problem = std::get_if<RouteProblem>(&verdict))
            return make_error(problem->message);
        port = std::get<RouteTarget>(verdict).port;
        checked.push_back({path.via, uint16_t(port), 1});
    }
    std::sort(checked.begin(), checked.end());
    checked.erase(std::unique(checked.begin(), checked.end()), checked.end());
    const auto it = rib_.find(prefix);
    if (it != rib_.end() && it->second.origin != Origin::static_route &&
        it->second.origin != Origin::runtime && it->second.origin != Origin::kernel)
        return make_error("'" + prefix.to_string() + "' is " + describe_origin(it->second));
    RibRoute route{prefix, origin, checked[0].via, int(checked[0].port)};
    if (checked.size() > 1 && cfg_.l3.max_ecmp_groups > 0) {
        route.group = group_for(checked);
        if (route.group) route = {prefix, origin, {}, -1, route.group};
    }
    return install(route);
}

Status Router::delete_route_locked(const IpPrefix& prefix) {
    const auto it = rib_.find(prefix);
    if (it == rib_.end()) return make_error("no route " + prefix.to_string());
    if (it->second.origin != Origin::static_route && it->second.origin != Origin::runtime)
        return make_error("'" + prefix.to_string() + "' is " + describe_origin(it->second) +
                          (it->second.origin == Origin::neighbour
                               ? "; it goes when the neighbour does"
                               : "; it goes with the port's address"));
    if (auto st = tables_->delete_route(prefix); !st) return st;
    forget(it);
    // The kernel's route to the prefix, if it has one, takes its place.
    if (kernel_table_.contains(prefix)) settle_kernel_prefix(prefix);
    return Ok{};
}

// What a route the operator may not change is, in words.
std::string Router::describe_origin(const RibRoute& r) const {
    const std::string port = r.port >= 0 ? " of port '" + ports_[size_t(r.port)].name + "'" : "";
    switch (r.origin) {
        case Origin::connected:
            return "the connected subnet" + port;
        case Origin::local:
            return "one of the router's own addresses" + port +
                   " (an address, or its subnet's network or broadcast address)";
        case Origin::neighbour:
            return "the host route of neighbour " + (r.via ? r.via->to_string() : "?") + port +
                   ", learned by ARP or neighbour discovery";
        case Origin::kernel:
            return "a route of kernel table " + std::to_string(cfg_.l3.kernel_routes_table);
        case Origin::static_route:
        case Origin::runtime:
            break;
    }
    return "a static or added route";
}

// A route as show routes lists it; under the lock.
RouteInfo Router::route_info(const RibRoute& r) const {
    static constexpr const char* kOrigins[] = {"connected", "local",   "neighbour",
                                               "static",    "runtime", "kernel"};
    const auto state_of = [&](uint32_t next_hop) {
        const NextHop& nh = tables_->next_hop(next_hop);
        return nh.kind == NextHopKind::forward   ? "forward"
               : nh.kind == NextHopKind::local   ? "local"
               : nh.kind == NextHopKind::resolve ? "resolving"
                                                 : "unreachable";
    };
    RouteInfo info{r.prefix, kOrigins[size_t(r.origin)], "", "", ""};
    if (!r.group) {
        if (r.via) info.via = r.via->to_string();
        if (r.port >= 0) info.port = ports_[size_t(r.port)].name;
        info.state = state_of(r.next_hop);
        return info;
    }
    // Path by path; forward once every path's neighbour is resolved.
    bool resolved = true;
    for (size_t i = 0; i < r.group->paths->size(); ++i) {
        const EcmpPath& p = (*r.group->paths)[i];
        info.via += (i ? "," : "") + p.via->to_string();
        info.port += (i ? "," : "") + ports_[p.port].name;
        resolved = resolved && tables_->next_hop(r.group->hops[i]).kind == NextHopKind::forward;
    }
    info.state = resolved ? "forward" : "resolving";
    return info;
}

std::optional<RouteInfo> Router::route_of(const IpAddress& address) const {
    std::lock_guard lock(mutex_);
    const RibRoute* r = longest_match(address);
    if (!r) return std::nullopt;
    return route_info(*r);
}

std::vector<RouteInfo> Router::routes(size_t first, size_t max, size_t* total) const {
    std::lock_guard lock(mutex_);
    if (total) *total = rib_.size();
    std::vector<RouteInfo> out;
    // The page after the last one starts where that ended (the routes
    // around it may have changed since: paging a changing table is only
    // ever approximate); any other walks from the first route.
    auto it = rib_order_.begin();
    if (first != 0 && first == page_end_ && page_end_prefix_) {
        it = rib_order_.lower_bound(*page_end_prefix_);
    } else {
        for (size_t skipped = 0; skipped < first && it != rib_order_.end(); ++skipped) ++it;
    }
    for (; it != rib_order_.end() && out.size() < max; ++it)
        out.push_back(route_info(rib_.at(*it)));
    page_end_ = first + out.size();
    page_end_prefix_ = it != rib_order_.end() ? std::optional<IpPrefix>(*it) : std::nullopt;
    return out;
}

}  // namespace pmdfwd
