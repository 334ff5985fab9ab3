// The neighbour table's states and timers (see neighbour_table.hpp); run by
// the control path thread only. Drops only the packets its actions name.
#include "neighbour_table.hpp"

#include <algorithm>
#include <string>

#include "ether_frame.hpp"

namespace pmdfwd {

namespace {

// What a neighbour's MAC may be: a frame sent to a group address would
// reach every host, and no host answers for the zero one.
bool is_neighbour_mac(const MacAddr& mac) { return mac != MacAddr{} && !is_group_mac(mac); }

std::string describe(const NeighbourKey& key) {
    return "neighbour " + key.address.to_string() + " on port " + std::to_string(key.port);
}

}  // namespace

NeighbourTable::NeighbourTable(const L3Config& cfg)
    : max_neighbours_(cfg.max_neighbours),
      max_per_port_(neighbours_per_port(cfg)),
      max_resolving_(cfg.max_resolving),
      max_waiting_(cfg.max_waiting_packets),
      queue_len_(cfg.neighbour_queue),
      retries_(cfg.resolve_retries),
      // At least 1 ms: a timer must move forward, or tick() would never end.
      interval_ms_(std::max<uint64_t>(1, cfg.resolve_interval_ms)),
      reachable_ms_(uint64_t(cfg.reachable_s) * 1000) {}

void NeighbourTable::set_limits(const L3Config& cfg) {
    max_resolving_ = cfg.max_resolving;
    max_waiting_ = cfg.max_waiting_packets;
    retries_ = cfg.resolve_retries;
    interval_ms_ = std::max<uint64_t>(1, cfg.resolve_interval_ms);
    reachable_ms_ = uint64_t(cfg.reachable_s) * 1000;
}

std::optional<MacAddr> NeighbourTable::resolve(const NeighbourKey& key, PacketHandle packet,
                                               uint64_t now_ms, std::vector<NeighbourAction>& out) {
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.state != NeighbourState::incomplete) {
        ++counters_.hits;
        return it->second.mac;
    }
    if (it == entries_.end()) {
        // Each incomplete entry may hold neighbour_queue packets and sends a
        // request a resolve_interval_ms: a host sending to a thousand unused
        // addresses must not hold every mbuf nor flood the link with ARP.
        if (resolving_ >= max_resolving_) {
            drop(key, packet, NeighbourDrop::resolving_full, out);
            return std::nullopt;
        }
        if (!make_room(key.port, true, out)) {
            drop(key, packet, NeighbourDrop::table_full, out);
            return std::nullopt;
        }
        it = insert(key, NeighbourState::incomplete, now_ms);
        ask(it, now_ms, out);
    }
    ++counters_.queued;
    if (queue_len_ == 0) {
        drop(key, packet, NeighbourDrop::queue, out);
        return std::nullopt;
    }
    Waiting& w = it->second.waiting;
    if (w.count < queue_len_) {
        // The mbufs held here come from the workers' pools: past the global
        // bound the newest is dropped, so that the pools' sizing holds.
        if (waiting_ >= max_waiting_) {
            drop(key, packet, NeighbourDrop::waiting_full, out);
            return std::nullopt;
        }
        if (w.slots.empty()) w.slots.resize(queue_len_);
        w.slots[(w.head + w.count) % queue_len_] = packet;
        ++w.count;
        waiting_peak_ = std::max(waiting_peak_, ++waiting_);
        return std::nullopt;
    }
    // Full: the newest packet is the likelier to still matter to its sender
    // (Linux's arp_queue keeps it too).
    const PacketHandle oldest = w.slots[w.head];
    w.slots[w.head] = packet;
    w.head = (w.head + 1) % queue_len_;
    drop(key, oldest, NeighbourDrop::queue, out);
    return std::nullopt;
}

