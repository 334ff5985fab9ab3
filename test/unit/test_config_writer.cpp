// The config written back as TOML (config_writer) and two configs compared
// (config_diff): every example config reads back equal from what is
// written, and a reload's changes are named key by key, live or not.
#include <catch2/catch.hpp>
#include <filesystem>

#include "config_diff.hpp"
#include "config_loader.hpp"
#include "config_writer.hpp"

using namespace pmdfwd;

namespace {

Config parsed_config(const std::string& text) {
    auto r = parse_config(text, "test.toml");
    if (auto* e = std::get_if<ConfigError>(&r)) FAIL(e->to_string() + "\n" + text);
    return std::get<Config>(r);
}

const char* const kRouterText = R"(
[eal]
lcores = "0-1"
file_prefix = "cw"

[[port]]
name = "a"
devargs = "net_null0"
addresses = ["10.1.0.1/24", "2001:db8:1::1/64"]

[[port]]
name = "b"
devargs = "net_null1"
addresses = ["10.2.0.1/24"]
poll = ["adaptive"]

[forward]
mode = "l3"

[l3]
icmp_rate_limit = 50

[[route]]
prefix = "10.9.0.0/16"
via = "10.2.0.2"

[[neighbour]]
address = "10.1.0.7"
mac = "02:00:00:00:00:07"
port = "a"
)";

}  // namespace

TEST_CASE("config writer: every example config reads back equal", "[config]") {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PMDFWD_SOURCE_ROOT) + "/config")) {
        if (entry.path().extension() != ".toml") continue;
        auto loaded = load_config_file(entry.path());
        if (std::holds_alternative<ConfigError>(loaded)) continue;  // templates with placeholders
        const Config& cfg = std::get<Config>(loaded);
        const std::string text = config_to_toml(cfg);
        const Config again = parsed_config(text);
        INFO(entry.path().string() << "\n" << text);
        CHECK(config_to_toml(again) == text);
        CHECK(diff_configs(cfg, again).empty());
    }
}

TEST_CASE("config writer: a router config, routes and neighbours included", "[config]") {
    const Config cfg = parsed_config(kRouterText);
    const std::string text = config_to_toml(cfg);
    // toml++ writes literal strings ('...') where they need no escape.
    CHECK(text.find("prefix = '10.9.0.0/16'") != std::string::npos);
    CHECK(text.find("mac = '02:00:00:00:00:07'") != std::string::npos);
    CHECK(text.find("icmp_rate_limit = 50") != std::string::npos);
    const Config again = parsed_config(text);
    CHECK(config_to_toml(again) == text);
    REQUIRE(again.routes.size() == 1);
    CHECK(again.routes[0].via->to_string() == "10.2.0.2");
    CHECK(again.ports[1].poll.size() == 1);
}

TEST_CASE("config diff: changed keys named, live or restart", "[config]") {
    const Config before = parsed_config(kRouterText);
    std::string text = kRouterText;
    const auto replace = [&](const std::string& from, const std::string& to) {
        const size_t at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    };
    replace("icmp_rate_limit = 50", "icmp_rate_limit = 10");
    replace("via = \"10.2.0.2\"", "via = \"10.2.0.3\"");
    replace("devargs = \"net_null1\"", "devargs = \"net_null1\"\nmtu = 9000");
    const Config after = parsed_config(text + "\n[log]\nlevel = \"debug\"\n");
    const auto changes = diff_configs(before, after);
    std::map<std::string, ConfigChange> by_key;
    for (const auto& c : changes) by_key[c.key] = c;
    CHECK(changes.size() == 4);
    REQUIRE(by_key.count("l3.icmp_rate_limit"));
    CHECK(by_key["l3.icmp_rate_limit"].before == "50");
    CHECK(by_key["l3.icmp_rate_limit"].after == "10");
    CHECK(by_key["l3.icmp_rate_limit"].live);
    REQUIRE(by_key.count("route.10.9.0.0/16"));
    CHECK(by_key["route.10.9.0.0/16"].live);
    CHECK(by_key["route.10.9.0.0/16"].after.find("10.2.0.3") != std::string::npos);
    REQUIRE(by_key.count("port.b.mtu"));
    CHECK_FALSE(by_key["port.b.mtu"].live);
    CHECK(to_string(by_key["port.b.mtu"]) == "port.b.mtu: 1500 -> 9000");
    REQUIRE(by_key.count("log.level"));
    CHECK(by_key["log.level"].live);
    CHECK(by_key["log.level"].after == "'debug'");
}

TEST_CASE("config diff: a route removed and one added", "[config]") {
    const Config before = parsed_config(kRouterText);
    std::string text = kRouterText;
    const size_t at = text.find("prefix = \"10.9.0.0/16\"");
    text.replace(at, 22, "prefix = \"10.8.0.0/16\"");
    const auto changes = diff_configs(before, parsed_config(text));
    REQUIRE(changes.size() == 2);
    CHECK(changes[0].key == "route.10.8.0.0/16");
    CHECK(changes[0].before.empty());
    CHECK(changes[1].key == "route.10.9.0.0/16");
    CHECK(changes[1].after.empty());
    CHECK(to_string(changes[1]).ends_with("-> (none)"));
}
