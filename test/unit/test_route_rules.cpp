// The rules a route, its next hop and a neighbour follow, in the config and
// at run time alike (route_rules.cpp).
#include <catch2/catch.hpp>
#include <string>
#include <variant>

#include "route_rules.hpp"

using namespace pmdfwd;

namespace {

IpPrefix pfx(const char* text) {
    std::string why;
    const auto p = parse_ip_prefix(text, &why);
    REQUIRE(p);
    return *p;
}

IpAddress addr(const char* text) {
    std::string why;
    const auto a = parse_ip_address(text, &why);
    REQUIRE(a);
    return *a;
}

// Built on first use: parsing before main would REQUIRE outside a test.
const std::vector<RoutedPort>& ports() {
    static const std::vector<RoutedPort> kPorts = {
        {"a", {pfx("10.1.0.1/24"), pfx("2001:db8:1::1/64")}},
        {"b", {pfx("10.2.0.1/30"), pfx("10.3.0.1/31")}},
    };
    return kPorts;
}

// The problem's key and message, or "ok <port>".
std::string verdict(const char* prefix, const char* via, int port = -1) {
    const auto v =
        check_route(pfx(prefix), via ? std::optional(addr(via)) : std::nullopt, port, ports());
    if (const auto* t = std::get_if<RouteTarget>(&v)) return "ok " + std::to_string(t->port);
    const auto& p = std::get<RouteProblem>(v);
    static const char* const kKeys[] = {"prefix", "via", "port"};
    return std::string(kKeys[size_t(p.key)]) + ": " + p.message;
}

}  // namespace

TEST_CASE("route rules: good routes find their port", "[route_rules]") {
    CHECK(verdict("0.0.0.0/0", "10.1.0.254") == "ok 0");
    CHECK(verdict("10.9.0.0/16", "10.2.0.2") == "ok 1");
    CHECK(verdict("::/0", "2001:db8:1::fe") == "ok 0");
    CHECK(verdict("10.9.0.0/16", nullptr, 0) == "ok 0");
    // A /31 has no network or broadcast address (RFC 3021): both are hosts.
    CHECK(verdict("10.9.0.0/16", "10.3.0.0") == "ok 1");
    // A block that holds a martian one is no martian itself.
    CHECK(verdict("0.0.0.0/1", "10.1.0.2") == "ok 0");
    CHECK(verdict("fc00::/7", "2001:db8:1::2") == "ok 0");
}

TEST_CASE("route rules: martian and link-local destinations are refused", "[route_rules]") {
    for (const char* p : {"224.0.0.0/4", "239.1.0.0/16", "240.0.0.0/4", "127.0.0.0/8",
                          "127.1.2.3/32", "0.0.0.0/8", "169.254.0.0/16"}) {
        INFO(p);
        CHECK(verdict(p, "10.1.0.2").rfind("prefix: '" + std::string(p) + "' is ", 0) == 0);
    }
    for (const char* p :
         {"fe80::/10", "fe80::/64", "ff00::/8", "ff02::1/128", "::1/128", "::/128"}) {
        INFO(p);
        CHECK(verdict(p, "2001:db8:1::2").rfind("prefix: '" + std::string(p) + "' is ", 0) == 0);
    }
    CHECK(verdict("224.0.0.0/4", "10.1.0.2") ==
          "prefix: '224.0.0.0/4' is multicast (224.0.0.0/4), which a router never forwards to");
}

TEST_CASE("route rules: a next hop must be a neighbour", "[route_rules]") {
    CHECK(verdict("10.9.0.0/16", "10.1.0.1") ==
          "via: '10.1.0.1' is one of this router's own addresses (port 'a')");
    CHECK(verdict("10.9.0.0/16", "10.1.0.255") ==
          "via: '10.1.0.255' is the broadcast address of subnet 10.1.0.0/24 (port 'a'), which "
          "names no neighbour");
    CHECK(verdict("10.9.0.0/16", "10.2.0.0") ==
          "via: '10.2.0.0' is the network address of subnet 10.2.0.0/30 (port 'b'), which names "
          "no neighbour");
    CHECK(verdict("10.9.0.0/16", "10.2.0.3").find("broadcast address") != std::string::npos);
    CHECK(verdict("10.9.0.0/16", "10.2.0.2", 0) ==
          "via: '10.2.0.2' is on no connected subnet of port 'a', so it cannot be reached; a next "
          "hop must be a neighbour on a port's subnet");
    CHECK(verdict("10.9.0.0/16", "2001:db8:1::2") ==
          "via: '2001:db8:1::2' is not IPv4, as the prefix is");
    CHECK(verdict("10.1.0.0/24", "10.2.0.2") ==
          "prefix: '10.1.0.0/24' is the connected subnet of port 'a' already");
    CHECK(verdict("10.1.0.1/32", "10.2.0.2") ==
          "prefix: '10.1.0.1/32' is one of this router's own addresses (port 'a')");
    CHECK(verdict("10.9.0.1/16", "10.2.0.2") ==
          "prefix: '10.9.0.1/16' has host bits set; the prefix is '10.9.0.0/16'");
    CHECK(verdict("2001:db8:9::/48", nullptr, 1) ==
          "port: port 'b' has no IPv6 address to resolve on-link destinations from; give it one "
          "or add via");
    CHECK(verdict("10.9.0.0/16", nullptr) ==
          "port: a route without via needs the port it leaves by");
}

TEST_CASE("route rules: a neighbour's address", "[route_rules]") {
    CHECK(neighbour_address_problem(addr("10.1.0.9"), 0, ports()).empty());
    CHECK(neighbour_address_problem(addr("10.1.0.0"), 0, ports()) ==
          "'10.1.0.0' is the network address of subnet 10.1.0.0/24 (port 'a'), which names no "
          "neighbour");
    CHECK(neighbour_address_problem(addr("10.1.0.255"), 0, ports()).find("broadcast") !=
          std::string::npos);
    CHECK(neighbour_address_problem(addr("10.1.0.1"), 0, ports()) ==
          "'10.1.0.1' is one of this router's own addresses (port 'a')");
    CHECK(neighbour_address_problem(addr("10.1.0.9"), 1, ports()) ==
          "'10.1.0.9' is on no subnet of port 'b'");
}