void NeighbourTable::learn(const NeighbourKey& key, const MacAddr& mac, uint64_t now_ms,
                           NeighbourHeard heard, std::vector<NeighbourAction>& out) {
    if (!is_neighbour_mac(mac)) {
        ++counters_.bogus_macs;
        return;
    }
    auto it = entries_.find(key);
    if (it != entries_.end()) {
        Entry& e = it->second;
        if (e.state == NeighbourState::permanent) return;
        if (e.state != NeighbourState::stale || heard == NeighbourHeard::answer)
            return confirm(it, mac, now_ms, out);
        // Still not asked for: it keeps the MAC it claims (RFC 826's merge)
        // and its place as the most recently heard, but is not confirmed.
        if (e.mac != mac) {
            e.mac = mac;
            ++counters_.mac_changes;
            out.push_back({.kind = NeighbourAction::Kind::changed, .key = key, .mac = mac});
        }
        set_state(it, NeighbourState::stale, now_ms);
        schedule(it, now_ms + reachable_ms_);
        return;
    }
    // Anyone on the link may claim any address: only a sender that talks to
    // us gets an entry, so that a flood of ARP for others cannot fill the
    // table (RFC 826 merges into existing entries only, unless for us). And
    // as anyone may also talk to us from made-up addresses, that entry is
    // stale: never probed, and the first to go when another needs room.
    if (heard == NeighbourHeard::other) return;
    if (!make_room(key.port, true, out)) {
        ++counters_.not_learned;
        return;
    }
    it = insert(key, NeighbourState::stale, now_ms);
    it->second.mac = mac;
    ++counters_.learned_unsolicited;
    out.push_back({.kind = NeighbourAction::Kind::installed, .key = key, .mac = mac});
    schedule(it, now_ms + reachable_ms_);
}

void NeighbourTable::tick(uint64_t now_ms, std::vector<NeighbourAction>& out) {
    while (!timers_.empty() && timers_.begin()->first <= now_ms) {
        const NeighbourKey key = timers_.begin()->second;
        auto it = entries_.find(key);
        if (it == entries_.end()) {  // cannot happen: every erase takes its timer too
            timers_.erase(timers_.begin());
            continue;
        }
        Entry& e = it->second;
        switch (e.state) {
            case NeighbourState::incomplete:
                if (e.requests < retries_) {
                    ask(it, now_ms, out);
                } else {
                    ++counters_.failed;
                    erase(it, NeighbourDrop::unresolved, out);
                }
                break;
            case NeighbourState::reachable:
                e.state = NeighbourState::probe;
                e.requests = 0;
                ask(it, now_ms, out);
                break;
            case NeighbourState::probe:
                if (e.requests < retries_) {
                    ask(it, now_ms, out);
                } else {
                    ++counters_.expired;
                    erase(it, NeighbourDrop::unresolved, out);
                }
                break;
            case NeighbourState::stale:
                ++counters_.stale_expired;
                erase(it, NeighbourDrop::removed, out);
                break;
            case NeighbourState::permanent:
            case NeighbourState::count:
                timers_.erase(timers_.begin());
                break;
        }
    }
}

Status NeighbourTable::add_static(const NeighbourKey& key, const MacAddr& mac, uint64_t now_ms,
                                  std::vector<NeighbourAction>& out) {
    if (!is_neighbour_mac(mac))
        return make_error(describe(key) + ": MAC " + mac.to_string() +
                          " is not a unicast address, which a neighbour's must be");
    auto it = entries_.find(key);
    if (it == entries_.end()) {
        // The operator's neighbours are not held to a port's share.
        if (!make_room(key.port, false, out))
            return make_error(describe(key) + ": the table holds l3.max_neighbours (" +
                              std::to_string(max_neighbours_) + ") entries already");
        it = insert(key, NeighbourState::permanent, now_ms);
        it->second.mac = mac;
        out.push_back({.kind = NeighbourAction::Kind::installed, .key = key, .mac = mac});
        return Ok{};
    }
    Entry& e = it->second;
    if (e.state != NeighbourState::permanent) timers_.erase({e.due_ms, key});
    if (e.state == NeighbourState::incomplete) {
        e.mac = mac;
        out.push_back({.kind = NeighbourAction::Kind::installed, .key = key, .mac = mac});
        release_waiting(it, out);
    } else if (e.mac != mac) {
        e.mac = mac;
        ++counters_.mac_changes;
        out.push_back({.kind = NeighbourAction::Kind::changed, .key = key, .mac = mac});
    }
    set_state(it, NeighbourState::permanent, now_ms);
    e.requests = 0;
    return Ok{};
}

