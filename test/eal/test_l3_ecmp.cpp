// Equal-cost routes on the workers: flows spread over every path, a flow
// keeps to one, a path added or removed moves only the flows it takes or
// gave up, a path without a MAC is resolved for the flow that needs it,
// and routes with the same paths share one group.
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

namespace {

const MacAddr kNbA3 = mac("02:00:00:00:0a:03");  // 10.1.0.3 on a
// The gateways' MACs as paths_taken names them.
const std::string kToB = kNbB.to_string(), kToC = kNbC.to_string(), kToA3 = kNbA3.to_string();

// 10.1.0.3 a static neighbour too: a third gateway, on port a.
void third_gateway(Config& cfg) {
    cfg.neighbours.push_back({ip("10.1.0.3"), kNbA3, "a", {}, {}, {}, {}});
}

const IpAddress kViaB = ip("10.2.0.2"), kViaC = ip("10.3.0.2"), kViaA3 = ip("10.1.0.3");

// n UDP flows (source ports 40000 + i) to 10.99.0.7, from a host on port b.
std::vector<Bytes> flows(size_t n) {
    std::vector<Bytes> v;
    for (size_t i = 0; i < n; ++i)
        v.push_back(
            frame({kMacB, kHost, {}}, 0x0800,
                  ipv4_udp({ip4("10.2.0.9"), ip4("10.99.0.7"), 64, 0, 0, 1, 18, uint32_t(i)})));
    return v;
}

uint16_t source_port(const Bytes& f) { return packet_bytes::be16(f, 14 + 20); }

// Which gateway each flow went to (its destination MAC), by source port.
std::map<uint16_t, std::string> paths_taken(RouterRig& rig, const std::vector<Bytes>& sent) {
    const BurstOutcome o = rig.route(sent, kB);
    CHECK(o.tx_pkts == sent.size());
    std::map<uint16_t, std::string> taken;
    for (const size_t port : {kA, kB, kC})
        for (const Bytes& f : rig.out(port)) {
            MacAddr dst;
            std::copy(f.begin(), f.begin() + 6, dst.bytes.begin());
            taken[source_port(f)] = dst.to_string();
        }
    CHECK(taken.size() == sent.size());
    return taken;
}

std::map<std::string, size_t> count_by_path(const std::map<uint16_t, std::string>& taken) {
    std::map<std::string, size_t> n;
    for (const auto& [flow, via] : taken) n[via]++;
    return n;
}

const RouteInfo* route_of(const std::vector<RouteInfo>& routes, const char* p) {
    for (const auto& r : routes)
        if (r.prefix == prefix(p)) return &r;
    return nullptr;
}

}  // namespace

TEST_CASE("l3 ecmp: flows spread over the paths; a path added or removed moves only its flows",
          "[l3][ecmp]") {
    RouterRig rig(third_gateway);
    const auto sent = flows(200);
    REQUIRE(rig.router->add_route(prefix("10.99.0.0/16"), {{kViaB, ""}, {kViaC, ""}}));
    const auto two = paths_taken(rig, sent);
    const auto per_path = count_by_path(two);
    REQUIRE(per_path.size() == 2);
    CHECK(per_path.at(kToB) >= 50);
    CHECK(per_path.at(kToC) >= 50);
    CHECK(paths_taken(rig, sent) == two);  // each flow keeps to its path

    const auto routes = rig.router->routes();
    const RouteInfo* r = route_of(routes, "10.99.0.0/16");
    REQUIRE(r);
    CHECK(r->via == "10.2.0.2,10.3.0.2");
    CHECK(r->port == "b,c");
    CHECK(r->state == "forward");
    CHECK(rig.router->sizes().ecmp_groups == 1);

    SECTION("a path added takes flows from the others, and only for itself") {
        REQUIRE(rig.router->add_route(prefix("10.99.0.0/16"),
                                      {{kViaB, ""}, {kViaC, ""}, {kViaA3, ""}}));
        const auto three = paths_taken(rig, sent);
        size_t moved = 0;
        for (const auto& [flow, via] : three) {
            if (via == two.at(flow)) continue;
            CHECK(via == kToA3);
            moved++;
        }
        CHECK(moved >= 30);
        CHECK(count_by_path(three).size() == 3);
        CHECK(rig.router->sizes().ecmp_groups == 1);  // the old group went with its last route
    }
    SECTION("a path removed gives up its flows, the others keep theirs") {
        REQUIRE(rig.router->add_route(prefix("10.99.0.0/16"),
                                      {{kViaB, ""}, {kViaC, ""}, {kViaA3, ""}}));
        const auto three = paths_taken(rig, sent);
        REQUIRE(rig.router->add_route(prefix("10.99.0.0/16"), {{kViaB, ""}, {kViaA3, ""}}));
        const auto after = paths_taken(rig, sent);
        for (const auto& [flow, via] : three)
            if (via != kToC) CHECK(after.at(flow) == via);
        CHECK(count_by_path(after).count(kToC) == 0);
    }
    SECTION("down to one path: a plain route, the group gone") {
        REQUIRE(rig.router->add_route(prefix("10.99.0.0/16"), kViaB, ""));
        CHECK(count_by_path(paths_taken(rig, sent)) == std::map<std::string, size_t>{{kToB, 200}});
        CHECK(rig.router->sizes().ecmp_groups == 0);
    }
    SECTION("routes with the same paths share a group; it goes with the last") {
        REQUIRE(rig.router->add_route(prefix("10.98.0.0/16"), {{kViaC, ""}, {kViaB, ""}}));
        CHECK(rig.router->sizes().ecmp_groups == 1);
        REQUIRE(rig.router->delete_route(prefix("10.99.0.0/16")));
        CHECK(rig.router->sizes().ecmp_groups == 1);
        REQUIRE(rig.router->delete_route(prefix("10.98.0.0/16")));
        CHECK(rig.router->sizes().ecmp_groups == 0);
    }
    rig.check_pools_full();
}

