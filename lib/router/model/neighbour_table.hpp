// Router mode's neighbour table (ARP and IPv6 ND, RFC 1122 2.3.2.2, RFC 4861
// 7.3): which neighbours resolve to which MAC, which are being asked for and
// the packets waiting on them. Pure decisions: it sends nothing, reads no
// clock and frees no packet; the control path thread (never a worker) owns
// it and carries out the actions it returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "counter_list.hpp"
#include "error.hpp"
#include "ip_prefix.hpp"
#include "l3_config.hpp"
#include "mac_addr.hpp"

namespace pmdfwd {

// A packet the table holds for the caller (an rte_mbuf* to the glue). Every
// one handed to resolve() comes back exactly once: as its MAC at once, or
// later in a transmit or drop action; until then it is waiting.
using PacketHandle = void*;

struct NeighbourKey {
    uint16_t port = 0;  // the port index, as in the plan
    IpAddress address;  // IPv4 and IPv6 neighbours of a port are distinct keys
    // Port, family, then address: the order of list().
    auto operator<=>(const NeighbourKey&) const = default;
};

// Why the table gives a packet back to be freed: X(name, unit, kind, help).
// Each reason is a value of NeighbourDrop and the counter <reason>_drops,
// of the labelled group "neighbour_drops" in the router record (one
// metric, by reason): no reason goes uncounted.
#define PMDFWD_NEIGHBOUR_DROPS(X)                                                              \
    X(queue, packets, counter,                                                                 \
      "the oldest packet waiting on its neighbour, pushed out of its queue by a newer one "    \
      "(every waiting packet when l3.neighbour_queue is 0)")                                   \
    X(table_full, packets, counter,                                                            \
      "its neighbour was unknown and the table (l3.max_neighbours) or its port's share "       \
      "(l3.max_neighbours_per_port) was full of entries none of which could be evicted")       \
    X(resolving_full, packets, counter,                                                        \
      "its neighbour was unknown and l3.max_resolving neighbours were being resolved already") \
    X(waiting_full, packets, counter,                                                          \
      "l3.max_waiting_packets packets were waiting for neighbours already")                    \
    X(unresolved, packets, counter,                                                            \
      "its neighbour did not answer l3.resolve_retries requests (ICMP unreachable)")           \
    X(removed, packets, counter,                                                               \
      "its neighbour was removed while it waited (an operator, or its port gone)")

enum class NeighbourDrop : uint8_t { PMDFWD_NEIGHBOUR_DROPS(PMDFWD_LIST_ENUM) count };
constexpr size_t kNeighbourDropCount = size_t(NeighbourDrop::count);
inline constexpr std::string_view kNeighbourDropNames[] = {
    PMDFWD_NEIGHBOUR_DROPS(PMDFWD_LIST_NAME)};
constexpr std::string_view neighbour_drop_name(NeighbourDrop reason) {
    return enum_name(kNeighbourDropNames, reason);
}

// A neighbour's state; the neighbour record's state field says what each
// means.
#define PMDFWD_NEIGHBOUR_STATES(X) \
    X(incomplete, "incomplete")    \
    X(reachable, "reachable")      \
    X(probe, "probe")              \
    X(stale, "stale")              \
    X(permanent, "permanent")

enum class NeighbourState : uint8_t { PMDFWD_NEIGHBOUR_STATES(PMDFWD_ENUM_MEMBER) count };
inline constexpr std::string_view kNeighbourStateNames[] = {
    PMDFWD_NEIGHBOUR_STATES(PMDFWD_ENUM_TEXT)};
constexpr std::string_view neighbour_state_name(NeighbourState state) {
    return enum_name(kNeighbourStateNames, state);
}

// Control path counters in record order, X(name, unit, kind, help) (the
// neighbours and messages they count are events); DROP is
// given PMDFWD_NEIGHBOUR_DROPS' entries, where the group stands. Since
// start. For every packet handed to resolve(): hits + queued +
// table_full_drops + resolving_full_drops, and of the queued: released +
// queue_drops + waiting_full_drops + unresolved_drops + removed_drops +
// those waiting.
#define PMDFWD_NEIGHBOUR_COUNTERS(X, DROP)                                                         \
    X(hits, packets, counter,                                                                      \
      "packets resolve() answered at once with a resolved neighbour's MAC")                        \
    X(queued, packets, counter, "packets that waited for their neighbour to resolve")              \
    X(released, packets, counter, "waiting packets sent when their neighbour resolved")            \
    PMDFWD_NEIGHBOUR_DROPS(DROP)                                                                   \
    X(requests_sent, requests, counter,                                                            \
      "ARP requests and neighbour solicitations asked for: first tries, retries and probes")       \
    X(resolved, events, counter, "incomplete neighbours that got a MAC")                           \
    X(failed, events, counter, "incomplete neighbours given up after l3.resolve_retries requests") \
    X(expired, events, counter,                                                                    \
      "resolved neighbours removed after l3.resolve_retries unanswered probes")                    \
    X(learned_unsolicited, events, counter,                                                        \
      "neighbours made stale by a sender not asked for (an ARP request or NS for one of our "      \
      "addresses)")                                                                                \
    X(not_learned, events, counter,                                                                \
      "senders not asked for that got no entry: the table or their port's share full of "          \
      "entries none of which could be evicted")                                                    \
    X(evicted, events, counter,                                                                    \
      "stale neighbours removed, least recently heard first, to make room for another")            \
    X(stale_expired, events, counter, "stale neighbours removed after l3.reachable_s unconfirmed") \
    X(mac_changes, events, counter, "resolved neighbours whose MAC changed")                       \
    X(removed, events, counter, "neighbours removed by remove() or remove_port()")                 \
    X(bogus_macs, events, counter,                                                                 \
      "MACs not learned: zero, broadcast or multicast, which no neighbour has (RFC 1812 3.3.2)")

// Plain counts: one writer (the control path); telemetry reads a copy.
struct NeighbourCounters {
#define PMDFWD_NEIGHBOUR_DROP_COUNTER(name, unit, kind, help) uint64_t name##_drops = 0;
    PMDFWD_NEIGHBOUR_COUNTERS(PMDFWD_LIST_U64, PMDFWD_NEIGHBOUR_DROP_COUNTER)
#undef PMDFWD_NEIGHBOUR_DROP_COUNTER

