// Router mode's neighbours (see router.hpp): packets waiting for a
// neighbour's MAC, what the neighbour table asks for (requests, probes,
// packets to send or drop), and the adjacencies it makes: a forward next
// hop per resolved neighbour, its host route, and every route through it
// pointed there. The control path thread and telemetry threads, under the
// router's lock; every packet the table gives back is sent or freed here.
#include <spdlog/spdlog.h>

#include <cstring>
#include <optional>

#include "l3_forward.hpp"
#include "l3_header.hpp"
#include "nd_packet.hpp"
#include "router.hpp"
#include "router_frames.hpp"
#include "wire_bytes.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

namespace {

// The destination address of the IP packet behind the frame's headers.
std::optional<IpAddress> destination_of(const rte_mbuf* m) {
    const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
    const L3Header h = parse_l3_header({f, rte_pktmbuf_data_len(m)}, m->pkt_len, true);
    IpAddress a;
    if (h.ethertype == kEtherTypeIpv4 && h.l3_header_len) {
        std::memcpy(a.bytes.data(), Ipv4HeaderView(f + h.l3_offset).dst_addr(), 4);
        return a;
    }
    if (h.ethertype == kEtherTypeIpv6 && h.l3_header_len) {
        a.family = IpFamily::v6;
        std::memcpy(a.bytes.data(), Ipv6HeaderView(f + h.l3_offset).dst_addr(), 16);
        return a;
    }
    return std::nullopt;
}

}  // namespace

std::vector<NeighbourEntry> Router::neighbours() const {
    std::lock_guard lock(mutex_);
    return neighbours_.list(now_ms());
}

// A packet whose next hop has no MAC yet: the route says which neighbour to
// resolve (the gateway, or the destination itself on a connected subnet;
// of an equal-cost route, the gateway of the path the packet's flow takes).
void Router::handle_unresolved(rte_mbuf* m, uint64_t now) {
    const auto dst = destination_of(m);
    const RibRoute* r = dst ? longest_match(*dst) : nullptr;
    std::optional<NeighbourKey> key;
    if (r && r->group) {
        const EcmpPath& path = path_of_packet(*r->group, m);
        key = NeighbourKey{path.port, *path.via};
    } else if (r && r->port >= 0) {
        key = NeighbourKey{uint16_t(r->port), r->via ? *r->via : *dst};
    }
    if (!key) {
        counters_.local_dropped++;
        return rte_pktmbuf_free(m);
    }
    if (const auto mac = neighbours_.resolve(*key, m, now, actions_)) send_resolved(m, *key, *mac);
    apply(actions_);
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
    const auto old = adjacencies_.find(key);
    const uint32_t retired = old != adjacencies_.end() ? old->second.next_hop : kUnreachableNextHop;
    adjacencies_[key] = {hop.value(), mac};
    const IpPrefix host = host_prefix(key.address);
    if (const auto h = rib_.find(host); h == rib_.end() || h->second.origin == Origin::neighbour)
        (void)install({host, Origin::neighbour, key.address, int(key.port)});
    reinstall_routes_via(key);
    repoint_groups(key);
    tables_->retire_next_hop(retired);
}

void Router::neighbour_removed(const NeighbourKey& key) {
    const auto a = adjacencies_.find(key);
    if (a == adjacencies_.end()) return;
    const uint32_t retired = a->second.next_hop;
    adjacencies_.erase(a);
    const IpPrefix host = host_prefix(key.address);
    const auto h = rib_.find(host);
    if (h != rib_.end() && h->second.origin == Origin::neighbour) {
        (void)tables_->delete_route(host);
        forget(h);
    }
    reinstall_routes_via(key);
    repoint_groups(key);
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

}  // namespace pmdfwd
