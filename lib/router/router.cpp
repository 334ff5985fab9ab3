// Router mode's control path (see router.hpp). Its own thread, or a test:
// never a worker. Every packet it takes from a punt ring is sent (a reply,
// or forwarded once its neighbour resolved) or freed and counted.
#include "router.hpp"

#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstring>
#include <variant>

#include "arp_packet.hpp"
#include "icmp_packet.hpp"
#include "ip_checksum.hpp"
#include "l3_forward.hpp"
#include "l3_header.hpp"
#include "nd_packet.hpp"
#include "route_rules.hpp"
#include "wire_bytes.hpp"

namespace pmdfwd {

namespace {

// How often the thread looks at the punt rings: an ARP reply or a ping of
// the router waits this long at most, and a burst of punts of a ring's size
// arrives in less time than a full ring takes at line rate.
constexpr auto kPollPeriod = std::chrono::milliseconds(1);
constexpr unsigned kDequeueBurst = 64;

uint64_t now_ms() {
    return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

std::span<uint8_t> frame_of(rte_mbuf* m) {
    return {rte_pktmbuf_mtod(m, uint8_t*), rte_pktmbuf_data_len(m)};
}

IpAddress v4_address(Ipv4Addr a) {
    IpAddress ip;
    ip.family = IpFamily::v4;
    ip.bytes[0] = uint8_t(a.host_order >> 24);
    ip.bytes[1] = uint8_t(a.host_order >> 16);
    ip.bytes[2] = uint8_t(a.host_order >> 8);
    ip.bytes[3] = uint8_t(a.host_order);
    return ip;
}

Ipv4Addr v4_of(const IpAddress& a) { return Ipv4Addr{a.v4_host_order()}; }

IpPrefix host_prefix(const IpAddress& a) { return IpPrefix{a, uint8_t(a.bits())}; }

std::string key_text(const NeighbourKey& key) {
    return std::to_string(key.port) + "/" + key.address.to_string();
}

// The destination address of the IP packet behind the frame's headers.
std::optional<IpAddress> destination_of(const rte_mbuf* m) {
    const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
    const L3Header h = parse_l3_header({f, rte_pktmbuf_data_len(m)}, m->pkt_len, true);
    IpAddress a;
    if (h.ethertype == kEtherTypeIpv4 && h.l3_header_len) {
        std::memcpy(a.bytes.data(), f + h.l3_offset + 16, 4);
        return a;
    }
    if (h.ethertype == kEtherTypeIpv6 && h.l3_header_len) {
        a.family = IpFamily::v6;
        std::memcpy(a.bytes.data(), f + h.l3_offset + 24, 16);
        return a;
    }
    return std::nullopt;
}

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
}

Router::~Router() {
    stop();
    for (rte_ring* r : punt_rings_) rte_ring_free(r);
}

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
        const std::string ring = name + "_punt" + std::to_string(w);
        rte_ring* r =
            rte_ring_create(ring.c_str(), cfg_.l3.punt_ring, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
        if (!r)
            return make_error("l3: cannot create punt ring '" + ring +
                              "': " + rte_strerror(rte_errno));
        punt_rings_.push_back(r);
    }
    return program_config();
}

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
    switch (r.origin) {
        case Origin::local:
            return local_hop_;
        case Origin::connected:
            return resolve_hops_[size_t(r.port)];
        default:
            break;
    }
    if (r.via) {
        const auto a = adjacencies_.find(key_text({uint16_t(r.port), *r.via}));
        if (a != adjacencies_.end()) return a->second.next_hop;
    }
    return resolve_hops_[size_t(r.port)];
}

Status Router::install(RibRoute route) {
    route.next_hop = next_hop_for(route);
    if (auto st = tables_->set_route(route.prefix, route.next_hop); !st) return st;
    rib_[route.prefix.to_string()] = route;
    return Ok{};
}

