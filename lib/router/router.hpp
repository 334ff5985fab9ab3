// Router mode's control path: the routing table as configured and changed
// at run time (RIB), programmed into the workers' tables (RouterTables);
// neighbours resolved with ARP and neighbour discovery; ICMP echo answered
// and ICMP errors sent, rate limited. One thread of its own polls the
// workers' punt rings every millisecond and does all of it; telemetry
// threads call the public methods, which take the same lock. Never a worker.
// One class, its member functions defined by message kind: router.cpp
// (building, the poll loop, dispatch, transmit), router_rib.cpp,
// router_arp.cpp, router_nd.cpp, router_to_us.cpp, router_icmp_errors.cpp,
// router_neighbours.cpp, router_ecmp.cpp, router_kernel.cpp,
// router_kernel_routes.cpp.
#pragma once

#include <rte_mbuf.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config.hpp"
#include "ecmp_paths.hpp"
#include "error.hpp"
#include "icmp_packet.hpp"
#include "link_state.hpp"
#include "neighbour_table.hpp"
#include "own_addresses.hpp"
#include "punt_ring.hpp"
#include "route_message.hpp"
#include "route_rules.hpp"
#include "route_tables.hpp"
#include "router_api.hpp"
#include "router_counters.hpp"
#include "stats_records.hpp"
#include "token_bucket.hpp"

struct nlmsghdr;

namespace pmdfwd {
class KernelInterface;
class RouteFeed;
class RouteNetlink;
}  // namespace pmdfwd

struct rte_ring;
struct rte_mempool;

namespace pmdfwd {

// A routed port as the control path sends on it.
struct RouterPort {
    std::string name;
    uint16_t port_id = 0;
    int control_queue = -1;  // its TX queue; -1: not routed
    MacAddr mac;
    std::vector<IpPrefix> addresses;
    uint16_t mtu = 1500;
    std::string kernel_interface;  // its name; empty: none
    // The port's link as the main lcore samples it (kernel_link.cpp where
    // the PMD reads it wrong); null: always up.
    const LinkCell* link = nullptr;
};

// One route as `show routes` lists it. An equal-cost route's gateways and
// ports are listed with commas, path by path.
struct RouteInfo {
    IpPrefix prefix;
    std::string origin;  // connected, local, neighbour, static, runtime, kernel
    std::string via;     // "" for none
    std::string port;
    std::string state;  // forward, resolving, local, ecmp
};

// One path of a route as an operator gives it: a gateway, a port, or both.
struct RoutePath {
    std::optional<IpAddress> via;
    std::string port;  // "": the port whose subnet holds via
};

// One change of a batch (pmdctl route load): an add or replace with one
// path, or a delete.
struct RouteChange {
    IpPrefix prefix;
    bool remove = false;
    RoutePath path;
};
// What a reload gives the router (Appliance::reload): the config's static
// routes and neighbours as they should be now, and [l3] with its rates.
struct RouterReload {
    std::vector<RouteConfig> routes;
    std::vector<NeighbourConfig> neighbours_before;
    std::vector<NeighbourConfig> neighbours;
    L3Config l3;
};

struct RouteBatchResult {
    uint64_t added = 0, deleted = 0, refused = 0;
    size_t first_refused = 0;  // the first refused change's index, when any
    std::string error;         // and why
};

class Router {
  public:
    // ports: by config port index. workers: RCU ids and punt rings 0..n-1.
    // pool: the control path's own frames (requests, replies, ICMP errors).
    static Result<std::unique_ptr<Router>> create(const Config& cfg, std::vector<RouterPort> ports,
                                                  unsigned workers, int socket,
                                                  const std::string& name, rte_mempool* pool);
    ~Router();

    RouterView view() const {
        RouterView v = tables_->view();
        v.own = &own_;
        return v;
    }
    rte_ring* punt_ring(unsigned worker) const { return punt_rings_[worker].get(); }

