// The control protocol's declarations (protocol.hpp): every endpoint fits
// DPDK telemetry's limits, names a record where its shape needs one, is
// asked by a pmdctl command and has its row in docs/cli.md; a page of
// columns reads back as records. Handlers are held to them by the EAL test
// test_endpoints.cpp. No socket.
#include <catch2/catch.hpp>
#include <set>

#include "commands.hpp"
#include "protocol.hpp"
#include "source_file.hpp"

using namespace pmdfwd;

TEST_CASE("endpoints: unique paths within telemetry's limits, a record where the shape needs one",
          "[endpoints]") {
    std::set<std::string_view> paths;
    for (const Endpoint* e : kEndpoints) {
        INFO(e->path);
        CHECK(paths.insert(e->path).second);
        CHECK(e->path.starts_with("/pmdfwd/"));
        // rte_telemetry_register_cmd refuses longer ones, and the command is
        // then simply missing.
        CHECK(e->path.size() <= kMaxEndpointPath);
        CHECK(e->help.size() <= kMaxEndpointHelp);
        CHECK_FALSE(e->returns.empty());
        switch (e->shape) {
            case Shape::record:
            case Shape::page:
                CHECK(e->schema != nullptr);
                break;
            case Shape::action:
                CHECK(e->schema == &kResultRecord);
                break;
            case Shape::ids:
            case Shape::lines:
                CHECK(e->schema == nullptr);
                break;
        }
        // A record's schema is one docs/cli.md describes.
        if (e->schema)
            CHECK(std::find(std::begin(kRecordSchemas), std::end(kRecordSchemas), e->schema) !=
                  std::end(kRecordSchemas));
    }
}

TEST_CASE("endpoints: each is asked by a pmdctl command", "[endpoints]") {
    std::set<const Endpoint*> asked;
    for (const auto& c : pmdctl::commands())
        for (const Endpoint* e : c.asks) asked.insert(e);
    for (const Endpoint* e : kEndpoints) {
        INFO(e->path);
        CHECK(asked.count(e));
    }
}

TEST_CASE("endpoints: docs/cli.md's table is the declarations'", "[endpoints]") {
    const std::string cli_md = read_source_file("docs/cli.md");
    REQUIRE_FALSE(cli_md.empty());
    CHECK(cli_md.find(endpoints_markdown(kEndpoints)) != std::string::npos);
    for (const Endpoint* e : kEndpoints) {
        INFO(e->path);
        CHECK(cli_md.find("| `" + std::string(e->path) + "` |") != std::string::npos);
    }
}

TEST_CASE("endpoints: a page's columns read back as records, ragged ones refused", "[endpoints]") {
    const pmdctl::Json page = {{"total", 3},
                               {"first", 1},
                               {"prefix", {"10.0.0.0/8", "2001:db8::/32"}},
                               {"origin", {"static", "connected"}},
                               {"port", {"p1", "p0"}},
                               {"via", {"10.1.0.2", "-"}},
                               {"state", {"forward", "resolving"}}};
    auto rows = pmdctl::rows_of_page(kRouteRecord, page, "/pmdfwd/routes");
    REQUIRE(rows);
    REQUIRE(rows->size() == 2);
    CHECK((*rows)[0]["prefix"] == "10.0.0.0/8");
    CHECK((*rows)[1]["state"] == "resolving");
    CHECK((*rows)[1].size() == kRouteRecord.fields.size());

    pmdctl::Json ragged = page;
    ragged["via"] = {"10.1.0.2"};
    CHECK_FALSE(pmdctl::rows_of_page(kRouteRecord, ragged, "/pmdfwd/routes"));
    pmdctl::Json missing = page;
    missing.erase("state");
    CHECK_FALSE(pmdctl::rows_of_page(kRouteRecord, missing, "/pmdfwd/routes"));
    CHECK_FALSE(pmdctl::rows_of_page(kRouteRecord, pmdctl::Json("x"), "/pmdfwd/routes"));
}