const Router::RibRoute* Router::longest_match(const IpAddress& address) const {
    for (int len = int(address.bits()); len >= 0; --len) {
        const IpPrefix p = IpPrefix{address, uint8_t(len)}.network();
        const auto it = rib_.find(p.to_string());
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
            return !r->via;
        case Origin::local:
            break;
    }
    return false;
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

// The config's rules (route_rules.cpp), then what only the running table
// knows: a neighbour's host route is the neighbour's.
Status Router::add_route(const IpPrefix& prefix, std::optional<IpAddress> via,
                         const std::string& port_name) {
    std::lock_guard lock(mutex_);
    int port = -1;
    for (size_t i = 0; i < ports_.size(); ++i)
        if (ports_[i].name == port_name) port = int(i);
    if (!port_name.empty() && port < 0) return make_error("no port '" + port_name + "'");
    const auto verdict = check_route(prefix, via, port, routed_ports_);
    if (const auto* problem = std::get_if<RouteProblem>(&verdict))
        return make_error(problem->message);
    port = std::get<RouteTarget>(verdict).port;
    const auto it = rib_.find(prefix.to_string());
    if (it != rib_.end() && it->second.origin != Origin::static_route &&
        it->second.origin != Origin::runtime)
        return make_error("'" + prefix.to_string() + "' is " + describe_origin(it->second));
    return install({prefix, Origin::runtime, via, port});
}

Status Router::delete_route(const IpPrefix& prefix) {
    std::lock_guard lock(mutex_);
    const auto it = rib_.find(prefix.to_string());
    if (it == rib_.end()) return make_error("no route " + prefix.to_string());
    if (it->second.origin != Origin::static_route && it->second.origin != Origin::runtime)
        return make_error("'" + prefix.to_string() + "' is " + describe_origin(it->second) +
                          (it->second.origin == Origin::neighbour
                               ? "; it goes when the neighbour does"
                               : "; it goes with the port's address"));
    if (auto st = tables_->delete_route(prefix); !st) return st;
    rib_.erase(it);
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
        case Origin::static_route:
        case Origin::runtime:
            break;
    }
    return "a static or added route";
}

std::vector<RouteInfo> Router::routes(size_t first, size_t max, size_t* total) const {
    static constexpr const char* kOrigins[] = {"connected", "local", "neighbour", "static",
                                               "runtime"};
    std::lock_guard lock(mutex_);
    if (total) *total = rib_.size();
    std::vector<RouteInfo> out;
    auto it = rib_.begin();
    for (size_t skipped = 0; skipped < first && it != rib_.end(); ++skipped) ++it;
    for (; it != rib_.end() && out.size() < max; ++it) {
        const RibRoute& r = it->second;
        const NextHop& nh = tables_->next_hop(r.next_hop);
        const char* state = nh.kind == NextHopKind::forward   ? "forward"
                            : nh.kind == NextHopKind::local   ? "local"
                            : nh.kind == NextHopKind::resolve ? "resolving"
                                                              : "unreachable";
        out.push_back({r.prefix, kOrigins[size_t(r.origin)], r.via,
                       r.port >= 0 ? ports_[size_t(r.port)].name : "", state});
    }
    return out;
}

std::vector<NeighbourEntry> Router::neighbours() const {
    std::lock_guard lock(mutex_);
    return neighbours_.list(now_ms());
}

RouterCounters Router::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

RouterTableSizes Router::sizes() const {
    std::lock_guard lock(mutex_);
    return {rib_.size(),           neighbours_.size(),
            tables_->in_use(),     neighbours_.resolving(),
            neighbours_.waiting(), neighbours_.waiting_peak()};
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
    rte_mbuf* pkts[kDequeueBurst];
    for (rte_ring* r : punt_rings_) {
        unsigned n;
        while ((n = rte_ring_sc_dequeue_burst(r, reinterpret_cast<void**>(pkts), kDequeueBurst,
                                              nullptr)) != 0)
            rte_pktmbuf_free_bulk(pkts, n);
    }
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
    for (rte_ring* r : punt_rings_) {
        unsigned n;
        while ((n = rte_ring_sc_dequeue_burst(r, reinterpret_cast<void**>(pkts), kDequeueBurst,
                                              nullptr)) != 0) {
            counters_.punts += n;
            for (unsigned i = 0; i < n; ++i) handle(pkts[i], now);
        }
    }
    neighbours_.tick(now, actions_);
    apply(actions_);
    tables_->reclaim();
    log_neighbour_pressure(now);
}

