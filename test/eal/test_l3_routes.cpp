// Routes at run time: the longest prefix wins, a deleted route falls to
// the shorter one and an added one takes its packets back; route add is
// held to the config's rules, and route del says what a route it refuses is.
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
// Global, so that they hide the C library's struct ip.
using packet_bytes::hex;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

TEST_CASE("l3: the longest prefix wins; deleted routes fall to the shorter one, added ones return",
          "[l3]") {
    RouterRig rig;
    const auto burst = [] {
        std::vector<Bytes> v;
        uint32_t seq = 0;
        for (const char* dst :
             {"10.20.30.5", "10.20.99.5", "8.8.8.8", "10.20.30.255", "10.21.0.1", "10.20.31.1"})
            v.push_back(frame({kMacA, kHost, {}}, 0x0800,
                              ipv4_udp({ip4("10.1.0.2"), ip4(dst), 64, 0, 0, 1, 18, seq++})));
        return v;
    }();
    const auto expect = [&](std::initializer_list<size_t> to_a, std::initializer_list<size_t> to_b,
                            std::initializer_list<size_t> to_c) {
        std::vector<Bytes> a, b, c;
        for (size_t i : to_a) a.push_back(routed(burst[i], kGwA, kMacA));
        for (size_t i : to_b) b.push_back(routed(burst[i], kNbB, kMacB));
        for (size_t i : to_c) c.push_back(routed(burst[i], kNbC, kMacC));
        const BurstOutcome o = rig.route(burst);
        check_frames(rig.out(kA), a);
        check_frames(rig.out(kB), b);
        check_frames(rig.out(kC), c);
        CHECK(o.tx_pkts == a.size() + b.size() + c.size());
        return o;
    };
    SECTION("/24 over /16 over the default") { expect({2, 4}, {1, 5}, {0, 3}); }
    SECTION("deletes fall through to no_route, adds bring the routes back") {
        REQUIRE(rig.router->delete_route(prefix("10.20.30.0/24")));
        expect({2, 4}, {0, 1, 3, 5}, {});
        REQUIRE(rig.router->delete_route(prefix("10.20.0.0/16")));
        expect({0, 1, 2, 3, 4, 5}, {}, {});
        REQUIRE(rig.router->delete_route(prefix("0.0.0.0/0")));
        const BurstOutcome none = expect({}, {}, {});
        CHECK(none.drops[idx(DropReason::no_route)] == burst.size());
        CHECK(total_drops(none) == burst.size());
        const auto punts = rig.punts();  // each with its ICMP unreachable to come
        REQUIRE(punts.size() == burst.size());
        for (size_t i = 0; i < punts.size(); ++i) {
            CHECK(punts[i].why == PuntReason::unreachable);
            CHECK(punts[i].frame == burst[i]);  // as received
        }
        REQUIRE(rig.router->add_route(prefix("0.0.0.0/0"), ip("10.1.0.254"), ""));
        expect({0, 1, 2, 3, 4, 5}, {}, {});
        REQUIRE(rig.router->add_route(prefix("10.20.30.0/24"), ip("10.3.0.2"), "c"));
        expect({1, 2, 4, 5}, {}, {0, 3});
        REQUIRE(rig.router->add_route(prefix("10.20.0.0/16"), ip("10.2.0.2"), ""));
        expect({2, 4}, {1, 5}, {0, 3});
        // An add over an existing route moves it.
        REQUIRE(rig.router->add_route(prefix("10.20.0.0/16"), ip("10.3.0.2"), ""));
        expect({2, 4}, {}, {0, 1, 3, 5});
        bool found = false;
        for (const auto& r : rig.router->routes())
            if (r.prefix == prefix("10.20.0.0/16")) {
                found = true;
                CHECK(r.origin == "runtime");
                CHECK(r.port == "c");
                CHECK(r.state == "forward");
            }
        CHECK(found);
    }
    rig.check_pools_full();
}

