// The router's neighbour table on a fake clock: resolution, waiting queues,
// retries, probes, expiry, static entries, the bounds, and a random run that
// holds every packet to account.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "neighbour_table.hpp"
#include "packet_bytes.hpp"
#include "router_api.hpp"

using namespace pmdfwd;
using packet_bytes::ip;
using Act = NeighbourAction::Kind;

namespace pmdfwd {

// So that a failed CHECK on actions says which.
std::ostream& operator<<(std::ostream& os, const NeighbourAction& a) {
    static const char* const kKinds[] = {"send_request", "send_probe", "transmit", "drop",
                                         "installed",    "changed",    "removed"};
    os << "{" << kKinds[size_t(a.kind)] << " port " << a.key.port << " "
       << a.key.address.to_string() << " mac " << a.mac.to_string() << " packet "
       << reinterpret_cast<uintptr_t>(a.packet);
    if (a.kind == Act::drop) os << " " << neighbour_drop_name(a.reason);
    return os << "}";
}

}  // namespace pmdfwd

namespace {

L3Config l3(uint32_t queue = 4, uint32_t retries = 3, uint32_t interval_ms = 1000,
            uint32_t reachable_s = 30, uint32_t max_neighbours = 64) {
    L3Config c;
    c.neighbour_queue = queue;
    c.resolve_retries = retries;
    c.resolve_interval_ms = interval_ms;
    c.reachable_s = reachable_s;
    c.max_neighbours = max_neighbours;
    return c;
}

NeighbourKey key(uint16_t port, const char* address) { return {port, ip(address)}; }

MacAddr mac(uint8_t n) { return MacAddr{{0x02, 0, 0, 0, 0, n}}; }

PacketHandle pkt(uintptr_t n) { return reinterpret_cast<PacketHandle>(n); }

NeighbourAction request(const NeighbourKey& k) { return {.kind = Act::send_request, .key = k}; }
NeighbourAction probe(const NeighbourKey& k, MacAddr m) {
    return {.kind = Act::send_probe, .key = k, .mac = m};
}
NeighbourAction transmit(const NeighbourKey& k, MacAddr m, uintptr_t p) {
    return {.kind = Act::transmit, .key = k, .mac = m, .packet = pkt(p)};
}
NeighbourAction drop(const NeighbourKey& k, uintptr_t p, NeighbourDrop why) {
    return {.kind = Act::drop, .key = k, .packet = pkt(p), .reason = why};
}
NeighbourAction installed(const NeighbourKey& k, MacAddr m) {
    return {.kind = Act::installed, .key = k, .mac = m};
}
NeighbourAction changed(const NeighbourKey& k, MacAddr m) {
    return {.kind = Act::changed, .key = k, .mac = m};
}
NeighbourAction removed(const NeighbourKey& k, MacAddr m) {
    return {.kind = Act::removed, .key = k, .mac = m};
}

using Actions = std::vector<NeighbourAction>;

// The actions of one call, alone.
template <class F>
Actions run(F&& call) {
    Actions out;
    call(out);
    return out;
}

// A table whose neighbour k resolved to m at now_ms.
void make_reachable(NeighbourTable& t, const NeighbourKey& k, MacAddr m, uint64_t now_ms) {
    Actions out;
    t.learn(k, m, now_ms, NeighbourHeard::request_for_us, out);
    t.learn(k, m, now_ms, NeighbourHeard::answer, out);
    REQUIRE(t.mac_of(k) == m);
}

}  // namespace

TEST_CASE("neighbour: resolve, then learn sends the waiting packets in order", "[neighbour]") {
    NeighbourTable t(l3());
    const auto k = key(1, "10.0.0.2");
    Actions out;
    CHECK_FALSE(t.resolve(k, pkt(1), 0, out));
    CHECK(out == Actions{request(k)});
    out.clear();
    CHECK_FALSE(t.resolve(k, pkt(2), 5, out));
    CHECK_FALSE(t.resolve(k, pkt(3), 10, out));
    CHECK(out.empty());  // asked once; retries are tick()'s
    CHECK(t.waiting() == 3);
    CHECK_FALSE(t.mac_of(k));

    auto rows = t.list(400);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].key == k);
    CHECK(rows[0].state == NeighbourState::incomplete);
    CHECK_FALSE(rows[0].mac);
    CHECK(rows[0].age_ms == 400);
    CHECK(rows[0].waiting == 3);
    CHECK(rows[0].requests == 1);

    t.learn(k, mac(7), 500, NeighbourHeard::other, out);
    CHECK(out == Actions{installed(k, mac(7)), transmit(k, mac(7), 1), transmit(k, mac(7), 2),
                         transmit(k, mac(7), 3)});
    out.clear();
    CHECK(t.resolve(k, pkt(4), 600, out) == mac(7));
    CHECK(out.empty());
    CHECK(t.waiting() == 0);

    rows = t.list(1500);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].state == NeighbourState::reachable);
    CHECK(std::string(neighbour_state_name(rows[0].state)) == "reachable");
    CHECK(rows[0].mac == mac(7));
    CHECK(rows[0].age_ms == 1000);
    CHECK(rows[0].waiting == 0);
    CHECK(rows[0].requests == 0);

    const NeighbourCounters& c = t.counters();
    CHECK(c.requests_sent == 1);
    CHECK(c.resolved == 1);
    CHECK(c.queued == 3);
    CHECK(c.released == 3);
    CHECK(c.hits == 1);
    CHECK(c.learned_unsolicited == 0);
}