    // The counter of a reason; nullptr for a value that is none.
    uint64_t* drops_for(NeighbourDrop why) {
        switch (why) {
#define PMDFWD_NEIGHBOUR_DROP_CASE(name, unit, kind, help) \
    case NeighbourDrop::name:                              \
        return &name##_drops;
            PMDFWD_NEIGHBOUR_DROPS(PMDFWD_NEIGHBOUR_DROP_CASE)
#undef PMDFWD_NEIGHBOUR_DROP_CASE
            case NeighbourDrop::count:
                break;
        }
        return nullptr;
    }
};

// What the caller does, in order, for one call.
struct NeighbourAction {
    enum class Kind : uint8_t {
        send_request,  // broadcast ARP request / NS to the solicited-node group, from key.port
        send_probe,    // the same, unicast to mac (RFC 4861 7.3.3 PROBE, RFC 1122 unicast poll)
        transmit,      // send packet to mac
        drop,          // free packet and count reason
        installed,     // key resolves to mac from now on: add its host route / next hop
        changed,       // key's MAC is now mac: reprogram what forwards to it
        removed,       // key resolves no longer (mac: the one it had): remove its forwarding
    };
    Kind kind = Kind::send_request;
    NeighbourKey key{};
    MacAddr mac{};
    PacketHandle packet = nullptr;                // transmit, drop
    NeighbourDrop reason = NeighbourDrop::queue;  // drop
    bool operator==(const NeighbourAction&) const = default;
};

// One line of `pmdctl show neighbours`.
struct NeighbourEntry {
    NeighbourKey key;
    NeighbourState state = NeighbourState::incomplete;
    std::optional<MacAddr> mac;  // none while incomplete
    // Since it was made (incomplete), last confirmed (reachable, probe) or
    // added (permanent).
    uint64_t age_ms = 0;
    uint32_t waiting = 0;   // packets
    uint32_t requests = 0;  // sent in this resolution or probe round
};

// What an ARP or ND packet says about its sender, for learn().
enum class NeighbourHeard : uint8_t {
    other,           // a request for someone else, a gratuitous ARP, an unsolicited NA
    request_for_us,  // an ARP request or NS for one of our addresses
    answer,          // an ARP reply to our address, a solicited NA: what resolution waits for
};

// Every call appends its actions to `out` (never cleared here, so the caller
// reuses one vector) and takes `now_ms` from one monotonic clock.
class NeighbourTable {
  public:
    // The [l3] tunables as config_loader bounds them.
    explicit NeighbourTable(const L3Config& cfg);
    // A reload: max_resolving, max_waiting_packets, resolve_retries,
    // resolve_interval_ms and reachable_s from cfg (the table's size and
    // the queue per neighbour stay). Lowered limits refuse what comes next
    // and take nothing back; timers already set keep their time.
    void set_limits(const L3Config& cfg);

    // A packet for this neighbour. A MAC: send it there now (the packet stays
    // the caller's, no action). None: the table took the packet; it waits,
    // or comes back in a drop action (queue, pushing out the oldest
    // waiting one instead when the queue is full; waiting_full when
    // l3.max_waiting_packets wait already; table_full, resolving_full). A
    // new neighbour is asked for at once (send_request); a full table or
    // port share makes room by evicting its least recently heard stale
    // entry, so that senders nobody asked for never lock out one we need.
    std::optional<MacAddr> resolve(const NeighbourKey& key, PacketHandle packet, uint64_t now_ms,
                                   std::vector<NeighbourAction>& out);