    void start();  // the control thread, once the workers run
    // Joins the thread, then frees every packet it holds or that waits in
    // a punt ring: after the workers stopped, before the pools' audit.
    void stop();

    // Telemetry and tests; any thread.
    Status add_route(const IpPrefix& prefix, std::optional<IpAddress> via, const std::string& port);
    // Several paths: an equal-cost route, each path a gateway (l3.max_ecmp_groups).
    Status add_route(const IpPrefix& prefix, const std::vector<RoutePath>& paths);
    Status delete_route(const IpPrefix& prefix);
    // Changes in order under one hold of the lock: a refused one is
    // counted and the rest go on.
    RouteBatchResult apply_route_changes(std::span<const RouteChange> changes);
    // Routes first .. first + max in prefix order, and how many there are:
    // telemetry asks a page at a time, and the lock is held for one page.
    std::vector<RouteInfo> routes(size_t first = 0, size_t max = SIZE_MAX,
                                  size_t* total = nullptr) const;
    std::vector<NeighbourEntry> neighbours() const;
    // The route that covers an address now (longest match), if any: what a
    // packet trace names as a packet's route.
    std::optional<RouteInfo> route_of(const IpAddress& address) const;
    // The static and run-time routes of one path, as [[route]] tables: the
    // running config's (show config, config save).
    std::vector<RouteConfig> configured_routes() const;
    // A reload, under one hold of the lock: static and run-time routes not
    // in r.routes go, r.routes are installed (as static) where they differ;
    // neighbours of neighbours_before not in neighbours go, the others are
    // added or replaced; the ICMP error and kernel interface rates are r.l3's.
    // An error (a full table) names the route or neighbour; what came
    // before it is applied.
    Status reload(const RouterReload& r);
    RouterCounters counters() const;
    RouterTableSizes sizes() const;
    NeighbourCounters neighbour_counters() const;
    // One pass of the control thread's work (tests drive it without the thread).
    void poll(uint64_t now_ms);

  private:
    enum class Origin : uint8_t;
    Status add_route_locked(const IpPrefix& prefix, const std::vector<RoutePath>& paths,
                            Origin origin);
    Status delete_route_locked(const IpPrefix& prefix);
    enum class Origin : uint8_t { connected, local, neighbour, static_route, runtime, kernel };
    // The [l3] rates a reload may change (the control thread reads them).
    uint32_t icmp_rate_limit_ = 0;
    uint32_t kernel_rate_limit_ = 0;
    // The paths of equal-cost routes, one group per set of paths, shared by
    // every route with that set: the group's next hop in the workers'
    // tables and its buckets, each bucket holding the next hop its path
    // takes now (the neighbour's, or its port's resolve hop).
    struct EcmpGroup {
        const std::vector<EcmpPath>* paths = nullptr;  // the key in groups_
        EcmpBuckets path_of{};                         // bucket -> index into *paths
        std::vector<uint32_t> hops;                    // by path: what its buckets hold
        uint32_t next_hop = kUnreachableNextHop;
        uint32_t routes = 0;  // RIB routes through the group
    };
    struct RibRoute {
        IpPrefix prefix;
        Origin origin = Origin::connected;
        std::optional<IpAddress> via;  // static/runtime routes through a neighbour
        int port = -1;                 // -1 for an equal-cost route
        EcmpGroup* group = nullptr;    // an equal-cost route's paths
        uint32_t next_hop = kUnreachableNextHop;
    };
    using Rib = std::unordered_map<IpPrefix, RibRoute, IpPrefixHash>;
    struct Adjacency {  // the forward next hop of a resolved neighbour
        uint32_t next_hop = kUnreachableNextHop;
        MacAddr mac;
    };

    Router(const Config& cfg, std::vector<RouterPort> ports);