TEST_CASE("neighbour: a full queue drops its oldest packet", "[neighbour]") {
    struct Case {
        uint32_t queue;
        std::vector<uintptr_t> dropped;  // in this order, while 1..6 arrive
        std::vector<uintptr_t> sent;     // when the neighbour resolves
    };
    const Case cases[] = {
        {0, {1, 2, 3, 4, 5, 6}, {}},  // never queued: each packet comes straight back
        {1, {1, 2, 3, 4, 5}, {6}},   {4, {1, 2}, {3, 4, 5, 6}},
        {6, {}, {1, 2, 3, 4, 5, 6}}, {16, {}, {1, 2, 3, 4, 5, 6}},
    };
    for (const Case& c : cases) {
        INFO("neighbour_queue " << c.queue);
        NeighbourTable t(l3(c.queue));
        const auto k = key(0, "192.0.2.9");
        Actions out, want{request(k)};
        for (uintptr_t p = 1; p <= 6; ++p) CHECK_FALSE(t.resolve(k, pkt(p), p, out));
        for (const uintptr_t p : c.dropped) want.push_back(drop(k, p, NeighbourDrop::queue));
        CHECK(out == want);
        CHECK(t.waiting() == c.sent.size());
        CHECK(t.list(0).at(0).waiting == c.sent.size());

        out.clear();
        want = {installed(k, mac(1))};
        for (const uintptr_t p : c.sent) want.push_back(transmit(k, mac(1), p));
        t.learn(k, mac(1), 10, NeighbourHeard::answer, out);
        CHECK(out == want);
        CHECK(t.counters().queued == 6);
        CHECK(t.counters().queue_drops == c.dropped.size());
        CHECK(t.counters().released == c.sent.size());
        CHECK(t.waiting() == 0);
    }
}

TEST_CASE("neighbour: requests exactly resolve_interval_ms apart, then failure", "[neighbour]") {
    struct Case {
        uint32_t retries, interval_ms;
    };
    const Case cases[] = {{1, 1000}, {3, 1000}, {5, 250}, {2, 10}};
    for (const Case& c : cases) {
        INFO("resolve_retries " << c.retries << ", resolve_interval_ms " << c.interval_ms);
        NeighbourTable t(l3(4, c.retries, c.interval_ms));
        const auto k = key(2, "2001:db8::1");
        const uint64_t start = 1000000;
        std::vector<uint64_t> asked;
        Actions out;
        t.resolve(k, pkt(1), start, out);
        t.resolve(k, pkt(2), start, out);
        CHECK(out == Actions{request(k)});
        asked.push_back(start);
        out.clear();
        // A fake clock ticking every millisecond, up to the failure.
        const uint64_t fail_at = start + uint64_t(c.retries) * c.interval_ms;
        for (uint64_t now = start + 1; now < fail_at; ++now) {
            t.tick(now, out);
            for (const auto& a : out) {
                CHECK(a == request(k));
                asked.push_back(now);
            }
            out.clear();
        }
        std::vector<uint64_t> want;
        for (uint32_t i = 0; i < c.retries; ++i) want.push_back(start + i * c.interval_ms);
        CHECK(asked == want);
        CHECK(t.size() == 1);
        CHECK(t.list(fail_at - 1).at(0).requests == c.retries);

        t.tick(fail_at, out);
        CHECK(out == Actions{drop(k, 1, NeighbourDrop::unresolved),
                             drop(k, 2, NeighbourDrop::unresolved)});
        CHECK(t.size() == 0);
        CHECK(t.waiting() == 0);
        CHECK(t.counters().failed == 1);
        CHECK(t.counters().unresolved_drops == 2);
        CHECK(t.counters().requests_sent == c.retries);

        // Asked afresh by the next packet.
        out.clear();
        t.resolve(k, pkt(3), fail_at + 1, out);
        CHECK(out == Actions{request(k)});
    }
}