// A full neighbour table is what a host spoofing ARP or ND, or sending to
// unused addresses, brings about: the operator hears of it, at most every
// kPressureLogPeriodMs, with what it cost since the last time.
void Router::log_neighbour_pressure(uint64_t now) {
    constexpr uint64_t kPressureLogPeriodMs = 10000;
    const NeighbourCounters& c = neighbours_.counters();
    const NeighbourCounters& was = pressure_logged_;
    const auto pressure = [](const NeighbourCounters& n) {
        return n.evicted + n.not_learned + n.table_full_drops + n.resolving_full_drops +
               n.waiting_full_drops;
    };
    if (pressure(c) == pressure(was) ||
        (pressure_logged_ms_ && now < pressure_logged_ms_ + kPressureLogPeriodMs))
        return;
    spdlog::warn(
        "l3: neighbour table under pressure: {} entries (l3.max_neighbours {}), {} resolving "
        "(l3.max_resolving {}), {} packets waiting (l3.max_waiting_packets {}); since the last "
        "report {} stale entries evicted, {} senders not learned, packets dropped: {} "
        "table_full, {} resolving_full, {} waiting_full",
        neighbours_.size(), cfg_.l3.max_neighbours, neighbours_.resolving(), cfg_.l3.max_resolving,
        neighbours_.waiting(), cfg_.l3.max_waiting_packets, c.evicted - was.evicted,
        c.not_learned - was.not_learned, c.table_full_drops - was.table_full_drops,
        c.resolving_full_drops - was.resolving_full_drops,
        c.waiting_full_drops - was.waiting_full_drops);
    pressure_logged_ = c;
    pressure_logged_ms_ = now;
}

void Router::handle(rte_mbuf* m, uint64_t now) {
    const int port = port_index_of(m->port);
    switch (PuntReason(m->hash.usr)) {
        case PuntReason::neighbour:
            counters_.punts_neighbour++;
            return handle_neighbour(m, port, now);
        case PuntReason::to_us:
            counters_.punts_local++;
            return handle_to_us(m, port);
        case PuntReason::no_neighbour:
            counters_.punts_no_neighbour++;
            return handle_unresolved(m, now);
        case PuntReason::time_exceeded:
            counters_.punts_icmp_error++;
            send_icmp_error(m, port, IcmpError::time_exceeded);
            return rte_pktmbuf_free(m);
        case PuntReason::unreachable:
            counters_.punts_icmp_error++;
            send_icmp_error(m, port, IcmpError::net_unreachable);
            return rte_pktmbuf_free(m);
        case PuntReason::parameter_problem:
            counters_.punts_icmp_error++;
            send_icmp_error(m, port, IcmpError::parameter_problem);
            return rte_pktmbuf_free(m);
    }
    rte_pktmbuf_free(m);
}