    // An ARP packet or NS/NA carried the sender's MAC. A known neighbour
    // takes it (RFC 826's merge: whoever it was for) and is confirmed; one
    // resolving sends its waiting packets, oldest first. A stale one is
    // confirmed only by an answer, and otherwise stays stale with the MAC.
    // An unknown one is made stale, never probed (Linux's NUD_STALE), and
    // only when it talked to us (request_for_us or answer), evicting the
    // least recently heard stale entry (of its port, when the port has
    // its share) if the table has no room. Permanent ones are never changed.
    void learn(const NeighbourKey& key, const MacAddr& mac, uint64_t now_ms, NeighbourHeard heard,
               std::vector<NeighbourAction>& out);

    // Retries, failures, probes and expiry that are due. Cost: the entries
    // due, not the table, so it may run every few milliseconds.
    void tick(uint64_t now_ms, std::vector<NeighbourAction>& out);

    // A [[neighbour]]: installed, never resolved, never expires. Over a
    // learned entry it takes its place (its waiting packets are sent). Fails
    // when the table is full or the MAC is not a unicast one.
    Status add_static(const NeighbourKey& key, const MacAddr& mac, uint64_t now_ms,
                      std::vector<NeighbourAction>& out);

    // Any entry, permanent too; its waiting packets are dropped (removed).
    // False when there was none.
    bool remove(const NeighbourKey& key, std::vector<NeighbourAction>& out);
    // Every entry of a port that goes away; how many there were.
    size_t remove_port(uint16_t port, std::vector<NeighbourAction>& out);

    // The MAC now, for a reachable, probing or permanent neighbour.
    std::optional<MacAddr> mac_of(const NeighbourKey& key) const;
    // In key order.
    std::vector<NeighbourEntry> list(uint64_t now_ms) const;
    size_t size() const { return entries_.size(); }
    uint64_t waiting() const { return waiting_; }  // packets, all neighbours
    uint64_t waiting_peak() const { return waiting_peak_; }
    size_t resolving() const { return resolving_; }  // incomplete entries
    const NeighbourCounters& counters() const { return counters_; }

  private:
    // Packets waiting on one neighbour, oldest first: a ring of
    // neighbour_queue slots, allocated while packets wait, so that resolved
    // neighbours, the most of them, hold no memory for it.
    struct Waiting {
        std::vector<PacketHandle> slots;
        uint32_t head = 0, count = 0;
    };
    struct Entry {
        NeighbourState state = NeighbourState::incomplete;
        MacAddr mac;
        uint64_t since_ms = 0;  // see NeighbourEntry::age_ms
        uint64_t due_ms = 0;    // the next timer; permanent ones have none
        uint32_t requests = 0;
        Waiting waiting;
    };
    using Entries = std::map<NeighbourKey, Entry>;

    void schedule(Entries::iterator it, uint64_t due_ms);
    // Drops its waiting packets for reason; the next entry.
    Entries::iterator erase(Entries::iterator it, NeighbourDrop reason,
                            std::vector<NeighbourAction>& out);
    void drop_waiting(Entries::iterator it, NeighbourDrop reason,
                      std::vector<NeighbourAction>& out);
    void release_waiting(Entries::iterator it, std::vector<NeighbourAction>& out);
    void confirm(Entries::iterator it, const MacAddr& mac, uint64_t now_ms,
                 std::vector<NeighbourAction>& out);
    void ask(Entries::iterator it, uint64_t now_ms, std::vector<NeighbourAction>& out);
    void count_drop(NeighbourDrop reason);
    void drop(const NeighbourKey& key, PacketHandle packet, NeighbourDrop reason,
              std::vector<NeighbourAction>& out);
    // Room for one more entry on port (within its share if port_share):
    // true, after evicting a stale entry if it had to.
    bool make_room(uint16_t port, bool port_share, std::vector<NeighbourAction>& out);
    Entries::iterator insert(const NeighbourKey& key, NeighbourState state, uint64_t now_ms);
    // Moves it in or out of the stale list as its state says.
    void set_state(Entries::iterator it, NeighbourState state, uint64_t since_ms);

    uint32_t max_neighbours_;
    uint32_t max_per_port_;
    uint32_t max_resolving_;
    uint64_t max_waiting_;
    uint32_t queue_len_;
    uint32_t retries_;
    uint64_t interval_ms_;
    uint64_t reachable_ms_;
    Entries entries_;
    // (due_ms, key) of every entry with a timer: tick() visits the front.
    std::set<std::pair<uint64_t, NeighbourKey>> timers_;
    // (since_ms, key) of every stale entry: the front is evicted first.
    std::set<std::pair<uint64_t, NeighbourKey>> stale_;
    std::map<uint16_t, uint32_t> per_port_;  // entries of each port
    size_t resolving_ = 0;
    uint64_t waiting_ = 0;
    uint64_t waiting_peak_ = 0;
    NeighbourCounters counters_;
};

}  // namespace pmdfwd