TEST_CASE("neighbour: a late tick sends one request, and the next an interval later",
          "[neighbour]") {
    NeighbourTable t(l3(4, 3, 1000));
    const auto k = key(0, "10.0.0.5");
    Actions out;
    t.resolve(k, pkt(1), 0, out);
    out.clear();
    t.tick(5500, out);  // the control path was away for seconds: no burst of catch-up requests
    CHECK(out == Actions{request(k)});
    out.clear();
    t.tick(6499, out);
    CHECK(out.empty());
    t.tick(6500, out);
    CHECK(out == Actions{request(k)});
    out.clear();
    t.tick(7500, out);
    CHECK(out == Actions{drop(k, 1, NeighbourDrop::unresolved)});
}

TEST_CASE("neighbour: re-probed after reachable_s, removed when the probes go unanswered",
          "[neighbour]") {
    NeighbourTable t(l3(4, 3, 1000, 30));
    const auto k = key(0, "10.0.0.7");
    make_reachable(t, k, mac(3), 0);
    Actions out;
    t.tick(29999, out);
    CHECK(out.empty());
    t.tick(30000, out);
    CHECK(out == Actions{probe(k, mac(3))});
    out.clear();
    CHECK(t.list(30000).at(0).state == NeighbourState::probe);
    CHECK(t.resolve(k, pkt(1), 30001, out) == mac(3));  // still used while asked
    CHECK(out.empty());

    t.tick(30999, out);
    CHECK(out.empty());
    t.tick(31000, out);
    t.tick(32000, out);
    CHECK(out == Actions{probe(k, mac(3)), probe(k, mac(3))});
    out.clear();
    t.tick(32999, out);
    CHECK(out.empty());
    t.tick(33000, out);
    CHECK(out == Actions{removed(k, mac(3))});
    CHECK(t.size() == 0);
    CHECK(t.counters().expired == 1);
    CHECK(t.counters().requests_sent == 3);

    out.clear();
    CHECK_FALSE(t.resolve(k, pkt(2), 33001, out));
    CHECK(out == Actions{request(k)});
}

TEST_CASE("neighbour: a reply renews the entry", "[neighbour]") {
    NeighbourTable t(l3(4, 3, 1000, 30));
    const auto k = key(0, "10.0.0.7");
    make_reachable(t, k, mac(3), 0);
    Actions out;
    t.learn(k, mac(3), 20000, NeighbourHeard::other, out);  // the same MAC: nothing to reprogram
    CHECK(out.empty());
    t.tick(30000, out);
    CHECK(out.empty());
    CHECK(t.list(30000).at(0).age_ms == 10000);
    t.tick(50000, out);
    CHECK(out == Actions{probe(k, mac(3))});
    out.clear();

    // Answered in the middle of probing: reachable again, no more probes.
    t.tick(51000, out);
    CHECK(out == Actions{probe(k, mac(3))});
    out.clear();
    t.learn(k, mac(3), 51500, NeighbourHeard::answer, out);
    CHECK(out.empty());
    const auto row = t.list(51500).at(0);
    CHECK(row.state == NeighbourState::reachable);
    CHECK(row.requests == 0);
    t.tick(81499, out);
    CHECK(out.empty());
    t.tick(81500, out);
    CHECK(out == Actions{probe(k, mac(3))});
    CHECK(t.counters().expired == 0);
}

TEST_CASE("neighbour: a changed MAC is reported", "[neighbour]") {
    NeighbourTable t(l3(4, 3, 1000, 30));
    const auto k = key(1, "fe80::1");
    make_reachable(t, k, mac(1), 0);
    Actions out;
    t.learn(k, mac(2), 100, NeighbourHeard::other, out);
    CHECK(out == Actions{changed(k, mac(2))});
    out.clear();
    CHECK(t.resolve(k, pkt(1), 101, out) == mac(2));

    // An answer to a probe from a new MAC (the neighbour's card replaced).
    t.tick(30100, out);
    CHECK(out == Actions{probe(k, mac(2))});
    out.clear();
    t.learn(k, mac(9), 30200, NeighbourHeard::answer, out);
    CHECK(out == Actions{changed(k, mac(9))});
    CHECK(t.counters().mac_changes == 2);
    CHECK(t.mac_of(k) == mac(9));
}

TEST_CASE("neighbour: static entries never change nor expire", "[neighbour]") {
    NeighbourTable t(l3(4, 3, 1000, 30));
    const auto k = key(0, "10.0.0.254");
    Actions out;
    REQUIRE(t.add_static(k, mac(5), 0, out).ok());
    CHECK(out == Actions{installed(k, mac(5))});
    out.clear();
    t.learn(k, mac(6), 10, NeighbourHeard::answer, out);
    t.learn(k, mac(6), 20, NeighbourHeard::other, out);
    t.tick(uint64_t(1) << 40, out);  // centuries
    CHECK(out.empty());
    CHECK(t.resolve(k, pkt(1), 30, out) == mac(5));
    auto row = t.list(1000).at(0);
    CHECK(row.state == NeighbourState::permanent);
    CHECK(row.mac == mac(5));
    CHECK(row.age_ms == 1000);
    CHECK(t.counters().requests_sent == 0);

    // Only remove() takes it away.
    CHECK(t.remove(k, out));
    CHECK(out == Actions{removed(k, mac(5))});
}