bool NeighbourTable::remove(const NeighbourKey& key, std::vector<NeighbourAction>& out) {
    const auto it = entries_.find(key);
    if (it == entries_.end()) return false;
    ++counters_.removed;
    erase(it, NeighbourDrop::removed, out);
    return true;
}

size_t NeighbourTable::remove_port(uint16_t port, std::vector<NeighbourAction>& out) {
    // The least key of the port: IPv4 sorts first, 0.0.0.0 lowest.
    auto it = entries_.lower_bound(NeighbourKey{.port = port, .address = {}});
    size_t n = 0;
    while (it != entries_.end() && it->first.port == port) {
        ++counters_.removed;
        it = erase(it, NeighbourDrop::removed, out);
        ++n;
    }
    return n;
}

std::optional<MacAddr> NeighbourTable::mac_of(const NeighbourKey& key) const {
    const auto it = entries_.find(key);
    if (it == entries_.end() || it->second.state == NeighbourState::incomplete) return std::nullopt;
    return it->second.mac;
}

std::vector<NeighbourEntry> NeighbourTable::list(uint64_t now_ms) const {
    std::vector<NeighbourEntry> rows;
    rows.reserve(entries_.size());
    for (const auto& [key, e] : entries_) {
        NeighbourEntry& row = rows.emplace_back();
        row.key = key;
        row.state = e.state;
        if (e.state != NeighbourState::incomplete) row.mac = e.mac;
        row.age_ms = now_ms > e.since_ms ? now_ms - e.since_ms : 0;
        row.waiting = e.waiting.count;
        row.requests = e.requests;
    }
    return rows;
}

void NeighbourTable::schedule(Entries::iterator it, uint64_t due_ms) {
    Entry& e = it->second;
    timers_.erase({e.due_ms, it->first});  // none yet for a new entry: no harm
    e.due_ms = due_ms;
    timers_.insert({due_ms, it->first});
}

NeighbourTable::Entries::iterator NeighbourTable::erase(Entries::iterator it, NeighbourDrop reason,
                                                        std::vector<NeighbourAction>& out) {
    Entry& e = it->second;
    drop_waiting(it, reason, out);
    if (e.state != NeighbourState::incomplete)
        out.push_back({.kind = NeighbourAction::Kind::removed, .key = it->first, .mac = e.mac});
    if (e.state != NeighbourState::permanent) timers_.erase({e.due_ms, it->first});
    if (e.state == NeighbourState::stale) stale_.erase({e.since_ms, it->first});
    if (e.state == NeighbourState::incomplete) --resolving_;
    if (--per_port_[it->first.port] == 0) per_port_.erase(it->first.port);
    return entries_.erase(it);
}

void NeighbourTable::drop_waiting(Entries::iterator it, NeighbourDrop reason,
                                  std::vector<NeighbourAction>& out) {
    Waiting& w = it->second.waiting;
    for (uint32_t i = 0; i < w.count; ++i) {
        count_drop(reason);
        out.push_back({.kind = NeighbourAction::Kind::drop,
                       .key = it->first,
                       .packet = w.slots[(w.head + i) % queue_len_],
                       .reason = reason});
    }
    waiting_ -= w.count;
    w = Waiting{};
}

