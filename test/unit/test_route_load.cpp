// pmdctl route load's reading of a route file: batches within a request's
// size, each item's line known, the gateway sent once per run of routes
// through it, and a bad line refused with file:line:column before anything
// goes.
#include <catch2/catch.hpp>
#include <sstream>

#include "route_load.hpp"

using namespace pmdctl;

namespace {

pmdfwd::Result<std::vector<RouteLoadBatch>> plan(const std::string& text, size_t max = 1000) {
    std::istringstream in(text);
    return plan_route_load(in, "t.txt", max);
}

std::string error_of(const std::string& text) {
    auto r = plan(text);
    return r ? std::string("no error") : r.error().message;
}

}  // namespace

TEST_CASE("route load: lines become batch items, the gateway once per run", "[commands]") {
    auto r = plan(
        "# a table\n"
        "10.1.0.0/16 via 10.0.0.2\n"
        "\n"
        "add 10.2.0.0/16 via 10.0.0.2   # same gateway\n"
        "10.3.0.0/16 via 10.0.0.3 port p1\n"
        "10.4.0.0/16 port p2\n"
        "del 10.5.0.0/16\n"
        "2001:db8:9::/48 via 2001:db8::2\n");
    REQUIRE(r);
    REQUIRE(r->size() == 1);
    const RouteLoadBatch& b = r->front();
    CHECK(b.params ==
          "=10.0.0.2;+10.1.0.0/16;+10.2.0.0/16;=10.0.0.3,p1;+10.3.0.0/16;=-,p2;+10.4.0.0/16;"
          "-10.5.0.0/16;=2001:db8::2;+2001:db8:9::/48");
    CHECK(b.lines == std::vector<size_t>{2, 2, 4, 5, 5, 6, 6, 7, 8, 8});
}

TEST_CASE("route load: batches stay within a request, each starts its own gateway", "[commands]") {
    std::string text;
    for (int i = 0; i < 500; ++i)
        text += "10.9." + std::to_string(i % 250) + ".0/24 via 10.0.0.2\n";
    auto r = plan(text, 200);
    REQUIRE(r);
    CHECK(r->size() > 1);
    size_t routes = 0;
    for (const RouteLoadBatch& b : *r) {
        CHECK(b.params.size() <= 200);
        CHECK(b.params.rfind("=10.0.0.2;", 0) == 0);
        routes += b.lines.size() - 1;
        CHECK(b.lines.back() == b.lines.front() + b.lines.size() - 2);
    }
    CHECK(routes == 500);
    // Nothing at all: no batch.
    auto none = plan("# nothing\n\n");
    REQUIRE(none);
    CHECK(none->empty());
}

TEST_CASE("route load: a bad line names file, line and column", "[commands]") {
    CHECK(error_of("10.1.0.0/16 via 10.0.0.2\n10.2.0.0/16\n") ==
          "t.txt:2:12: a route needs via GATEWAY, port NAME or both");
    CHECK(error_of("10.1.0.0/16 via\n") == "t.txt:1:13: 'via' needs a value");
    CHECK(error_of("10.1.0.0/16 dev eth0\n") ==
          "t.txt:1:13: 'dev': expected via GATEWAY or port NAME, once each");
    CHECK(error_of("10.1.0.0/16 via 10.0.0.2 via 10.0.0.3\n") ==
          "t.txt:1:26: 'via': expected via GATEWAY or port NAME, once each");
    CHECK(error_of("del 10.1.0.0/16 via 10.0.0.2\n") == "t.txt:1:17: del takes a prefix only");
    CHECK(error_of("del\n") == "t.txt:1:4: a prefix must follow");
    CHECK(error_of("10.1.0.0/16;+0.0.0.0/0 via 10.0.0.2\n") ==
          "t.txt:1:1: '10.1.0.0/16;+0.0.0.0/0' holds ';'");
    CHECK(error_of("10.1.0.0/16 via 10.0.0.2,p1\n") == "t.txt:1:17: '10.0.0.2,p1' holds ','");
}