TEST_CASE("neighbour: a static entry takes a learned one's place", "[neighbour]") {
    NeighbourTable t(l3(4, 3, 1000, 30));
    const auto k = key(0, "10.0.0.3");
    Actions out;
    t.resolve(k, pkt(1), 0, out);
    t.resolve(k, pkt(2), 0, out);
    out.clear();
    REQUIRE(t.add_static(k, mac(4), 10, out).ok());
    CHECK(out == Actions{installed(k, mac(4)), transmit(k, mac(4), 1), transmit(k, mac(4), 2)});
    out.clear();
    t.tick(100000, out);  // its retries stopped
    CHECK(out.empty());

    const auto k2 = key(0, "10.0.0.4");
    make_reachable(t, k2, mac(1), 0);
    REQUIRE(t.add_static(k2, mac(2), 10, out).ok());
    CHECK(out == Actions{changed(k2, mac(2))});
    out.clear();
    t.tick(uint64_t(1) << 40, out);  // its probes stopped
    CHECK(out.empty());
    CHECK(t.list(0).at(1).state == NeighbourState::permanent);
}

TEST_CASE("neighbour: MACs no neighbour has are refused", "[neighbour]") {
    const MacAddr bad[] = {
        MacAddr{},                                      // zero
        MacAddr{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},  // broadcast
        MacAddr{{0x01, 0x00, 0x5e, 0x00, 0x00, 0x01}},  // IPv4 multicast
        MacAddr{{0x33, 0x33, 0xff, 0x00, 0x00, 0x01}},  // IPv6 multicast
    };
    NeighbourTable t(l3());
    const auto k = key(0, "10.0.0.2");
    Actions out;
    t.resolve(k, pkt(1), 0, out);
    out.clear();
    for (const MacAddr& m : bad) {
        INFO(m.to_string());
        t.learn(k, m, 1, NeighbourHeard::answer, out);
        t.learn(key(0, "10.0.0.3"), m, 1, NeighbourHeard::answer, out);
        CHECK(out.empty());
        const Status s = t.add_static(key(0, "10.0.0.4"), m, 1, out);
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().message == "neighbour 10.0.0.4 on port 0: MAC " + m.to_string() +
                                       " is not a unicast address, which a neighbour's must be");
    }
    CHECK(t.size() == 1);
    CHECK(t.counters().bogus_macs == 8);
}

TEST_CASE("neighbour: an unknown sender is learned only when it talked to us", "[neighbour]") {
    NeighbourTable t(l3());
    const auto k = key(0, "10.0.0.9");
    Actions out;
    t.learn(k, mac(9), 0, NeighbourHeard::other,
            out);  // an ARP request for someone else, a gratuitous ARP
    CHECK(out.empty());
    CHECK(t.size() == 0);
    t.learn(k, mac(9), 0, NeighbourHeard::answer, out);
    CHECK(out == Actions{installed(k, mac(9))});
    CHECK(t.counters().learned_unsolicited == 1);
    CHECK(t.counters().resolved == 0);

    // One we asked for is taken from whatever carries it.
    const auto asked = key(0, "10.0.0.10");
    out.clear();
    t.resolve(asked, pkt(1), 0, out);
    out.clear();
    t.learn(asked, mac(10), 5, NeighbourHeard::other, out);
    CHECK(out == Actions{installed(asked, mac(10)), transmit(asked, mac(10), 1)});
    CHECK(t.counters().learned_unsolicited == 1);
    CHECK(t.counters().resolved == 1);
}

TEST_CASE("neighbour: at most max_neighbours entries", "[neighbour]") {
    NeighbourTable t(l3(4, 1, 1000, 30, 3));
    const auto a = key(0, "10.0.0.1"), b = key(0, "10.0.0.2"), c = key(0, "10.0.0.3"),
               d = key(0, "10.0.0.4");
    Actions out;
    REQUIRE(t.add_static(a, mac(1), 0, out).ok());
    t.resolve(b, pkt(1), 0, out);
    make_reachable(t, c, mac(3), 0);  // confirmed: not evicted for another
    CHECK(t.size() == 3);
    out.clear();

    CHECK_FALSE(t.resolve(d, pkt(2), 1, out));
    CHECK(out == Actions{drop(d, 2, NeighbourDrop::table_full)});
    out.clear();
    t.learn(d, mac(4), 1, NeighbourHeard::answer, out);
    CHECK(out.empty());
    const Status s = t.add_static(d, mac(4), 1, out);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message ==
          "neighbour 10.0.0.4 on port 0: the table holds l3.max_neighbours (3) entries already");
    CHECK(t.size() == 3);
    CHECK(t.counters().table_full_drops == 1);

    // Those in the table still take packets.
    CHECK_FALSE(t.resolve(b, pkt(3), 2, out));
    CHECK(out.empty());
    CHECK(t.waiting() == 2);

    // b fails (one retry): room again.
    t.tick(1000, out);
    CHECK(out ==
          Actions{drop(b, 1, NeighbourDrop::unresolved), drop(b, 3, NeighbourDrop::unresolved)});
    out.clear();
    CHECK_FALSE(t.resolve(d, pkt(4), 1001, out));
    CHECK(out == Actions{request(d)});
}