void NeighbourTable::release_waiting(Entries::iterator it, std::vector<NeighbourAction>& out) {
    Waiting& w = it->second.waiting;
    for (uint32_t i = 0; i < w.count; ++i)
        out.push_back({.kind = NeighbourAction::Kind::transmit,
                       .key = it->first,
                       .mac = it->second.mac,
                       .packet = w.slots[(w.head + i) % queue_len_]});
    counters_.released += w.count;
    waiting_ -= w.count;
    w = Waiting{};  // frees the ring: a resolved neighbour needs none
}

void NeighbourTable::confirm(Entries::iterator it, const MacAddr& mac, uint64_t now_ms,
                             std::vector<NeighbourAction>& out) {
    Entry& e = it->second;
    if (e.state == NeighbourState::incomplete) {
        e.mac = mac;
        ++counters_.resolved;
        out.push_back({.kind = NeighbourAction::Kind::installed, .key = it->first, .mac = mac});
        release_waiting(it, out);
    } else if (e.mac != mac) {
        e.mac = mac;
        ++counters_.mac_changes;
        out.push_back({.kind = NeighbourAction::Kind::changed, .key = it->first, .mac = mac});
    }
    set_state(it, NeighbourState::reachable, now_ms);
    e.requests = 0;
    schedule(it, now_ms + reachable_ms_);
}

void NeighbourTable::ask(Entries::iterator it, uint64_t now_ms, std::vector<NeighbourAction>& out) {
    Entry& e = it->second;
    ++e.requests;
    ++counters_.requests_sent;
    // A neighbour we had a MAC for is asked at it, so that a quiet link is
    // not flooded with a broadcast for every neighbour every reachable_s.
    if (e.state == NeighbourState::probe)
        out.push_back({.kind = NeighbourAction::Kind::send_probe, .key = it->first, .mac = e.mac});
    else
        out.push_back({.kind = NeighbourAction::Kind::send_request, .key = it->first});
    schedule(it, now_ms + interval_ms_);
}

void NeighbourTable::drop(const NeighbourKey& key, PacketHandle packet, NeighbourDrop reason,
                          std::vector<NeighbourAction>& out) {
    count_drop(reason);
    out.push_back(
        {.kind = NeighbourAction::Kind::drop, .key = key, .packet = packet, .reason = reason});
}

bool NeighbourTable::make_room(uint16_t port, bool port_share, std::vector<NeighbourAction>& out) {
    const auto n = per_port_.find(port);
    const bool port_full = port_share && n != per_port_.end() && n->second >= max_per_port_;
    if (!port_full && entries_.size() < max_neighbours_) return true;
    // The least recently heard stale entry (of this port when the port has
    // its share): one nobody asked for, which traffic resolves again if it
    // needs it.
    for (const auto& [since, key] : stale_) {
        if (port_full && key.port != port) continue;
        ++counters_.evicted;
        const NeighbourKey victim = key;  // erase() takes the node `key` is in
        erase(entries_.find(victim), NeighbourDrop::removed, out);
        return true;
    }
    return false;
}

NeighbourTable::Entries::iterator NeighbourTable::insert(const NeighbourKey& key,
                                                         NeighbourState state, uint64_t now_ms) {
    const auto it = entries_.emplace(key, Entry{}).first;
    ++per_port_[key.port];
    it->second.state = NeighbourState::count;  // so that set_state counts it in
    set_state(it, state, now_ms);
    return it;
}

void NeighbourTable::set_state(Entries::iterator it, NeighbourState state, uint64_t since_ms) {
    Entry& e = it->second;
    if (e.state == NeighbourState::stale) stale_.erase({e.since_ms, it->first});
    if (e.state == NeighbourState::incomplete) --resolving_;
    e.state = state;
    e.since_ms = since_ms;
    if (state == NeighbourState::stale) stale_.insert({since_ms, it->first});
    if (state == NeighbourState::incomplete) ++resolving_;
}

void NeighbourTable::count_drop(NeighbourDrop reason) {
    if (uint64_t* c = counters_.drops_for(reason)) ++*c;
}

}  // namespace pmdfwd