// ARP and ND: answer what asks for our addresses, learn who asked and who
// answered.
void Router::handle_neighbour(rte_mbuf* m, int port, uint64_t now) {
    const auto frame = frame_of(m);
    const L3Header h = parse_l3_header(frame, m->pkt_len, true);
    if (port < 0 || ports_[size_t(port)].control_queue < 0) {
        counters_.arp_ignored++;
        return rte_pktmbuf_free(m);
    }
    const RouterPort& rp = ports_[size_t(port)];
    const EtherPort ether{rp.mac, std::nullopt};
    if (h.ethertype == kEtherTypeArp) {
        const ArpParse a = parse_arp(frame.subspan(h.l3_offset));
        const IpAddress target = v4_address(a.packet.target_ip);
        const bool for_us = a.reject == ArpReject::none &&
                            address_on(port, IpFamily::v4, &target) &&
                            *address_on(port, IpFamily::v4, &target) == target;
        if (a.reject != ArpReject::none) {
            counters_.arp_ignored++;
            return rte_pktmbuf_free(m);
        }
        const IpAddress sender = v4_address(a.packet.sender_ip);
        // A reply to our address answers our request; anything else for us
        // only says the sender is there, which anyone may claim.
        const NeighbourHeard heard = !for_us                       ? NeighbourHeard::other
                                     : a.packet.op == ArpOp::reply ? NeighbourHeard::answer
                                                                   : NeighbourHeard::request_for_us;
        if (on_link(port, sender))
            neighbours_.learn({uint16_t(port), sender}, a.packet.sender_mac, now, heard, actions_);
        if (for_us && a.packet.op == ArpOp::request) {
            if (rte_mbuf* reply = alloc_frame()) {
                const size_t len = build_arp_reply(
                    {rte_pktmbuf_mtod(reply, uint8_t*), rte_pktmbuf_tailroom(reply)}, ether,
                    a.packet);
                reply->data_len = reply->pkt_len = uint32_t(len);
                transmit(port, reply);
                counters_.arp_requests_answered++;
            }
        } else if (!for_us) {
            counters_.arp_ignored++;
        }
        rte_pktmbuf_free(m);
        return apply(actions_);
    }
    const NdParse nd = parse_nd(frame.subspan(h.l3_offset));
    if (nd.reject != NdReject::none) {
        counters_.nd_ignored++;
        return rte_pktmbuf_free(m);
    }
    const NdMessage& msg = nd.message;
    const IpAddress* ours = address_on(port, IpFamily::v6, &msg.target);
    const bool for_us = ours && *ours == msg.target;
    if (msg.type == NdType::solicitation) {
        if (msg.link_layer && on_link(port, msg.src))
            neighbours_.learn({uint16_t(port), msg.src}, *msg.link_layer, now,
                              for_us ? NeighbourHeard::request_for_us : NeighbourHeard::other,
                              actions_);
        if (for_us) {
            MacAddr frame_src;
            std::memcpy(frame_src.bytes.data(), frame.data() + 6, 6);
            if (rte_mbuf* na = alloc_frame()) {
                const size_t len = build_neighbor_advertisement(
                    {rte_pktmbuf_mtod(na, uint8_t*), rte_pktmbuf_tailroom(na)}, ether, msg,
                    frame_src);
                na->data_len = na->pkt_len = uint32_t(len);
                transmit(port, na);
                counters_.nd_solicitations_answered++;
            }
        } else {
            counters_.nd_ignored++;
        }
    } else if (msg.link_layer && on_link(port, msg.target)) {
        neighbours_.learn({uint16_t(port), msg.target}, *msg.link_layer, now,
                          msg.solicited_flag ? NeighbourHeard::answer : NeighbourHeard::other,
                          actions_);
    }
    rte_pktmbuf_free(m);
    apply(actions_);
}

// To one of our addresses: echo requests are answered in place; UDP gets
// port unreachable (traceroute to the router); the rest is dropped. A
// subnet's network or broadcast address is no host's: nothing is answered
// from it (the workers drop such packets already; this holds for any
// other way in).
void Router::handle_to_us(rte_mbuf* m, int port) {
    if (to_subnet_broadcast(frame_of(m))) {
        counters_.local_dropped++;
        return rte_pktmbuf_free(m);
    }
    const EchoReply r = make_echo_reply_in_place(frame_of(m));
    if (r.reject == EchoReject::none && port >= 0 && ports_[size_t(port)].control_queue >= 0) {
        rte_pktmbuf_trim(m, uint16_t(rte_pktmbuf_data_len(m) - r.frame_len));
        m->pkt_len = m->data_len;
        counters_.echo_replies++;
        return transmit(port, m);
    }
    const auto frame = frame_of(m);
    const L3Header h = parse_l3_header(frame, m->pkt_len, true);
    const uint8_t proto = h.l3_header_len == 0            ? 0
                          : h.ethertype == kEtherTypeIpv4 ? frame[h.l3_offset + 9]
                                                          : frame[h.l3_offset + 6];
    if (proto == 17) send_icmp_error(m, port, IcmpError::port_unreachable);
    counters_.local_dropped++;
    rte_pktmbuf_free(m);
}

// A packet whose next hop has no MAC yet: the route says which neighbour to
// resolve (the gateway, or the destination itself on a connected subnet).
void Router::handle_unresolved(rte_mbuf* m, uint64_t now) {
    const auto dst = destination_of(m);
    const RibRoute* r = dst ? longest_match(*dst) : nullptr;
    if (!r || r->port < 0) {
        counters_.local_dropped++;
        return rte_pktmbuf_free(m);
    }
    const NeighbourKey key{uint16_t(r->port), r->via ? *r->via : *dst};
    if (const auto mac = neighbours_.resolve(key, m, now, actions_)) send_resolved(m, key, *mac);
    apply(actions_);
}