TEST_CASE("neighbour: IPv4 and IPv6 keys on one port, one address on two ports", "[neighbour]") {
    // The same 16 bytes: 10.0.0.1 is kept as 0a 00 00 01 and twelve zeros.
    const auto v4 = key(0, "10.0.0.1"), v6 = key(0, "a00:1::"), other_port = key(1, "10.0.0.1");
    REQUIRE(v4.address.bytes == v6.address.bytes);
    NeighbourTable t(l3());
    Actions out;
    t.resolve(v4, pkt(1), 0, out);
    t.resolve(v6, pkt(2), 0, out);
    t.resolve(other_port, pkt(3), 0, out);
    CHECK(out == Actions{request(v4), request(v6), request(other_port)});
    out.clear();
    CHECK(t.size() == 3);

    t.learn(v4, mac(4), 1, NeighbourHeard::answer, out);
    CHECK(out == Actions{installed(v4, mac(4)), transmit(v4, mac(4), 1)});
    out.clear();
    t.learn(v6, mac(6), 2, NeighbourHeard::answer, out);
    CHECK(out == Actions{installed(v6, mac(6)), transmit(v6, mac(6), 2)});
    CHECK(t.mac_of(v4) == mac(4));
    CHECK(t.mac_of(v6) == mac(6));
    CHECK_FALSE(t.mac_of(other_port));

    // Listed by port, then IPv4 before IPv6.
    const auto rows = t.list(3);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].key == v4);
    CHECK(rows[1].key == v6);
    CHECK(rows[2].key == other_port);
}

TEST_CASE("neighbour: remove drops what waits", "[neighbour]") {
    NeighbourTable t(l3());
    const auto k = key(0, "10.0.0.2"), r = key(0, "2001:db8::2"), p1 = key(1, "10.0.0.2");
    Actions out;
    t.resolve(k, pkt(1), 0, out);
    t.resolve(k, pkt(2), 0, out);
    t.resolve(k, pkt(3), 0, out);
    out.clear();
    CHECK(t.remove(k, out));
    // Never resolved: nothing to take out of forwarding.
    CHECK(out == Actions{drop(k, 1, NeighbourDrop::removed), drop(k, 2, NeighbourDrop::removed),
                         drop(k, 3, NeighbourDrop::removed)});
    CHECK(t.waiting() == 0);
    CHECK(t.counters().removed_drops == 3);
    out.clear();
    CHECK_FALSE(t.remove(k, out));
    CHECK(out.empty());
    t.tick(100000, out);  // its timer went with it
    CHECK(out.empty());

    // A port going away takes its neighbours of both families, and no other's.
    make_reachable(t, r, mac(2), 0);
    make_reachable(t, p1, mac(3), 0);
    t.resolve(k, pkt(4), 0, out);
    out.clear();
    CHECK(t.remove_port(0, out) == 2);
    CHECK(out == Actions{drop(k, 4, NeighbourDrop::removed), removed(r, mac(2))});
    CHECK(t.size() == 1);
    CHECK(t.mac_of(p1) == mac(3));
    CHECK(t.counters().removed == 3);
    CHECK(t.remove_port(7, out) == 0);
}

TEST_CASE("neighbour: names of states and drops come from their tables", "[neighbour]") {
    CHECK(std::string(neighbour_state_name(NeighbourState::incomplete)) == "incomplete");
    CHECK(std::string(neighbour_state_name(NeighbourState::probe)) == "probe");
    CHECK(std::string(neighbour_state_name(NeighbourState::permanent)) == "permanent");
    CHECK(std::string(neighbour_drop_name(NeighbourDrop::queue)) == "queue");
    CHECK(std::string(neighbour_drop_name(NeighbourDrop::unresolved)) == "unresolved");
    // Each drop reason is a counter of the router's, with its sentence.
    for (size_t i = 0; i < kNeighbourDropCount; ++i) {
        const std::string key =
            "neighbour_" + std::string(neighbour_drop_name(NeighbourDrop(i))) + "_drops";
        INFO(key);
        const Field* f = kRouterRecord.find(key);
        REQUIRE(f != nullptr);
        CHECK(f->help.size() > 10);
    }
}

