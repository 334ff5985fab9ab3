// Router mode's control path (see router.hpp): building it, its thread's
// poll loop over the workers' punt rings, each punt dispatched by reason
// to the file of its message kind, and the one way out (transmit). Its own
// thread, or a test: never a worker. Every packet it takes from a punt ring
// is sent (a reply, or forwarded once its neighbour resolved) or freed and
// counted.
#include "router.hpp"

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <chrono>

#include "kernel_interface.hpp"
#include "l3_forward.hpp"
#include "l3_header.hpp"
#include "route_feed.hpp"
#include "route_netlink.hpp"
#include "router_frames.hpp"

namespace pmdfwd {

namespace {

// How often the thread looks at the punt rings: an ARP reply or a ping of
// the router waits this long at most, and a burst of punts of a ring's size
// arrives in less time than a full ring takes at line rate.
constexpr auto kPollPeriod = std::chrono::milliseconds(1);
constexpr unsigned kDequeueBurst = 64;

// Every port's interface addresses, for the workers' address checks.
std::vector<IpPrefix> all_addresses(const std::vector<RouterPort>& ports) {
    std::vector<IpPrefix> all;
    for (const auto& p : ports) all.insert(all.end(), p.addresses.begin(), p.addresses.end());
    return all;
}

}  // namespace

Router::Router(const Config& cfg, std::vector<RouterPort> ports)
    : cfg_(cfg), ports_(std::move(ports)), own_(all_addresses(ports_)), neighbours_(cfg.l3) {
    for (size_t i = 0; i < 2 * ports_.size(); ++i)
        icmp_buckets_.emplace_back(cfg.l3.icmp_rate_limit, cfg.l3.icmp_rate_burst);
    icmp_rate_limit_ = cfg.l3.icmp_rate_limit;
    kernel_rate_limit_ = cfg.l3.kernel_rate_limit;
}

// The punt rings go after stop(): their owners free what they still hold.
Router::~Router() { stop(); }

Result<std::unique_ptr<Router>> Router::create(const Config& cfg, std::vector<RouterPort> ports,
                                               unsigned workers, int socket,
                                               const std::string& name, rte_mempool* pool) {
    std::unique_ptr<Router> r(new Router(cfg, std::move(ports)));
    r->pool_ = pool;
    if (auto st = r->build(workers, socket, name); !st) return st.error();
    return r;
}

Status Router::build(unsigned workers, int socket, const std::string& name) {
    port_of_id_.assign(RTE_MAX_ETHPORTS, -1);
    for (const RouterPort& p : ports_) routed_ports_.push_back({p.name, p.addresses});
    for (size_t p = 0; p < ports_.size(); ++p) port_of_id_[ports_[p].port_id] = int(p);
    auto tables = RouterTables::create(name, cfg_.l3, workers, socket);
    if (!tables) return tables.error();
    tables_ = std::move(tables.value());
    for (unsigned w = 0; w < workers; ++w) {
        auto ring = PuntRing::create(name + "_punt" + std::to_string(w), cfg_.l3.punt_ring, socket);
        if (!ring) return ring.error();
        punt_rings_.push_back(std::move(ring.value()));
    }
    if (auto st = open_kernel_interfaces(); !st) return st;
    if (auto st = program_config(); !st) return st;
    return open_kernel_routes();
}

int Router::port_index_of(uint16_t port_id) const {
    return port_id < port_of_id_.size() ? port_of_id_[port_id] : -1;
}

// One of the port's addresses of that family: the one whose subnet holds
// `near` if any, else the first.
const IpAddress* Router::address_on(int port, IpFamily family, const IpAddress* near) const {
    if (port < 0) return nullptr;
    const IpAddress* first = nullptr;
    for (const auto& a : ports_[size_t(port)].addresses) {
        if (a.address.family != family) continue;
        if (near && contains(a, *near)) return &a.address;
        if (!first) first = &a.address;
    }
    return first;
}

RouterCounters Router::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

RouterTableSizes Router::sizes() const {
    std::lock_guard lock(mutex_);
    RouterTableSizes s;
    s.routes = rib_.size();
    s.neighbours = neighbours_.size();
    s.next_hops = tables_->in_use();
    s.ecmp_groups = groups_.size();
    s.neighbours_resolving = neighbours_.resolving();
    s.waiting = neighbours_.waiting();
    s.waiting_peak = neighbours_.waiting_peak();
    return s;
}

NeighbourCounters Router::neighbour_counters() const {
    std::lock_guard lock(mutex_);
    return neighbours_.counters();
}

void Router::start() {
    stop_.store(false);
    thread_ = std::thread([this] { run(); });
}

void Router::stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mutex_);
    for (PuntRing& r : punt_rings_) r.drain();
    for (size_t p = 0; p < ports_.size(); ++p) neighbours_.remove_port(uint16_t(p), actions_);
    apply(actions_);
}