    // The poll loop, dispatch by punt reason, the ports and what sends on
    // them (router.cpp).
    Status build(unsigned workers, int socket, const std::string& name);
    void run();
    void handle(rte_mbuf* m, uint64_t now_ms);
    void handle_neighbour(rte_mbuf* m, int port, uint64_t now_ms);
    int port_index_of(uint16_t port_id) const;
    const IpAddress* address_on(int port, IpFamily family, const IpAddress* near) const;
    void transmit(int port, rte_mbuf* m);
    rte_mbuf* alloc_frame();

    // The RIB: routes, their next hops, the config's and the operator's
    // (router_rib.cpp).
    Status program_config();
    // Every change to rib_ goes through these two: they keep the groups'
    // route counts, and retire a group no route uses.
    Status install(RibRoute route);
    void forget(Rib::iterator route);
    void index_gateway(const RibRoute& r);
    void unindex_gateway(const RibRoute& r);
    // Every route through a gateway again, after its neighbour changed.
    void reinstall_routes_via(const NeighbourKey& key);
    uint32_t next_hop_for(const RibRoute& r) const;
    const RibRoute* longest_match(const IpAddress& address) const;
    RouteInfo route_info(const RibRoute& r) const;
    bool on_link(int port, const IpAddress& address) const;
    std::string describe_origin(const RibRoute& r) const;

    // Equal-cost groups (router_ecmp.cpp).
    // The group of these paths (sorted, at least two), made if none has
    // them; null when l3.max_ecmp_groups are all taken (counted).
    EcmpGroup* group_for(std::vector<EcmpPath> paths);
    void release_group(EcmpGroup* group);  // retired when no route uses it
    uint32_t path_hop(const EcmpPath& path) const;
    // A neighbour's next hop changed: the buckets of its paths follow.
    void repoint_groups(const NeighbourKey& key);
    // The path a worker took for a packet of an equal-cost route.
    const EcmpPath& path_of_packet(const EcmpGroup& group, const rte_mbuf* m) const;

    // ARP (router_arp.cpp) and neighbour discovery (router_nd.cpp): the
    // frame's L3 header at l3_offset.
    void handle_arp(rte_mbuf* m, int port, uint16_t l3_offset, uint64_t now_ms);
    void handle_nd(rte_mbuf* m, int port, uint16_t l3_offset, uint64_t now_ms);

    // Packets to our addresses (router_to_us.cpp).
    void handle_to_us(rte_mbuf* m, int port);
    bool to_subnet_broadcast(std::span<const uint8_t> frame) const;

    // ICMP errors, rate limited (router_icmp_errors.cpp).
    void send_icmp_error(rte_mbuf* m, int port, IcmpError error);

    // The ports' kernel interfaces (router_kernel.cpp): a copy of a frame
    // to the kernel, rate limited (the caller keeps m); what the kernel
    // sends, out by the port; the carrier after the port's link.
    Status open_kernel_interfaces();
    KernelInterface* kernel_of(int port) const {
        return port >= 0 ? kernel_ifs_[size_t(port)].get() : nullptr;
    }
    void to_kernel(int port, const rte_mbuf* m);
    void from_kernel(uint64_t now_ms);

    // Routes mirrored from a kernel table (router_kernel_routes.cpp).
    Status open_kernel_routes();
    Status reread_kernel_routes();
    void poll_kernel_routes();
    void kernel_message(const nlmsghdr* message);
    void settle_kernel_prefix(const IpPrefix& prefix);
    void settle_dirty_kernel_prefixes();
    // kernel_table_'s changes, its index by next-hop object kept with it.
    void hold_kernel_route(const KernelRoute& route);
    void drop_kernel_route(const IpPrefix& prefix);
    // May make the route's equal-cost group.
    std::optional<RibRoute> rib_route_of(const KernelRoute& route, KernelRouteSkip& why);
    int port_of_ifindex(unsigned ifindex) const;