TEST_CASE("neighbour: every packet is sent, dropped or still waiting", "[neighbour]") {
    // Random resolves, answers, ticks and removals on a few neighbours of two
    // ports and both families, a tight table and short queues; after every
    // call each packet handed in is accounted for exactly once, and the
    // forwarding the actions describe matches the table.
    const NeighbourKey keys[] = {key(0, "10.0.0.1"), key(0, "10.0.0.2"),   key(0, "a00:1::"),
                                 key(0, "fe80::2"),  key(1, "10.0.0.1"),   key(1, "10.0.0.3"),
                                 key(1, "fe80::2"),  key(1, "2001:db8::9")};
    for (const uint32_t queue : {0u, 1u, 2u, 5u}) {
        INFO("neighbour_queue " << queue);
        std::mt19937_64 rng(queue);
        NeighbourTable t(l3(queue, 1 + uint32_t(rng() % 3), 100, 2, 5));
        std::set<uintptr_t> outstanding;             // handed in, not yet given back
        std::map<NeighbourKey, MacAddr> forwarding;  // what installed/changed/removed built
        uint64_t handed_in = 0, given_back = 0, now = 0;
        uintptr_t next_packet = 1;
        const NeighbourHeard heard[] = {NeighbourHeard::other, NeighbourHeard::request_for_us,
                                        NeighbourHeard::answer};
        Actions out;
        for (int step = 0; step < 20000; ++step) {
            now += rng() % 40;
            const NeighbourKey& k = keys[rng() % std::size(keys)];
            out.clear();
            switch (rng() % 10) {
                case 0:
                case 1:
                case 2:
                case 3: {
                    const uintptr_t p = next_packet++;
                    ++handed_in;
                    const auto m = t.resolve(k, pkt(p), now, out);
                    if (m) {
                        CHECK(forwarding.count(k) == 1);
                        CHECK(forwarding[k] == *m);
                        ++given_back;
                    } else {
                        outstanding.insert(p);
                    }
                    break;
                }
                case 4:
                case 5:
                    // Answers come in spells, so that between them neighbours
                    // fail and expire.
                    if ((step / 2000) % 2 == 0)
                        t.learn(k, mac(uint8_t(1 + rng() % 3)), now, heard[rng() % 3], out);
                    break;
                case 6:
                    if (rng() % 8 == 0) t.remove(k, out);
                    if (rng() % 64 == 0) t.remove_port(uint16_t(rng() % 2), out);
                    break;
                default:
                    t.tick(now, out);
                    break;
            }
            for (const NeighbourAction& a : out) {
                switch (a.kind) {
                    case Act::transmit:
                        CHECK(forwarding.count(a.key) == 1);
                        CHECK(forwarding[a.key] == a.mac);
                        [[fallthrough]];
                    case Act::drop:
                        CHECK(outstanding.erase(reinterpret_cast<uintptr_t>(a.packet)) == 1);
                        ++given_back;
                        break;
                    case Act::installed:
                        CHECK(forwarding.count(a.key) == 0);
                        forwarding[a.key] = a.mac;
                        break;
                    case Act::changed:
                        CHECK(forwarding.count(a.key) == 1);
                        CHECK(forwarding[a.key] != a.mac);
                        forwarding[a.key] = a.mac;
                        break;
                    case Act::removed:
                        CHECK(forwarding.count(a.key) == 1);
                        CHECK(forwarding[a.key] == a.mac);
                        forwarding.erase(a.key);
                        break;
                    case Act::send_request:
                        CHECK_FALSE(t.mac_of(a.key));
                        break;
                    case Act::send_probe:
                        CHECK(t.mac_of(a.key) == a.mac);
                        break;
                }
            }
            REQUIRE(outstanding.size() == t.waiting());
            REQUIRE(handed_in == given_back + t.waiting());
        }

        uint64_t listed_waiting = 0;
        size_t resolved = 0;
        for (const NeighbourEntry& row : t.list(now)) {
            listed_waiting += row.waiting;
            if (row.mac) {
                ++resolved;
                CHECK(forwarding.count(row.key) == 1);
                CHECK(forwarding[row.key] == *row.mac);
            } else {
                CHECK(row.state == NeighbourState::incomplete);
            }
        }
        CHECK(resolved == forwarding.size());
        CHECK(listed_waiting == t.waiting());

        const NeighbourCounters& c = t.counters();
        CHECK(c.hits + c.queued + c.table_full_drops + c.resolving_full_drops == handed_in);
        CHECK(c.released + c.queue_drops + c.waiting_full_drops + c.unresolved_drops +
                  c.removed_drops + t.waiting() ==
              c.queued);
        // The run went everywhere it should.
        CHECK(c.hits > 0);
        CHECK(c.queue_drops > 0);
        if (queue > 0) {
            CHECK(c.released > 0);
            CHECK(c.unresolved_drops > 0);
            CHECK(c.removed_drops > 0);
        }
        CHECK(c.failed > 0);
        CHECK(c.expired > 0);
        CHECK(c.table_full_drops > 0);
        CHECK(c.mac_changes > 0);
    }
}