void Router::run() {
    pthread_setname_np(pthread_self(), "pmdfwd-l3");
    while (!stop_.load(std::memory_order_relaxed)) {
        poll(now_ms());
        std::this_thread::sleep_for(kPollPeriod);
    }
}

void Router::poll(uint64_t now) {
    std::lock_guard lock(mutex_);
    rte_mbuf* pkts[kDequeueBurst];
    for (PuntRing& r : punt_rings_) {
        unsigned n;
        while ((n = r.dequeue(pkts, kDequeueBurst)) != 0) {
            counters_.punts += n;
            for (unsigned i = 0; i < n; ++i) handle(pkts[i], now);
        }
    }
    from_kernel(now);
    poll_kernel_routes();
    neighbours_.tick(now, actions_);
    apply(actions_);
    tables_->reclaim();
    log_neighbour_pressure(now);
    log_kernel_routes_refused(now);
}

// Each punt counted by its reason, then handled by the file of its kind.
void Router::handle(rte_mbuf* m, uint64_t now) {
    const int port = port_index_of(m->port);
    const auto why = PuntReason(m->hash.usr);
    if (uint64_t* punts = counters_.punts_for(why)) ++*punts;
    switch (why) {
        case PuntReason::neighbour:
            return handle_neighbour(m, port, now);
        case PuntReason::local:
            return handle_to_us(m, port);
        case PuntReason::no_neighbour:
            return handle_unresolved(m, now);
        case PuntReason::time_exceeded:
            send_icmp_error(m, port, IcmpError::time_exceeded);
            return rte_pktmbuf_free(m);
        case PuntReason::unreachable:
            send_icmp_error(m, port, IcmpError::net_unreachable);
            return rte_pktmbuf_free(m);
        case PuntReason::parameter_problem:
            send_icmp_error(m, port, IcmpError::parameter_problem);
            return rte_pktmbuf_free(m);
        case PuntReason::count:
            break;
    }
    rte_pktmbuf_free(m);
}

// ARP and ND: answer what asks for our addresses, learn who asked and who
// answered (router_arp.cpp, router_nd.cpp); a port's kernel interface gets a
// copy first, so that the kernel resolves the neighbours it sends to.
void Router::handle_neighbour(rte_mbuf* m, int port, uint64_t now) {
    if (port < 0 || ports_[size_t(port)].control_queue < 0) {
        counters_.arp_ignored++;
        return rte_pktmbuf_free(m);
    }
    to_kernel(port, m);
    const L3Header h = parse_l3_header(frame_of(m), m->pkt_len, true);
    if (h.ethertype == kEtherTypeArp) return handle_arp(m, port, h.l3_offset, now);
    handle_nd(m, port, h.l3_offset, now);
}

void Router::transmit(int port, rte_mbuf* m) {
    const RouterPort& rp = ports_[size_t(port)];
    if (rp.control_queue < 0 ||
        rte_eth_tx_burst(rp.port_id, uint16_t(rp.control_queue), &m, 1) != 1) {
        counters_.control_tx_failed++;
        rte_pktmbuf_free(m);
    }
}

rte_mbuf* Router::alloc_frame() {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    if (!m) counters_.control_alloc_failed++;
    return m;
}

}  // namespace pmdfwd