// The ICMP error about m, from our address on the port it came in by, back
// to the hop it came from; m stays the caller's. Every error not sent is
// counted by why: vetoed, unsendable, rate limited (a bucket per port and
// family), no buffer; the workers count theirs (icmp_errors_gated,
// icmp_errors_punt_full).
void Router::send_icmp_error(rte_mbuf* m, int port, IcmpError error) {
    const auto frame = frame_of(m);
    if (port < 0 || ports_[size_t(port)].control_queue < 0) {
        counters_.icmp_errors_unsendable++;
        return;
    }
    if (may_send_icmp_error(frame, to_subnet_broadcast(frame)) != IcmpErrorVeto::none) {
        counters_.icmp_errors_vetoed++;
        return;
    }
    const L3Header h = parse_l3_header(frame, m->pkt_len, true);
    const IpFamily family = h.ethertype == kEtherTypeIpv4 ? IpFamily::v4 : IpFamily::v6;
    const IpAddress* from = address_on(port, family, nullptr);
    if (!from) {
        counters_.icmp_errors_unsendable++;
        return;
    }
    // The bucket takes rate 0 as no limit; l3.icmp_rate_limit 0 sends none.
    TokenBucket& bucket = icmp_buckets_[size_t(port) * 2 + (family == IpFamily::v6)];
    if (cfg_.l3.icmp_rate_limit == 0 || !bucket.take(now_ms() * 1000000)) {
        counters_.icmp_errors_rate_limited++;
        return;
    }
    rte_mbuf* e = alloc_frame();
    if (!e) {
        counters_.icmp_errors_no_buffer++;
        return;
    }
    MacAddr back;
    std::memcpy(back.bytes.data(), frame.data() + 6, 6);
    const uint32_t pointer =
        error == IcmpError::parameter_problem && family == IpFamily::v4 && h.l3_header_len
            ? uint32_t(ipv4_option_problem(frame.data() + h.l3_offset, h.l3_header_len))
            : 0;
    const size_t len =
        build_icmp_error({rte_pktmbuf_mtod(e, uint8_t*), rte_pktmbuf_tailroom(e)}, error, frame,
                         *from, EtherPort{ports_[size_t(port)].mac, std::nullopt}, back, pointer);
    if (len == 0) {
        counters_.icmp_errors_vetoed++;
        return rte_pktmbuf_free(e);
    }
    e->data_len = e->pkt_len = uint32_t(len);
    counters_.icmp_errors_sent++;
    transmit(port, e);
}

// Whether an IPv4 packet is to one of our subnets' network or broadcast
// addresses, which the bytes alone cannot show.
bool Router::to_subnet_broadcast(std::span<const uint8_t> frame) const {
    const L3Header h = parse_l3_header(frame, uint32_t(frame.size()), true);
    if (h.ethertype != kEtherTypeIpv4 || h.l3_header_len == 0) return false;
    return own_.is_subnet_broadcast(load_be32(frame.data() + h.l3_offset + 16));
}

void Router::apply(std::vector<NeighbourAction>& actions) {
    for (auto& a : actions) {
        auto* m = static_cast<rte_mbuf*>(a.packet);
        switch (a.kind) {
            case NeighbourAction::Kind::send_request:
                send_request(a.key, std::nullopt);
                break;
            case NeighbourAction::Kind::send_probe:
                send_request(a.key, a.mac);
                break;
            case NeighbourAction::Kind::transmit:
                send_resolved(m, a.key, a.mac);
                break;
            case NeighbourAction::Kind::drop:
                if (a.reason == NeighbourDrop::unresolved && m)
                    send_icmp_error(m, port_index_of(m->port), IcmpError::host_unreachable);
                if (m) rte_pktmbuf_free(m);
                break;
            case NeighbourAction::Kind::installed:
            case NeighbourAction::Kind::changed:
                neighbour_installed(a.key, a.mac);
                break;
            case NeighbourAction::Kind::removed:
                neighbour_removed(a.key);
                break;
        }
    }
    actions.clear();
}