namespace {

// 10.0.<n / 250>.<1 + n % 250> on port 0's made-up senders.
NeighbourKey made_up(uint16_t port, unsigned n) {
    const std::string a = "10." + std::to_string(port) + "." + std::to_string(n / 250) + "." +
                          std::to_string(1 + n % 250);
    return key(port, a.c_str());
}

size_t entries_of(const NeighbourTable& t, uint16_t port) {
    size_t n = 0;
    for (const NeighbourEntry& e : t.list(0)) n += e.key.port == port;
    return n;
}

}  // namespace

TEST_CASE("neighbour: a flood of ARP/NS from made-up senders locks out no neighbour we need",
          "[neighbour]") {
    L3Config c = l3(4, 3, 1000, 300, 64);  // a port's share: 48 of 64
    NeighbourTable t(c);
    Actions out;
    // 4300 requests for our address, as one host sent them: each sender is
    // new, each is learned stale and pushes out the oldest of its port.
    for (unsigned n = 0; n < 4300; ++n)
        t.learn(made_up(0, n), mac(uint8_t(1 + n % 200)), n / 10, NeighbourHeard::request_for_us,
                out);
    CHECK(t.size() == 48);
    CHECK(entries_of(t, 0) == 48);
    CHECK(t.counters().learned_unsolicited == 4300);
    CHECK(t.counters().evicted == 4300 - 48);
    for (const NeighbourEntry& e : t.list(430)) CHECK(e.state == NeighbourState::stale);
    out.clear();

    // A new host on the same port, one on another, in both families: each
    // is asked for at once and resolves with its answer.
    const NeighbourKey wanted[] = {key(0, "10.0.200.1"), key(1, "10.1.0.2"), key(0, "2001:db8::2"),
                                   key(1, "2001:db8:1::2")};
    uintptr_t p = 1;
    for (const NeighbourKey& k : wanted) {
        INFO(k.address.to_string() << " on port " << k.port);
        out.clear();
        CHECK_FALSE(t.resolve(k, pkt(p), 500, out));
        CHECK(out.back() == request(k));
        out.clear();
        t.learn(k, mac(250), 501, NeighbourHeard::answer, out);
        CHECK(out == Actions{installed(k, mac(250)), transmit(k, mac(250), p)});
        ++p;
    }
    CHECK(t.counters().table_full_drops == 0);
    CHECK(entries_of(t, 0) == 48);

    // The flood goes on: it pushes out its own entries, never the ones we
    // asked for.
    for (unsigned n = 5000; n < 6000; ++n)
        t.learn(made_up(0, n), mac(1), 600, NeighbourHeard::request_for_us, out);
    for (const NeighbourKey& k : wanted) CHECK(t.mac_of(k) == mac(250));

    // Nobody asked for the made-up senders: reachable_s later they go, and
    // not one probe was sent to them.
    out.clear();
    t.tick(600 + 300 * 1000, out);
    for (const NeighbourAction& a : out) {
        CHECK(a.kind != Act::send_request);
        if (a.kind == Act::send_probe) {
            const bool is_wanted =
                std::find(std::begin(wanted), std::end(wanted), a.key) != std::end(wanted);
            CHECK(is_wanted);
        }
    }
    CHECK(t.counters().stale_expired == 46);
    CHECK(t.size() == 4);
}

TEST_CASE("neighbour: a stale entry is confirmed by an answer only", "[neighbour]") {
    NeighbourTable t(l3(4, 3, 1000, 30));
    const auto k = key(0, "10.0.0.5");
    Actions out;
    t.learn(k, mac(1), 0, NeighbourHeard::request_for_us, out);
    CHECK(out == Actions{installed(k, mac(1))});
    out.clear();
    // Another request: the MAC it claims now, still stale, heard later.
    t.learn(k, mac(2), 10000, NeighbourHeard::request_for_us, out);
    CHECK(out == Actions{changed(k, mac(2))});
    CHECK(t.list(10000)[0].state == NeighbourState::stale);
    out.clear();
    t.tick(30000, out);  // 30 s after the first, 20 s after the last: kept
    CHECK(out.empty());
    t.learn(k, mac(2), 35000, NeighbourHeard::answer, out);
    CHECK(out.empty());
    CHECK(t.list(35000)[0].state == NeighbourState::reachable);
    // Reachable ones are probed when reachable_s is up.
    t.tick(65000, out);
    CHECK(out == Actions{probe(k, mac(2))});
}