    // The neighbour table's actions and the adjacencies they make
    // (router_neighbours.cpp).
    void handle_unresolved(rte_mbuf* m, uint64_t now_ms);
    void apply(std::vector<NeighbourAction>& actions);
    void log_neighbour_pressure(uint64_t now_ms);
    void log_kernel_routes_refused(uint64_t now_ms);
    void neighbour_installed(const NeighbourKey& key, const MacAddr& mac);
    void neighbour_removed(const NeighbourKey& key);
    void send_request(const NeighbourKey& key, std::optional<MacAddr> unicast);
    void send_resolved(rte_mbuf* m, const NeighbourKey& key, const MacAddr& mac);

    const Config& cfg_;
    std::vector<RouterPort> ports_;
    std::vector<RoutedPort> routed_ports_;  // ports_ as route_rules sees them
    std::vector<int> port_of_id_;           // DPDK port id -> config port index
    std::unique_ptr<RouterTables> tables_;
    std::vector<PuntRing> punt_rings_;    // by worker
    rte_mempool* pool_ = nullptr;         // the control path's own frames
    std::vector<uint32_t> resolve_hops_;  // per port: "resolve on this port"
    OwnAddresses own_;                    // every port's addresses: the workers' checks
    uint32_t local_hop_ = kUnreachableNextHop;
    std::unique_ptr<RouteNetlink> netlink_;                     // with any kernel interface
    std::vector<std::unique_ptr<KernelInterface>> kernel_ifs_;  // by port; null: none
    std::unique_ptr<RouteFeed> route_feed_;                     // with l3.kernel_routes

    mutable std::mutex mutex_;  // everything below, and every change to tables_
    // Every route by prefix, hashed: a kernel change at a million routes
    // looks its prefix up with a miss or two, not a tree walk's twenty. The
    // prefixes in order (family, address, length) are what routes() lists
    // by; a route that only changes leaves the order as it is.
    Rib rib_;
    std::set<IpPrefix> rib_order_;
    // The routes through each gateway (static, runtime and kernel routes
    // with a via): what a neighbour that resolves, changes or goes re-points,
    // without a walk of the whole RIB. Kept by install() and forget().
    std::map<NeighbourKey, std::unordered_set<IpPrefix, IpPrefixHash>> routes_via_;
    // Where the last page of routes() ended: the next page starts there by
    // one lookup, not a walk from the first route (a full table is
    // thousands of pages).
    mutable size_t page_end_ = 0;
    mutable std::optional<IpPrefix> page_end_prefix_;
    std::map<NeighbourKey, Adjacency> adjacencies_;
    std::map<std::vector<EcmpPath>, EcmpGroup> groups_;
    NeighbourTable neighbours_;
    std::vector<NeighbourAction> actions_;
    // [port * 2 + family]: a flood of errors about one port's (or family's)
    // packets leaves the others theirs.
    std::vector<TokenBucket> icmp_buckets_;
    std::vector<TokenBucket> kernel_buckets_;  // by port: what goes to its kernel interface
    std::vector<uint8_t> kernel_frame_;        // a segmented frame, gathered for the kernel
    uint64_t link_checked_ms_ = 0;
    // The kernel table as last read: its routes (the lowest metric of each
    // prefix), its next-hop objects, and prefixes whose RIB entry is due.
    std::unordered_map<IpPrefix, KernelRoute, IpPrefixHash> kernel_table_;
    // The kernel routes through each next-hop object: a change to one
    // settles its routes without a pass over a full table.
    std::unordered_map<uint32_t, std::unordered_set<IpPrefix, IpPrefixHash>>
        kernel_routes_by_object_;
    std::map<uint32_t, KernelNextHopObject> kernel_next_hops_;
    std::vector<IpPrefix> kernel_dirty_;
    RouterCounters counters_;
    NeighbourCounters pressure_logged_;  // the neighbour counters when last logged
    uint64_t pressure_logged_ms_ = 0;
    // Kernel routes refused (a full table): one line at most every 10 s.
    uint64_t kernel_refused_logged_ = 0, kernel_refused_logged_ms_ = 0;
    std::string kernel_refused_last_;

    std::thread thread_;
    std::atomic<bool> stop_{false};
};

}  // namespace pmdfwd