TEST_CASE("l3: route add follows the config's rules; route del says what a route is", "[l3]") {
    RouterRig rig;
    const auto refusal = [&](const char* p, const char* via, const char* port = "") {
        const Status st =
            rig.router->add_route(prefix(p), via ? std::optional(ip(via)) : std::nullopt, port);
        REQUIRE_FALSE(st.ok());
        return st.error().message;
    };
    CHECK(refusal("10.9.0.0/16", "10.1.0.1") ==
          "'10.1.0.1' is one of this router's own addresses (port 'a')");
    CHECK(refusal("10.9.0.0/16", "10.1.0.255") ==
          "'10.1.0.255' is the broadcast address of subnet 10.1.0.0/24 (port 'a'), which names "
          "no neighbour");
    CHECK(refusal("10.9.0.0/16", "10.1.0.0") ==
          "'10.1.0.0' is the network address of subnet 10.1.0.0/24 (port 'a'), which names no "
          "neighbour");
    CHECK(refusal("224.0.0.0/4", "10.1.0.2") ==
          "'224.0.0.0/4' is multicast (224.0.0.0/4), which a router never forwards to");
    CHECK(refusal("127.0.0.0/8", "10.1.0.2").find("loopback") != std::string::npos);
    CHECK(refusal("fe80::/10", "2001:db8:1::2").find("link-local") != std::string::npos);
    CHECK(refusal("ff00::/8", nullptr, "a").find("multicast") != std::string::npos);
    CHECK(refusal("10.1.0.0/24", "10.2.0.2") ==
          "'10.1.0.0/24' is the connected subnet of port 'a' already");
    CHECK(refusal("10.9.0.0/16", "10.9.0.1").find("on no connected subnet") != std::string::npos);
    CHECK(refusal("10.9.0.0/16", "2001:db8:1::2") ==
          "'2001:db8:1::2' is not IPv4, as the prefix is");
    CHECK(refusal("10.9.0.0/16", "10.1.0.2", "x") == "no port 'x'");
    // What the rules allow still goes in.
    REQUIRE(rig.router->add_route(prefix("10.9.0.0/16"), ip("10.1.0.2"), ""));

    // A static neighbour's host route: its own words, not a subnet's.
    const auto del = [&](const char* p) {
        const Status st = rig.router->delete_route(prefix(p));
        REQUIRE_FALSE(st.ok());
        return st.error().message;
    };
    CHECK(del("10.2.0.2/32") ==
          "'10.2.0.2/32' is the host route of neighbour 10.2.0.2 of port 'b', learned by ARP or "
          "neighbour discovery; it goes when the neighbour does");
    CHECK(del("10.1.0.0/24") ==
          "'10.1.0.0/24' is the connected subnet of port 'a'; it goes with the port's address");
    CHECK(del("10.1.0.1/32").find("one of the router's own addresses of port 'a'") !=
          std::string::npos);
    CHECK(del("10.1.0.255/32").find("broadcast") != std::string::npos);
    rig.check_pools_full();
}

TEST_CASE("l3: routes() page by page gives the whole table, in order", "[l3]") {
    RouterRig rig;
    for (unsigned i = 0; i < 150; ++i)
        REQUIRE(rig.router->add_route(prefix(("10.60." + std::to_string(i) + ".0/24").c_str()),
                                      ip("10.2.0.2"), ""));
    size_t total = 0;
    const auto all = rig.router->routes(0, SIZE_MAX, &total);
    REQUIRE(all.size() == total);
    // Pages of 60 in order, as telemetry asks them: each after the last
    // starts where that one ended.
    std::vector<RouteInfo> paged;
    for (size_t first = 0; first < total; first += 60)
        for (auto& r : rig.router->routes(first, 60)) paged.push_back(std::move(r));
    REQUIRE(paged.size() == all.size());
    for (size_t i = 0; i < all.size(); ++i) CHECK(paged[i].prefix == all[i].prefix);
    // A page asked out of order walks from the start: the same rows.
    const auto again = rig.router->routes(60, 60);
    REQUIRE(again.size() == 60);
    CHECK(again.front().prefix == all[60].prefix);
    // Routes added between pages: the next page still follows on.
    const auto first_page = rig.router->routes(0, 60);
    REQUIRE(rig.router->add_route(prefix("10.59.0.0/24"), ip("10.2.0.2"), ""));
    const auto next = rig.router->routes(60, 60);
    REQUIRE(!next.empty());
    CHECK(first_page.back().prefix < next.front().prefix);
}