TEST_CASE("neighbour: at most max_resolving neighbours resolve at once", "[neighbour]") {
    L3Config c = l3(4, 3, 1000, 30, 64);
    c.max_resolving = 4;
    NeighbourTable t(c);
    Actions out;
    size_t requests = 0;
    for (unsigned n = 0; n < 10; ++n) t.resolve(made_up(0, n), pkt(n + 1), 0, out);
    for (const NeighbourAction& a : out) requests += a.kind == Act::send_request;
    CHECK(requests == 4);
    CHECK(t.resolving() == 4);
    CHECK(t.counters().resolving_full_drops == 6);
    CHECK(out.back() == drop(made_up(0, 9), 10, NeighbourDrop::resolving_full));
    // One answered: room for another.
    out.clear();
    t.learn(made_up(0, 0), mac(1), 5, NeighbourHeard::answer, out);
    CHECK(t.resolving() == 3);
    out.clear();
    t.resolve(made_up(0, 20), pkt(21), 6, out);
    CHECK(out == Actions{request(made_up(0, 20))});
    // Given up ones free theirs too.
    out.clear();
    for (uint64_t now = 1000; now <= 10000; now += 1000) t.tick(now, out);
    CHECK(t.resolving() == 0);
}

TEST_CASE("neighbour: at most max_waiting_packets wait, over every neighbour", "[neighbour]") {
    L3Config c = l3(4, 3, 1000, 30, 64);
    c.max_waiting_packets = 10;
    NeighbourTable t(c);
    Actions out;
    uintptr_t p = 1;
    for (unsigned n = 0; n < 5; ++n)
        for (int i = 0; i < 4; ++i) t.resolve(made_up(0, n), pkt(p++), 0, out);
    CHECK(t.waiting() == 10);
    CHECK(t.waiting_peak() == 10);
    CHECK(t.counters().waiting_full_drops == 10);
    CHECK(t.counters().queued == 20);
    // A full queue still swaps its oldest for the newest: the total holds.
    out.clear();
    t.resolve(made_up(0, 0), pkt(p), 1, out);
    CHECK(out == Actions{drop(made_up(0, 0), 1, NeighbourDrop::queue)});
    CHECK(t.waiting() == 10);
    // Released packets make room again.
    out.clear();
    t.learn(made_up(0, 0), mac(1), 2, NeighbourHeard::answer, out);
    CHECK(t.waiting() == 6);
    CHECK(t.waiting_peak() == 10);
}

TEST_CASE("neighbour: a port's share leaves the other ports room", "[neighbour]") {
    L3Config c = l3(4, 3, 1000, 30, 16);
    c.max_neighbours_per_port = 8;
    NeighbourTable t(c);
    Actions out;
    // Port 0 resolves 8 neighbours it needs: its share.
    for (unsigned n = 0; n < 8; ++n) {
        t.resolve(made_up(0, n), pkt(n + 1), 0, out);
        t.learn(made_up(0, n), mac(1), 1, NeighbourHeard::answer, out);
    }
    out.clear();
    // Past its share nothing of port 0 fits: none is stale.
    CHECK_FALSE(t.resolve(made_up(0, 100), pkt(100), 2, out));
    CHECK(out == Actions{drop(made_up(0, 100), 100, NeighbourDrop::table_full)});
    t.learn(made_up(0, 101), mac(1), 2, NeighbourHeard::request_for_us, out);
    CHECK(t.counters().not_learned == 1);
    // Port 1 has the rest; its flood pushes out its own stale entries only.
    for (unsigned n = 0; n < 100; ++n)
        t.learn(made_up(1, n), mac(2), 3, NeighbourHeard::request_for_us, out);
    CHECK(entries_of(t, 0) == 8);
    CHECK(entries_of(t, 1) == 8);
    // A [[neighbour]] is not held to the share: it evicts a stale entry.
    out.clear();
    REQUIRE(t.add_static(made_up(0, 200), mac(3), 4, out).ok());
    CHECK(entries_of(t, 0) == 9);
    CHECK(t.size() == 16);
    CHECK(t.counters().evicted == 93);
}

TEST_CASE("neighbour: limits changed by a reload apply to what comes next", "[neighbour]") {
    L3Config c = l3(4, 3, 1000, 30, 64);
    c.max_resolving = 8;
    NeighbourTable t(c);
    Actions out;
    for (unsigned n = 0; n < 4; ++n) t.resolve(made_up(0, n), pkt(n + 1), 0, out);
    CHECK(t.resolving() == 4);
    c.max_resolving = 2;
    c.resolve_retries = 1;
    t.set_limits(c);
    // Four resolve on (nothing is taken back); a fifth is refused.
    out.clear();
    t.resolve(made_up(0, 10), pkt(11), 1, out);
    CHECK(out == Actions{drop(made_up(0, 10), 11, NeighbourDrop::resolving_full)});
    CHECK(t.resolving() == 4);
    // One retry now: the next request is the last, then they fail.
    out.clear();
    for (uint64_t now = 1000; now <= 5000; now += 1000) t.tick(now, out);
    CHECK(t.resolving() == 0);
}