// A neighbour has a (new) MAC: a next hop with it, its host route, and
// every route through it pointed there; the old next hop retired.
void Router::neighbour_installed(const NeighbourKey& key, const MacAddr& mac) {
    const RouterPort& rp = ports_[key.port];
    NextHop nh;
    nh.kind = NextHopKind::forward;
    std::memcpy(nh.dst_src, mac.bytes.data(), 6);
    std::memcpy(nh.dst_src + 6, rp.mac.bytes.data(), 6);
    nh.port = uint8_t(key.port);
    nh.max_frame = uint16_t(max_routed_frame_bytes(rp.mtu));
    auto hop = tables_->add_next_hop(nh);
    if (!hop) {
        spdlog::warn("{}", hop.error().message);
        return;
    }
    const std::string k = key_text(key);
    const auto old = adjacencies_.find(k);
    const uint32_t retired = old != adjacencies_.end() ? old->second.next_hop : kUnreachableNextHop;
    adjacencies_[k] = {hop.value(), mac};
    const IpPrefix host = host_prefix(key.address);
    if (!rib_.count(host.to_string()) || rib_[host.to_string()].origin == Origin::neighbour)
        (void)install({host, Origin::neighbour, key.address, int(key.port)});
    for (auto& [text, r] : rib_)
        if (r.via && *r.via == key.address && r.port == int(key.port) &&
            r.origin != Origin::neighbour)
            (void)install(r);
    tables_->retire_next_hop(retired);
}

void Router::neighbour_removed(const NeighbourKey& key) {
    const auto a = adjacencies_.find(key_text(key));
    if (a == adjacencies_.end()) return;
    const uint32_t retired = a->second.next_hop;
    adjacencies_.erase(a);
    const IpPrefix host = host_prefix(key.address);
    const auto h = rib_.find(host.to_string());
    if (h != rib_.end() && h->second.origin == Origin::neighbour) {
        (void)tables_->delete_route(host);
        rib_.erase(h);
    }
    for (auto& [text, r] : rib_)
        if (r.via && *r.via == key.address && r.port == int(key.port)) (void)install(r);
    tables_->retire_next_hop(retired);
}

// A probe of a known neighbour goes to its MAC (ND); ARP asks by broadcast
// either way, which every host answers.
void Router::send_request(const NeighbourKey& key, std::optional<MacAddr> unicast) {
    const RouterPort& rp = ports_[key.port];
    const IpAddress* from = address_on(int(key.port), key.address.family, &key.address);
    if (!from) return;
    rte_mbuf* m = alloc_frame();
    if (!m) return;
    const std::span<uint8_t> out{rte_pktmbuf_mtod(m, uint8_t*), rte_pktmbuf_tailroom(m)};
    const EtherPort ether{rp.mac, std::nullopt};
    const size_t len = key.address.family == IpFamily::v4
                           ? build_arp_request(out, ether, v4_of(*from), v4_of(key.address))
                           : build_neighbor_solicitation(out, ether, *from, key.address, unicast);
    m->data_len = m->pkt_len = uint32_t(len);
    transmit(int(key.port), m);
}

// A packet that waited for its neighbour, routed now as a worker would have.
void Router::send_resolved(rte_mbuf* m, const NeighbourKey& key, const MacAddr& mac) {
    const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
    const L3Header h = parse_l3_header({f, rte_pktmbuf_data_len(m)}, m->pkt_len, true);
    // What a worker checks before it sends: the packet, untagged, within
    // the output port's mtu.
    if (m->pkt_len - (h.l3_offset - kEtherHeaderLen) >
        max_routed_frame_bytes(ports_[key.port].mtu)) {
        counters_.resolved_oversize++;
        rte_pktmbuf_free(m);
        return;
    }
    uint8_t dst_src[12];
    std::memcpy(dst_src, mac.bytes.data(), 6);
    std::memcpy(dst_src + 6, ports_[key.port].mac.bytes.data(), 6);
    rewrite_routed(m, h.l3_offset, h.ethertype == kEtherTypeIpv4, dst_src);
    counters_.resolved_sent++;
    transmit(int(key.port), m);
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
