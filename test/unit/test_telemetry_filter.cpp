// The telemetry gate's request checks: what reaches DPDK and what is answered
// null without it, and that every refusal is valid JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "telemetry_filter.hpp"

using namespace pmdfwd;

namespace {

const TelemetryLimits kLimits{32, 32, 2560, 29};

bool forwards(std::string_view request) {
    return check_telemetry_request(request, kLimits).forward;
}

}  // namespace

TEST_CASE("served DPDK commands with well-formed parameters are forwarded", "[telemetry]") {
    for (const char* r :
         {"/", "/info", "/help,/ethdev/stats", "/eal/heap_list", "/eal/heap_info,0",
          "/eal/heap_info,31", "/eal/memzone_info,2559", "/ethdev/list", "/ethdev/stats,0",
          "/ethdev/xstats,31", "/ethdev/info,7", "/mempool/list", "/mempool/info,pmdfwd_w0",
          "/pmdfwd/stats", "/pmdfwd/worker,3", "/pmdfwd/log_test,2500"})
        CHECK(forwards(r));
}

TEST_CASE("ids DPDK does not range-check are refused before DPDK sees them", "[telemetry]") {
    // Each of these crashed DPDK 22.11's handler (heap and memzone tables
    // indexed unchecked; ethdev's port id truncated to 16 bits for the check
    // but not for the lookup).
    for (const char* r :
         {"/eal/heap_info,32", "/eal/heap_info,-1", "/eal/heap_info,-0",
          "/eal/heap_info,4294967296", "/eal/heap_info,0,0", "/eal/heap_info,0x1",
          "/eal/heap_info, 1", "/eal/heap_info,", "/eal/heap_info", "/eal/memzone_info,2560",
          "/eal/memzone_info,65535", "/ethdev/info,65536", "/ethdev/info,32", "/ethdev/stats,+1",
          "/ethdev/stats,99999999999999999999"})
        CHECK_FALSE(forwards(r));
}

TEST_CASE("commands pmdfwd does not serve are refused", "[telemetry]") {
    for (const char* r : {"/eventdev/rxa_queue_conf,0,0,0", "/cryptodev/list", "/dmadev/list",
                          "/rawdev/list", "/cnxk/nix/list", "/nope", "/ethdev/nope,0"})
        CHECK_FALSE(forwards(r));
    CHECK(telemetry_command_served("/pmdfwd/anything"));
    CHECK_FALSE(telemetry_command_served("/eventdev/dev_list"));
}

TEST_CASE("parameters where none is allowed, and hostile text, are refused", "[telemetry]") {
    for (const char* r : {"/info,x", "/,x", "/ethdev/list,0", "/mempool/info,", "/mempool/info,a b",
                          "/mempool/info,\"", "/mempool/info,pmdfwd_w0xxxxxxxxxxxxxxxxxxxxxxxx",
                          "/help,\"x", "/help,", "/pmdfwd/stats,a\nb", "/pmdfwd/clear,\x01",
                          "/pmdfwd/worker,", "nope", "", ",", "/no\"pe", "/no\npe"})
        CHECK_FALSE(forwards(r));
    CHECK_FALSE(forwards(std::string(1024, '/')));
    CHECK_FALSE(forwards(std::string("/pmdfwd/stats\0x", 15)));
}

TEST_CASE("requests longer than DPDK reads are refused", "[telemetry]") {
    // 1023 bytes reach pmdfwd's handler (which refuses the index); 1024 do not.
    CHECK(forwards("/pmdfwd/worker," + std::string(kTelemetryMaxRequest - 15, '1')));
    CHECK_FALSE(forwards("/pmdfwd/worker," + std::string(kTelemetryMaxRequest - 14, '1')));
    const std::string longest = "/mempool/info," + std::string(28, 'a');
    CHECK(forwards(longest));
    CHECK_FALSE(forwards("/pmdfwd/log_test," + std::string(kTelemetryMaxRequest, '1')));
}

TEST_CASE("every refusal is one valid JSON object keyed by the command", "[telemetry]") {
    const std::vector<std::string> hostile = {"/no\"pe",  "/no\npe,1",
                                              "\"}{\"",   std::string("/x\0y", 4),
                                              "\xff\xfe", std::string(2000, '"')};
    for (const auto& r : hostile) {
        const auto v = check_telemetry_request(r, kLimits);
        REQUIRE_FALSE(v.forward);
        const auto j = nlohmann::json::parse(v.reply, nullptr, false);
        REQUIRE_FALSE(j.is_discarded());
        CHECK(j.is_object());
        CHECK(j.size() == 1);
        CHECK(j.begin().value().is_null());
    }
    CHECK(check_telemetry_request("/eal/heap_info,32", kLimits).reply ==
          R"({"/eal/heap_info":null})");
}

TEST_CASE("the command list shows only what is served", "[telemetry]") {
    const std::string dpdk =
        R"({"/":["/","/cryptodev/list","/eal/heap_info","/ethdev/stats","/eventdev/dev_list","/pmdfwd/stats"]})";
    CHECK(filter_command_list(dpdk) ==
          R"({"/":["/","/eal/heap_info","/ethdev/stats","/pmdfwd/stats"]})");
    CHECK(filter_command_list("not json") == "not json");
    CHECK(filter_command_list(R"({"/info":{}})") == R"({"/info":{}})");
}
