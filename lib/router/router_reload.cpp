// A reload of router mode's config (see router.hpp): static routes and
// neighbours brought to the new file's, the rates it may change taken.
// Telemetry thread or main lcore, under the router's lock.
#include <algorithm>

#include "router.hpp"
#include "router_frames.hpp"

namespace pmdfwd {

std::vector<RouteConfig> Router::configured_routes() const {
    std::lock_guard lock(mutex_);
    std::vector<RouteConfig> out;
    for (const IpPrefix& prefix : rib_order_) {
        const RibRoute& r = rib_.at(prefix);
        if ((r.origin != Origin::static_route && r.origin != Origin::runtime) || r.group) continue;
        RouteConfig c;
        c.prefix = r.prefix;
        c.via = r.via;
        if (r.port >= 0) c.port = ports_[size_t(r.port)].name;
        out.push_back(std::move(c));
    }
    return out;
}

Status Router::reload(const RouterReload& r) {
    std::lock_guard lock(mutex_);
    // Routes: what the file no longer has goes (equal-cost routes added at
    // run time have no [[route]] form and stay).
    std::vector<IpPrefix> gone;
    for (const auto& [prefix, route] : rib_) {
        if ((route.origin != Origin::static_route && route.origin != Origin::runtime) ||
            route.group)
            continue;
        const bool kept = std::any_of(r.routes.begin(), r.routes.end(),
                                      [&](const RouteConfig& c) { return c.prefix == prefix; });
        if (!kept) gone.push_back(prefix);
    }
    for (const IpPrefix& prefix : gone)
        if (auto st = delete_route_locked(prefix); !st) return st;
    for (const RouteConfig& c : r.routes) {
        const auto it = rib_.find(c.prefix);
        if (it != rib_.end() && it->second.origin == Origin::static_route && !it->second.group &&
            it->second.via == c.via &&
            (c.port.empty() ||
             (it->second.port >= 0 && ports_[size_t(it->second.port)].name == c.port)))
            continue;  // as it was
        if (auto st = add_route_locked(c.prefix, {{c.via, c.port}}, Origin::static_route); !st)
            return make_error("[[route]] " + c.prefix.to_string() + ": " + st.error().message);
    }
    // Neighbours.
    const auto port_index = [&](const std::string& name) {
        for (size_t i = 0; i < ports_.size(); ++i)
            if (ports_[i].name == name) return uint16_t(i);
        return uint16_t(ports_.size());
    };
    const auto same = [](const NeighbourConfig& a, const NeighbourConfig& b) {
        return a.address == b.address && a.mac == b.mac && a.port == b.port;
    };
    // One kept at its port and address (its MAC changed, say) is replaced
    // in place below: removing it first would send its routes' traffic to
    // the control path meanwhile.
    for (const NeighbourConfig& old : r.neighbours_before) {
        if (std::any_of(r.neighbours.begin(), r.neighbours.end(), [&](const NeighbourConfig& n) {
                return n.address == old.address && n.port == old.port;
            }))
            continue;
        neighbours_.remove({port_index(old.port), old.address}, actions_);
    }
    apply(actions_);
    for (const NeighbourConfig& n : r.neighbours) {
        if (std::any_of(r.neighbours_before.begin(), r.neighbours_before.end(),
                        [&](const NeighbourConfig& old) { return same(n, old); }))
            continue;
        if (auto st =
                neighbours_.add_static({port_index(n.port), n.address}, n.mac, now_ms(), actions_);
            !st)
            return make_error("[[neighbour]] " + n.address.to_string() + ": " + st.error().message);
        apply(actions_);
    }
    neighbours_.set_limits(r.l3);
    // Rates: each bucket starts full at the new burst.
    icmp_rate_limit_ = r.l3.icmp_rate_limit;
    for (TokenBucket& b : icmp_buckets_)
        b = TokenBucket(r.l3.icmp_rate_limit, r.l3.icmp_rate_burst);
    kernel_rate_limit_ = r.l3.kernel_rate_limit;
    for (TokenBucket& b : kernel_buckets_)
        b = TokenBucket(r.l3.kernel_rate_limit, r.l3.kernel_rate_burst);
    return Ok{};
}

}  // namespace pmdfwd
