// pmdctl's telemetry client without a socket (telemetry_client.hpp): where
// the socket is, by dpdk-telemetry.py's rules and os.path.join's, what a
// user other than root is told, and the greeting and replies parsed.
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "telemetry_client.hpp"

using namespace pmdctl;

namespace {

RuntimeEnv env(std::optional<std::string> runtime, std::optional<std::string> xdg, bool root) {
    RuntimeEnv e;
    e.runtime_directory = std::move(runtime);
    e.xdg_runtime_dir = std::move(xdg);
    e.is_root = root;
    return e;
}

}  // namespace

TEST_CASE("runtime dir follows dpdk-telemetry.py", "[pmdctl]") {
    // RUNTIME_DIRECTORY wins for everyone when non-empty.
    CHECK(dpdk_runtime_dir(env("/run/pmdfwd", "/run/user/1000", false), "pmdfwd") ==
          "/run/pmdfwd/dpdk/pmdfwd");
    CHECK(dpdk_runtime_dir(env("/run/pmdfwd", std::nullopt, true), "x") == "/run/pmdfwd/dpdk/x");
    // Empty counts as unset ("if not run_dir").
    CHECK(dpdk_runtime_dir(env("", "/run/user/1000", true), "p") == "/var/run/dpdk/p");
    // root ignores XDG_RUNTIME_DIR.
    CHECK(dpdk_runtime_dir(env(std::nullopt, "/run/user/0", true), "p") == "/var/run/dpdk/p");
    // Others: XDG_RUNTIME_DIR when set, even empty (os.environ.get), else /tmp.
    CHECK(dpdk_runtime_dir(env(std::nullopt, "/run/user/1000", false), "p") ==
          "/run/user/1000/dpdk/p");
    CHECK(dpdk_runtime_dir(env(std::nullopt, std::nullopt, false), "p") == "/tmp/dpdk/p");
    CHECK(dpdk_runtime_dir(env(std::nullopt, "", false), "p") == "dpdk/p");
}

TEST_CASE("a user other than root is told where root's socket would be", "[pmdctl]") {
    CHECK(root_socket_path(env(std::nullopt, "/run/user/1000", false), "p") ==
          "/var/run/dpdk/p/dpdk_telemetry.v2");
    CHECK(root_socket_path(env(std::nullopt, std::nullopt, false), "x") ==
          "/var/run/dpdk/x/dpdk_telemetry.v2");
    CHECK(root_socket_path(env("", std::nullopt, false), "x") ==
          "/var/run/dpdk/x/dpdk_telemetry.v2");
    // root has no other place to look, nor has one who chose a directory.
    CHECK(!root_socket_path(env(std::nullopt, std::nullopt, true), "p"));
    CHECK(!root_socket_path(env("/run/pmdfwd", std::nullopt, false), "p"));
}

TEST_CASE("socket path and os.path.join semantics", "[pmdctl]") {
    CHECK(telemetry_socket_path(env(std::nullopt, std::nullopt, true), "pmdfwd") ==
          "/var/run/dpdk/pmdfwd/dpdk_telemetry.v2");
    CHECK(telemetry_socket_path(env("/srv/run/", std::nullopt, true), "a") ==
          "/srv/run/dpdk/a/dpdk_telemetry.v2");
    CHECK(path_join({"/a", "", "b"}) == "/a/b");
    CHECK(path_join({"/a", "b", ""}) == "/a/b/");
    CHECK(path_join({"/a", "/abs", "c"}) == "/abs/c");
    CHECK(path_join({"", "dpdk"}) == "dpdk");
}

TEST_CASE("greeting parsing", "[pmdctl]") {
    auto g = parse_greeting(R"({"version":"DPDK 22.11.1","pid":4242,"max_output_len":16384})");
    REQUIRE(g.ok());
    CHECK(g->version == "DPDK 22.11.1");
    CHECK(g->pid == 4242);
    CHECK(g->max_output_len == 16384);

    CHECK_FALSE(parse_greeting("not json").ok());
    CHECK_FALSE(parse_greeting("[1,2]").ok());
    CHECK_FALSE(parse_greeting(R"({"version":"DPDK","pid":1})").ok());
    CHECK_FALSE(parse_greeting(R"({"max_output_len":0})").ok());
    CHECK_FALSE(parse_greeting(R"({"max_output_len":"16384"})").ok());
}

TEST_CASE("reply parsing", "[pmdctl]") {
    SECTION("a value, keyed by the command without its parameters") {
        auto r = parse_reply(R"({"/pmdfwd/worker":{"worker":1,"rx_pkts":5}})", "/pmdfwd/worker");
        REQUIRE(r.ok());
        CHECK((*r)["rx_pkts"] == 5);
        // Order is kept, so tables show fields as pmdfwd registered them.
        CHECK(r->begin().key() == "worker");
    }
    SECTION("arrays") {
        auto r = parse_reply(R"({"/pmdfwd/workers":[0,1,2]})", "/pmdfwd/workers");
        REQUIRE(r.ok());
        CHECK(r->size() == 3);
    }
    SECTION("null is an unknown command or a rejected parameter") {
        auto r = parse_reply(R"({"/pmdfwd/worker":null})", "/pmdfwd/worker");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == kReplyNull);
    }
    SECTION("an error dict is an error") {
        auto r = parse_reply(R"({"/pmdfwd/stats":{"error":"pmdfwd is shutting down"}})",
                             "/pmdfwd/stats");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code != kReplyNull);
        CHECK(r.error().message == "/pmdfwd/stats: pmdfwd is shutting down");
    }
    SECTION("broken or foreign replies") {
        CHECK_FALSE(parse_reply("{\"/pmdfwd/stats\": {", "/pmdfwd/stats").ok());
        CHECK_FALSE(parse_reply(R"({"/other":1})", "/pmdfwd/stats").ok());
        CHECK_FALSE(parse_reply(R"([1])", "/pmdfwd/stats").ok());
    }
    CHECK(request_text("/pmdfwd/port", "1") == "/pmdfwd/port,1");
    CHECK(request_text("/pmdfwd/ports", "") == "/pmdfwd/ports");
}