TEST_CASE("l3 ecmp: a path without a MAC is resolved for the flows that take it", "[l3][ecmp]") {
    RouterRig rig;
    // 10.3.0.9 is no neighbour yet: its flows go to the control path.
    REQUIRE(rig.router->add_route(prefix("10.99.0.0/16"), {{kViaB, ""}, {ip("10.3.0.9"), ""}}));
    const auto sent = flows(64);
    const BurstOutcome o = rig.route(sent, kB);
    const auto to_b = rig.out(kB);
    CHECK(o.tx_pkts == to_b.size());
    CHECK(o.punted == sent.size() - to_b.size());
    CHECK(to_b.size() >= 10);
    CHECK(o.punted >= 10);
    const auto routes = rig.router->routes();
    REQUIRE(route_of(routes, "10.99.0.0/16"));
    CHECK(route_of(routes, "10.99.0.0/16")->state == "resolving");
    // The control path resolves the path those flows take: an ARP request
    // for 10.3.0.9 on c, the packets held for it.
    rig.poll();
    const auto asked = rig.control_out(kC);
    REQUIRE(asked.size() == 1);
    CHECK(asked[0] ==
          arp({kBroadcast, kMacC, {}}, 1, kMacC, ip4("10.3.0.1"), MacAddr{}, ip4("10.3.0.9")));
    rig.router.reset();  // frees the held packets
    rig.check_pools_full();
}

TEST_CASE("l3 ecmp: with every group taken, a new set of paths takes its first", "[l3][ecmp]") {
    RouterRig rig([](Config& cfg) {
        third_gateway(cfg);
        cfg.l3.max_ecmp_groups = 1;
    });
    REQUIRE(rig.router->add_route(prefix("10.99.0.0/16"), {{kViaB, ""}, {kViaC, ""}}));
    REQUIRE(rig.router->add_route(prefix("10.98.0.0/16"), {{kViaB, ""}, {kViaA3, ""}}));
    CHECK(rig.router->counters().ecmp_groups_full == 1);
    CHECK(rig.router->sizes().ecmp_groups == 1);
    const auto routes = rig.router->routes();
    REQUIRE(route_of(routes, "10.98.0.0/16"));
    CHECK(route_of(routes, "10.98.0.0/16")->via == "10.1.0.3");  // the first in address order
    // Bad requests change nothing.
    CHECK_FALSE(rig.router->add_route(prefix("10.97.0.0/16"), {{kViaB, ""}, {{}, "c"}}));
    CHECK_FALSE(rig.router->add_route(prefix("10.97.0.0/16"), {{kViaB, ""}, {ip("10.9.0.1"), ""}}));
    const auto after = rig.router->routes();
    CHECK_FALSE(route_of(after, "10.97.0.0/16"));
    rig.check_pools_full();
}
