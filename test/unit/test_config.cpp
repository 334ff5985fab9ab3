// Config loading: defaults, every key of every section, every example in
// config/, and every bad config in test/config/bad/ with its exact location
// (file:line:column and key) as listed in test/config/bad/expected.txt.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config_loader.hpp"
#include "eal_args.hpp"
#include "plan.hpp"
#include "system_check.hpp"
#include "temp_dir.hpp"
#include "text_guard.hpp"

using namespace pmdfwd;

namespace {

const std::string kRoot = PMDFWD_SOURCE_ROOT;
const std::string kBadDir = kRoot + "/test/config/bad";

// The smallest config that plans: one port, default everything else.
constexpr const char* kMinimal = R"([[port]]
name = "p0"
devargs = "net_null0"
)";

Config parse_ok(const std::string& text) {
    auto r = parse_config(text, "t.toml");
    if (auto* e = std::get_if<ConfigError>(&r)) FAIL("unexpected error: " << e->to_string());
    return std::get<Config>(r);
}

// A small machine, the same wherever the tests run: two CPUs, 4 GiB, no
// hugepages. (The log file checks do read the file system.)
SystemFacts small_machine() {
    SystemFacts f;
    f.cpus = {0, 1};
    f.memory_bytes = uint64_t(4) << 30;
    return f;
}

// The first error of parse + plan + the check against small_machine(), as
// pmdfwd --check reports it on such a machine.
ConfigError first_error(const ConfigResult& r) {
    if (auto* e = std::get_if<ConfigError>(&r)) return *e;
    const Config& cfg = std::get<Config>(r);
    auto plan = build_plan(cfg);
    if (auto* e = std::get_if<ConfigError>(&plan)) return *e;
    if (auto e = check_against_system(cfg, small_machine())) return *e;
    FAIL("the config was accepted");
    return {};
}

ConfigError error_of(const std::string& text) { return first_error(parse_config(text, "t.toml")); }

// "line:column key" of an error, so one CHECK shows both on failure.
std::string where(const ConfigError& e) {
    return std::to_string(e.line) + ":" + std::to_string(e.column) + " " + e.key;
}

struct BadCase {
    std::string file, location, key, message;
};

std::vector<BadCase> read_manifest() {
    std::ifstream in(kBadDir + "/expected.txt");
    REQUIRE(in);
    std::vector<BadCase> cases;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string part; std::getline(ss, part, '|');) f.push_back(part);
        REQUIRE(f.size() == 4);
        cases.push_back({f[0], f[1], f[2], f[3]});
    }
    return cases;
}

}  // namespace

TEST_CASE("config: a minimal config gets every default", "[config]") {
    const Config cfg = parse_ok(kMinimal);
    CHECK(cfg.source_name == "t.toml");
    CHECK(cfg.eal.lcores == "0-2");
    CHECK(cfg.eal.memory_mb == 512);
    CHECK_FALSE(cfg.eal.hugepages);
    CHECK(cfg.eal.file_prefix == "pmdfwd");
    CHECK(cfg.eal.extra_args.empty());
    CHECK(cfg.eal.lcores_loc.line == 0);
    REQUIRE(cfg.ports.size() == 1);
    const PortConfig& p = cfg.ports[0];
    CHECK(p.name == "p0");
    CHECK(p.devargs == "net_null0");
    CHECK(p.rx_queues == 1);
    CHECK(p.rx_desc == 1024);
    CHECK(p.tx_desc == 1024);
    CHECK(p.mtu == 1500);
    CHECK(p.promiscuous);
    CHECK(p.loc.line == 1);
    CHECK(p.loc.column == 1);
    CHECK(cfg.forward.mode == ForwardMode::patch);
    CHECK(cfg.forward.burst == 32);
    CHECK(cfg.forward.tx_retries == 2);
    CHECK(cfg.forward.read_lengths);
    CHECK(cfg.forward.pairs.empty());
    CHECK(cfg.forward.next_hop_mac.empty());
    CHECK(cfg.pool.mbufs == 8192);
    CHECK(cfg.pool.cache == 256);
    CHECK(cfg.pool.data_room == 2176);
    CHECK(cfg.pool.color);
    CHECK(cfg.control.telemetry);
    CHECK(cfg.control.stats_log_interval_s == 0);
    CHECK_FALSE(cfg.control.capture);
    CHECK(cfg.log.level == "info");
    CHECK(cfg.log.file.empty());
}

TEST_CASE("config: every key of every section is read", "[config]") {
    const Config cfg = parse_ok(R"(# every key, none at its default
[eal]
lcores = "0@0,(1-3)@1"
memory_mb = 2048
hugepages = true
file_prefix = "fwd_a-1"
extra_args = ["--log-level", "lib.eal:debug"]

[[port]]
name = "wan"
devargs = "0000:01:00.0,rxq_cqe_comp_en=0"
rx_queues = 2
rx_desc = 2048
tx_desc = 512
mtu = 9000
promiscuous = false

[[port]]
name = "lan"
devargs = "net_tap0,iface=lan0"

[forward]
mode = "l2"
burst = 64
tx_retries = 0
pairs = [["wan", "lan"], ["lan", "wan"]]
next_hop_mac = { wan = "02:00:00:00:00:0A", lan = "02-00-00-00-00-0b" }

[pool]
mbufs = 65536
cache = 512
data_room = 9344
color = false

[control]
telemetry = false
stats_log_interval_s = 10
capture = true
metrics = "10.1.2.3:9100"
metrics_allow_remote = true
stall_us = 250

[log]
level = "debug"
file = "/var/log/pmdfwd.log"
)");
    CHECK(cfg.eal.lcores == "0@0,(1-3)@1");
    CHECK(cfg.eal.lcores_loc.line == 3);
    CHECK(cfg.eal.lcores_loc.column == 10);
    CHECK(cfg.eal.memory_mb == 2048);
    CHECK(cfg.eal.hugepages);
    CHECK(cfg.eal.file_prefix == "fwd_a-1");
    CHECK(cfg.eal.extra_args == std::vector<std::string>{"--log-level", "lib.eal:debug"});
    REQUIRE(cfg.ports.size() == 2);
    CHECK(cfg.ports[0].name == "wan");
    CHECK(cfg.ports[0].devargs == "0000:01:00.0,rxq_cqe_comp_en=0");
    CHECK(cfg.ports[0].rx_queues == 2);
    CHECK(cfg.ports[0].rx_desc == 2048);
    CHECK(cfg.ports[0].tx_desc == 512);
    CHECK(cfg.ports[0].mtu == 9000);
    CHECK_FALSE(cfg.ports[0].promiscuous);
    CHECK(cfg.ports[0].loc.line == 9);
    CHECK(cfg.ports[1].name == "lan");
    CHECK(cfg.ports[1].loc.line == 18);
    CHECK(cfg.forward.mode == ForwardMode::l2);
    CHECK(cfg.forward.mode_loc.line == 23);
    CHECK(cfg.forward.burst == 64);
    CHECK(cfg.forward.tx_retries == 0);
    REQUIRE(cfg.forward.pairs.size() == 2);
    CHECK(cfg.forward.pairs[1].from == "lan");
    CHECK(cfg.forward.pairs[1].to == "wan");
    CHECK(cfg.forward.pairs[1].loc.line == 26);
    CHECK(cfg.forward.pairs[1].loc.column == 26);
    REQUIRE(cfg.forward.next_hop_mac.size() == 2);
    CHECK(cfg.forward.next_hop_mac.at("wan").to_string() == "02:00:00:00:00:0a");
    CHECK(cfg.forward.next_hop_mac.at("lan").to_string() == "02:00:00:00:00:0b");
    CHECK(cfg.forward.next_hop_loc.line == 27);
    CHECK(cfg.pool.mbufs == 65536);
    CHECK(cfg.pool.cache == 512);
    CHECK(cfg.pool.data_room == 9344);
    CHECK_FALSE(cfg.pool.color);
    CHECK(cfg.pool.loc.line == 29);
    CHECK_FALSE(cfg.control.telemetry);
    CHECK(cfg.control.stats_log_interval_s == 10);
    CHECK(cfg.control.capture);
    CHECK(cfg.control.capture_loc.line == 38);
    CHECK(cfg.control.capture_loc.column == 11);
    CHECK(cfg.control.metrics == "10.1.2.3:9100");
    CHECK(cfg.control.metrics_allow_remote);
    CHECK(cfg.control.stall_us == 250);
    CHECK(cfg.log.level == "debug");
    CHECK(cfg.log.file == "/var/log/pmdfwd.log");
    CHECK(std::holds_alternative<Plan>(build_plan(cfg)));
}

TEST_CASE("config: ranges are inclusive at both ends", "[config]") {
    struct Bound {
        const char* table;
        const char* key;
        long long lo, hi;
    };
    const Bound bounds[] = {
        {"[eal]", "memory_mb", 64, 1 << 20}, {"[forward]", "burst", 1, 512},
        {"[forward]", "tx_retries", 0, 64},  {"[control]", "stats_log_interval_s", 0, 86400},
        {"[pool]", "data_room", 256, 65535}, {"[pool]", "mbufs", 512, 16 << 20},
        {"[pool]", "cache", 0, 512},         {"[control]", "stall_us", 10, 60000000},
    };
    for (const auto& b : bounds) {
        for (const long long v : {b.lo, b.hi}) {
            const std::string text =
                std::string(kMinimal) + b.table + "\n" + b.key + " = " + std::to_string(v) + "\n";
            INFO(text);
            CHECK(std::holds_alternative<Config>(parse_config(text, "t.toml")));
        }
        for (const long long v : {b.lo - 1, b.hi + 1}) {
            const std::string text =
                std::string(kMinimal) + b.table + "\n" + b.key + " = " + std::to_string(v) + "\n";
            INFO(text);
            auto r = parse_config(text, "t.toml");
            REQUIRE(std::holds_alternative<ConfigError>(r));
            const auto& e = std::get<ConfigError>(r);
            const std::string section =
                std::string(b.table).substr(1, std::string(b.table).size() - 2);
            CHECK(where(e) == "5:" + std::to_string(std::string(b.key).size() + 4) + " " + section +
                                  "." + b.key);
            CHECK_THAT(e.message, Catch::Contains("out of range"));
        }
    }
    const struct {
        const char* key;
        long long lo, hi;
    } port_bounds[] = {
        {"rx_queues", 0, 64}, {"rx_desc", 32, 32768}, {"tx_desc", 32, 32768}, {"mtu", 68, 9600}};
    for (const auto& b : port_bounds) {
        for (const long long v : {b.lo - 1, b.hi + 1}) {
            const std::string text =
                std::string(kMinimal) + b.key + " = " + std::to_string(v) + "\n";
            INFO(text);
            auto r = parse_config(text, "t.toml");
            REQUIRE(std::holds_alternative<ConfigError>(r));
            CHECK(where(std::get<ConfigError>(r)) ==
                  "4:" + std::to_string(std::string(b.key).size() + 4) + " port[0]." + b.key);
        }
        const std::string text =
            std::string(kMinimal) + b.key + " = " + std::to_string(b.hi) + "\n";
        CHECK(std::holds_alternative<Config>(parse_config(text, "t.toml")));
    }
}

TEST_CASE("config: unknown keys are errors at the key, wherever they are", "[config]") {
    CHECK(where(error_of("colour = 1\n" + std::string(kMinimal))) == "1:1 colour");
    CHECK(where(error_of(std::string(kMinimal) + "[eal]\nlcore = \"0-2\"\n")) == "5:1 eal.lcore");
    CHECK(where(error_of(std::string(kMinimal) + "speed = 10\n")) == "4:1 port[0].speed");
    CHECK(where(error_of(std::string(kMinimal) + "[[port]]\nname = \"p1\"\ndevargs = \"x\"\n"
                                                 "  queues = 2\n")) == "7:3 port[1].queues");
    CHECK(where(error_of(std::string(kMinimal) + "[forward]\nmode = \"patch\"\npair = []\n")) ==
          "6:1 forward.pair");
    CHECK(where(error_of(std::string(kMinimal) + "[pool]\nsize = 1\n")) == "5:1 pool.size");
    CHECK(where(error_of(std::string(kMinimal) + "[control]\ntelemetry_port = 1\n")) ==
          "5:1 control.telemetry_port");
    CHECK(where(error_of(std::string(kMinimal) + "[log]\nfile = \"\"\nrotate = true\n")) ==
          "6:1 log.rotate");
    // A sub-table nobody reads is an unknown key of its parent, at its name.
    CHECK(where(error_of(std::string(kMinimal) + "[pool.extra]\nx = 1\n")) == "4:7 pool.extra");
    const auto e = error_of(std::string(kMinimal) + "[metrics]\n");
    CHECK(where(e) == "4:2 metrics");
    CHECK(e.message == "unknown key");
}

TEST_CASE("config: wrong types name what was found", "[config]") {
    auto e = error_of(std::string(kMinimal) + "mtu = \"1500\"\n");
    CHECK(where(e) == "4:7 port[0].mtu");
    CHECK(e.message == "expected an integer, got a string");
    e = error_of(std::string(kMinimal) + "promiscuous = \"yes\"\n");
    CHECK(where(e) == "4:15 port[0].promiscuous");
    CHECK(e.message == "expected true or false, got a string");
    e = error_of("[eal]\nfile_prefix = [\"a\"]\n" + std::string(kMinimal));
    CHECK(where(e) == "2:15 eal.file_prefix");
    CHECK(e.message == "expected a string, got an array");
    e = error_of("[eal]\nextra_args = \"--no-pci\"\n" + std::string(kMinimal));
    CHECK(where(e) == "2:14 eal.extra_args");
    e = error_of(std::string(kMinimal) + "[forward]\nburst = 1979-05-27\n");
    CHECK(e.message == "expected an integer, got a date");
    e = error_of(std::string(kMinimal) + "[forward]\nburst = 07:32:00\n");
    CHECK(e.message == "expected an integer, got a time");
    e = error_of(std::string(kMinimal) + "[forward]\nburst = 1979-05-27T07:32:00Z\n");
    CHECK(e.message == "expected an integer, got a date-time");
    e = error_of(std::string(kMinimal) + "[forward]\nburst = { n = 1 }\n");
    CHECK(e.message == "expected an integer, got a table");
    e = error_of(std::string(kMinimal) + "[forward]\nburst = inf\n");
    CHECK(e.message == "expected an integer, got a float");
    e = error_of("eal = [1]\n" + std::string(kMinimal));
    CHECK(where(e) == "1:7 eal");
    CHECK(e.message == "expected a table, got an array");
    e = error_of("[[port]]\nname = 7\ndevargs = \"x\"\n");
    CHECK(where(e) == "2:8 port[0].name");
    e = error_of("port = [1]\n");
    CHECK(where(e) == "1:9 port[0]");
    e = error_of(std::string(kMinimal) + "[forward]\npairs = \"p0 p0\"\n");
    CHECK(where(e) == "5:9 forward.pairs");
    e = error_of(std::string(kMinimal) + "[forward]\npairs = [[\"p0\", 1]]\n");
    CHECK(where(e) == "5:10 forward.pairs");
    e = error_of(std::string(kMinimal) + "[forward]\npairs = [[\"p0\", \"p0\", \"p0\"]]\n");
    CHECK(where(e) == "5:10 forward.pairs");
    e = error_of(std::string(kMinimal) + "[forward]\nmode = \"l2\"\nnext_hop_mac = \"x\"\n");
    CHECK(where(e) == "6:16 forward.next_hop_mac");
    e = error_of(std::string(kMinimal) + "[forward]\nmode = \"l2\"\nnext_hop_mac = { p0 = 1 }\n");
    CHECK(where(e) == "6:23 forward.next_hop_mac.p0");
}

TEST_CASE("config: values checked beyond their type", "[config]") {
    auto e = error_of("[[port]]\nname = \"\"\ndevargs = \"x\"\n");
    CHECK(where(e) == "2:8 port[0].name");
    e = error_of("[[port]]\nname = \"a-very-long-port-name-of-33-chars\"\ndevargs = \"x\"\n");
    CHECK(where(e) == "2:8 port[0].name");
    e = error_of("[[port]]\nname = \"p0\"\ndevargs = \"\"\n");
    CHECK(where(e) == "3:11 port[0].devargs");
    e = error_of("[[port]]\nname = \"p0\"\ndevargs = \"" + std::string(256, 'x') + "\"\n");
    CHECK(where(e) == "3:11 port[0].devargs");
    CHECK(e.message == "string is longer than 255 bytes");
    e = error_of("[eal]\nfile_prefix = \"\"\n" + std::string(kMinimal));
    CHECK(where(e) == "2:15 eal.file_prefix");
    e = error_of("[eal]\nlcores = \"" + std::string(129, '0') + "\"\n" + std::string(kMinimal));
    CHECK(where(e) == "2:10 eal.lcores");
    e = error_of(std::string(kMinimal) + "[forward]\nmode = \"PATCH\"\n");
    CHECK(where(e) == "5:8 forward.mode");
    e = error_of(std::string(kMinimal) + "[log]\nlevel = \"warning\"\n");
    CHECK(where(e) == "5:9 log.level");
    for (const char* level : {"trace", "debug", "info", "warn", "error", "critical", "off"})
        CHECK(parse_ok(std::string(kMinimal) + "[log]\nlevel = \"" + level + "\"\n").log.level ==
              level);
    // cache may be at most 2/3 of mbufs: 512 mbufs allow a cache of 341.
    CHECK(parse_ok(std::string(kMinimal) + "[pool]\nmbufs = 512\ncache = 341\n").pool.cache == 341);
    e = error_of(std::string(kMinimal) + "[pool]\nmbufs = 512\ncache = 342\n");
    CHECK(where(e) == "6:9 pool.cache");
}

TEST_CASE("config: port and pair errors point at the port or pair", "[config]") {
    auto e = error_of("[[port]]\ndevargs = \"net_null0\"\n");
    CHECK(where(e) == "1:1 port[0].name");
    e = error_of(std::string(kMinimal) + "\n[[port]]\nname = \"p1\"\n");
    CHECK(where(e) == "5:1 port[1].devargs");
    e = error_of(std::string(kMinimal) + "\n  [[port]]\nname = \"p0\"\ndevargs = \"net_null1\"\n");
    CHECK(where(e) == "5:3 port[1].name");
    CHECK(e.message == "port name 'p0' is used twice");
    e = error_of(std::string(kMinimal) +
                 "[forward]\npairs = [[\"p0\", \"p0\"], [\"p0\", \"p0\"]]\n");
    CHECK(where(e) == "5:24 forward.pairs");
    CHECK(e.message == "port 'p0' is the source of more than one pair");
    e = error_of(std::string(kMinimal) + "[forward]\npairs = [[\"px\", \"p0\"]]\n");
    CHECK(where(e) == "5:10 forward.pairs");
    CHECK(e.message == "pair names port 'px', which is not a configured [[port]]");
    e = error_of(std::string(kMinimal) + "[forward]\npairs = [[\"p0\", \"py\"]]\n");
    CHECK(e.message == "pair names port 'py', which is not a configured [[port]]");
}

TEST_CASE("config: l2 mode needs next_hop_mac for each output port, patch mode refuses it",
          "[config]") {
    const std::string two = std::string(kMinimal) + "[[port]]\nname = \"p1\"\ndevargs = \"n1\"\n";
    // lines 1-6 are the ports; [forward] is line 7
    auto e =
        error_of(two + "[forward]\nmode = \"l2\"\npairs = [[\"p0\", \"p1\"], [\"p1\", \"p0\"]]\n");
    CHECK(where(e) == "8:8 forward.next_hop_mac");
    CHECK(e.message == "l2 mode sends on port 'p1' but next_hop_mac has no entry for it");
    e = error_of(two +
                 "[forward]\nmode = \"l2\"\npairs = [[\"p0\", \"p1\"], [\"p1\", \"p0\"]]\n"
                 "next_hop_mac.p1 = \"02:00:00:00:00:01\"\n");
    CHECK(where(e) == "10:1 forward.next_hop_mac");
    CHECK(e.message == "l2 mode sends on port 'p0' but next_hop_mac has no entry for it");
    // An entry for a port that only receives is allowed (and unused).
    const Config ok = parse_ok(two +
                               "[forward]\nmode = \"l2\"\npairs = [[\"p0\", \"p1\"]]\n"
                               "[forward.next_hop_mac]\np1 = \"02:00:00:00:00:01\"\n"
                               "p0 = \"02:00:00:00:00:02\"\n");
    CHECK(std::holds_alternative<Plan>(build_plan(ok)));
    e = error_of(
        two +
        "[forward]\nmode = \"l2\"\npairs = [[\"p0\", \"p1\"]]\n"
        "[forward.next_hop_mac]\np1 = \"02:00:00:00:00:01\"\np2 = \"02:00:00:00:00:02\"\n");
    CHECK(where(e) == "12:6 forward.next_hop_mac.p2");
    CHECK(e.message == "names port 'p2', which is not a configured [[port]]");
    e = error_of(
        two +
        "[forward]\npairs = [[\"p0\", \"p1\"]]\nnext_hop_mac = { p1 = \"02:00:00:00:00:01\" }\n");
    CHECK(where(e) == "9:16 forward.next_hop_mac");
    CHECK_THAT(e.message, Catch::StartsWith("next_hop_mac is used only by mode \"l2\""));
    e = error_of(two +
                 "[forward]\nmode = \"l2\"\npairs = [[\"p0\", \"p1\"]]\n"
                 "next_hop_mac = { p1 = \"02:00:00:00:00\" }\n");
    CHECK(where(e) == "10:23 forward.next_hop_mac.p1");
    CHECK(e.message == "'02:00:00:00:00' is not a MAC address (expected aa:bb:cc:dd:ee:ff)");
}

TEST_CASE("config: read_lengths = false is for patch mode only", "[config]") {
    CHECK_FALSE(
        parse_ok(std::string(kMinimal) + "[forward]\nread_lengths = false\n").forward.read_lengths);
    CHECK(parse_ok(std::string(kMinimal) + "[forward]\nmode = \"l3\"\nread_lengths = true\n")
              .forward.read_lengths);
    auto e = error_of(std::string(kMinimal) + "[forward]\nmode = \"l3\"\nread_lengths = false\n");
    CHECK(where(e) == "6:16 forward.read_lengths");
    CHECK(e.message ==
          "read_lengths = false is for mode \"patch\" only: mode \"l3\" reads every frame anyway");
    // The mode is known whatever the order of the keys.
    e = error_of(std::string(kMinimal) + "[forward]\nread_lengths = false\nmode = \"l2\"\n");
    CHECK(where(e) == "5:16 forward.read_lengths");
    e = error_of(std::string(kMinimal) + "[forward]\nread_lengths = 0\n");
    CHECK(where(e) == "5:16 forward.read_lengths");
}

TEST_CASE("config: lcores and sizing errors", "[config]") {
    auto e = error_of("[eal]\nlcores = \"0-1,x\"\n" + std::string(kMinimal));
    CHECK(where(e) == "2:10 eal.lcores");
    CHECK(e.message == "'0-1,x': expected an lcore number at offset 4");
    e = error_of("[eal]\nlcores = \"0\"\n" + std::string(kMinimal));
    CHECK(where(e) == "2:10 eal.lcores");
    CHECK_THAT(e.message, Catch::StartsWith("the ports need 1 worker lcores"));
    e = error_of(std::string(kMinimal) + "rx_queues = 3\n");
    CHECK(where(e) == "1:1 port[0].rx_queues");
    CHECK_THAT(e.message, Catch::EndsWith("(eal.lcores is not set, so its default applies)"));
    e = error_of(std::string(kMinimal) + "mtu = 2027\n");  // 128 + 2027 + 22 = 2177 > 2176
    CHECK(where(e) == "1:1 port[0].mtu");
    CHECK(e.message == "mtu 2027 needs pool.data_room >= 2177 (it is 2176)");
    CHECK(
        std::holds_alternative<Plan>(build_plan(parse_ok(std::string(kMinimal) + "mtu = 2026\n"))));
    e = error_of(std::string(kMinimal) + "rx_desc = 8192\n[pool]\ncache = 0\n");
    CHECK(where(e) == "5:1 pool.mbufs");
    e = error_of(std::string(kMinimal) + "rx_desc = 8192\n");
    CHECK(where(e) == "1:1 port[0].rx_desc");
}

TEST_CASE("config: TOML syntax errors carry toml++'s location and our key", "[config]") {
    auto e = error_of(std::string(kMinimal) + "mtu = 1500\nmtu = 1500\n");
    CHECK(where(e) == "5:7 port[0].mtu");
    CHECK_THAT(e.message, Catch::Contains("cannot redefine existing integer 'mtu'"));
    e = error_of(std::string(kMinimal) +
                 "[forward]\npairs = [\n  [\"p0\", \"p0\"]\n  [\"p0\", \"p0\"]\n]\n");
    CHECK(where(e) == "7:3 forward.pairs");
    e = error_of(std::string(kMinimal) + "[forward\n");
    CHECK(e.line == 4);
    e = error_of(std::string(kMinimal) + "devargs2 \"x\"\n");
    CHECK(where(e) == "4:10 port[0]");  // no '=' on the line: the table
    e = error_of(std::string(kMinimal) + "[[port]]\nname = \"p1\"\ndevargs = 'x\n");
    CHECK(where(e) == "6:13 port[1].devargs");
    e = error_of(std::string(kMinimal) + "[log]\nfile = \"\"\"\n/tmp/x\n");
    CHECK(where(e) == "6:8 log.file");  // end of file, within the string
    CHECK(e.file == "t.toml");
}

TEST_CASE("config: truncating a valid config anywhere gives a located error or a config",
          "[config]") {
    std::ifstream in(kRoot + "/config/null-patch.toml");
    REQUIRE(in);
    const std::string full{std::istreambuf_iterator<char>(in), {}};
    size_t errors = 0;
    for (size_t cut = 0; cut < full.size(); ++cut) {
        const std::string text = full.substr(0, cut);
        auto r = parse_config(text, "cut.toml");
        if (auto* e = std::get_if<ConfigError>(&r)) {
            ++errors;
            INFO("cut at " << cut << ": " << e->to_string());
            CHECK(e->file == "cut.toml");
            // A location inside the text: 1-based, never past the last line.
            CHECK(e->line >= 1);
            CHECK(e->column >= 1);
            CHECK(e->line <= size_t(std::count(text.begin(), text.end(), '\n')) + 1);
            CHECK_FALSE(e->key.empty());
            CHECK_FALSE(e->message.empty());
        }
    }
    CHECK(errors > 0);
}

TEST_CASE("config: every example in config/ loads and plans", "[config]") {
    size_t examples = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kRoot + "/config")) {
        if (entry.path().extension() != ".toml") continue;
        ++examples;
        INFO(entry.path().string());
        auto r = load_config_file(entry.path().string());
        if (auto* e = std::get_if<ConfigError>(&r)) FAIL(e->to_string());
        const auto& cfg = std::get<Config>(r);
        auto plan = build_plan(cfg);
        if (auto* e = std::get_if<ConfigError>(&plan)) FAIL(e->to_string());
        CHECK_FALSE(render_plan(cfg, std::get<Plan>(plan)).empty());
    }
    CHECK(examples >= 1);
}

TEST_CASE("config: every bad config fails exactly as test/config/bad/expected.txt says",
          "[config]") {
    const auto cases = read_manifest();
    std::set<std::string> listed;
    for (const auto& c : cases) {
        listed.insert(c.file);
        const std::string path = kBadDir + "/" + c.file;
        INFO(c.file);
        const ConfigError e = first_error(load_config_file(path));
        CHECK(e.file == path);
        CHECK(std::to_string(e.line) + ":" + std::to_string(e.column) == c.location);
        CHECK(e.key == c.key);
        CHECK_THAT(e.message, Catch::Contains(c.message));
    }
    // Every file in the directory is covered by the manifest.
    for (const auto& entry : std::filesystem::directory_iterator(kBadDir)) {
        if (entry.path().filename() == "expected.txt") continue;
        INFO(entry.path().string());
        CHECK(listed.count(entry.path().filename().string()) == 1);
    }
    CHECK(cases.size() >= 60);
}

TEST_CASE("config: files that are not configs", "[config]") {
    auto r = load_config_file(kBadDir + "/no-such-file.toml");
    auto e = std::get<ConfigError>(r);
    CHECK(e.to_string() == kBadDir + "/no-such-file.toml:0:0: key '(document)': cannot open file");
    e = std::get<ConfigError>(load_config_file(kBadDir));
    CHECK(e.to_string() == kBadDir + ":0:0: key '(document)': is a directory, not a config file");
    // An endless source is cut at the size limit instead of read to the end.
    e = std::get<ConfigError>(load_config_file("/dev/zero"));
    CHECK(where(e) == "1:1 (document)");
    CHECK(e.message == "file is larger than 1048576 bytes");
    e = std::get<ConfigError>(parse_config(std::string(kMaxConfigBytes + 1, '#'), "big.toml"));
    CHECK(e.message == "file is larger than 1048576 bytes");
    // Exactly at the limit is fine as far as size goes.
    std::string at_limit = std::string(kMinimal) + "# ";
    at_limit += std::string(kMaxConfigBytes - at_limit.size(), 'x');
    CHECK(std::holds_alternative<Config>(parse_config(at_limit, "limit.toml")));
}

TEST_CASE("config: error text is file:line:column: key 'k': sentence", "[config]") {
    const ConfigError e{"a.toml", 3, 7, "port[0].mtu", "value 1 is out of range [68, 9600]"};
    CHECK(e.to_string() == "a.toml:3:7: key 'port[0].mtu': value 1 is out of range [68, 9600]");
}

TEST_CASE("config: a key of a million parts is refused before toml++ nests it", "[config][fuzz]") {
    // toml++ 3.3.0 overflowed the stack on this (recursive table teardown).
    std::string text = "a";
    while (text.size() < kMaxConfigBytes - 8) text += ".b";
    text += " = 1\n";
    const auto e = error_of(text);
    CHECK(where(e) == "1:32 a.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b....");
    CHECK(e.message == "a key has more than 16 dotted parts");
}

TEST_CASE("config: inputs the fuzzer found give located errors", "[config][fuzz]") {
    // toml++ 3.3.0 reaches TOML_UNREACHABLE or breaks an assumption on these
    // (see text_guard.cpp).
    const struct {
        std::string text, where;
    } cases[] = {
        {"c\xD0\xBF", "1:2 (document)"},
        {"a = 1\xC2\xA1\n", "1:6 a"},
        {"\xE3\x80\x81 = 1\n", "1:1 (document)"},
        {"[\"\xC3\xA9\"]\n", "1:3 (document)"},
        {"a = \"\"\"x\\\xCE\xA9\"\"\"\n", "1:10 a"},
        {"a = \"\"\"x\\\n  \xEF\xBC\x8C\"\"\"\n", "2:3 a"},
        {"a = { \"\xD1\x84\" = 1 }\n", "1:8 a"},
        {"a = 1\"\xC3\xA9\"\n", "1:7 a"},
        {"a = 00:01:00:0p:x=\"\xEF\xBB\xB5\"\n", "1:20 a"},
        // toml++ asserts a key follows a header's '['; clang assumes it in release.
        {"[=", "1:2 (document)"},
        {"[pool]\nmbufs = 512\n[\n", "3:2 (document)"},
        // Broke toml++'s assumptions past the guard; TOML_ASSERT is a no-op
        // (config_loader.cpp), so toml++ reports them itself.
        {"a=1979-05-27T:", "1:14 a"},
        {"s=[}", "1:4 s"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto r = parse_config(c.text, "fuzz.toml");
        REQUIRE(std::holds_alternative<ConfigError>(r));
        CHECK(where(std::get<ConfigError>(r)) == c.where);
    }
}

TEST_CASE("config: control characters are refused in every string and key", "[config]") {
    // The screen passes a raw tab, and TOML makes the rest from escapes and
    // multi-line strings: each would forge a line in the log or the plan.
    const struct {
        std::string text, where;
        std::string byte;
    } cases[] = {
        {"[[port]]\nname = \"p0\"\ndevargs = \"net_null0\\nx\"\n", "3:11 port[0].devargs", "0x0a"},
        {"[[port]]\nname = \"p0\"\ndevargs = \"net_null0\\t\"\n", "3:11 port[0].devargs", "0x09"},
        {"[[port]]\nname = \"p0\"\ndevargs = \"net_null0\tx\"\n", "3:11 port[0].devargs", "0x09"},
        {"[[port]]\nname = \"p0\"\ndevargs = \"\"\"net_null0\nx\"\"\"\n", "3:11 port[0].devargs",
         "0x0a"},
        {"[[port]]\nname = \"p\\u0000\"\ndevargs = \"net_null0\"\n", "2:8 port[0].name", "0x00"},
        {"[[port]]\nname = \"p\\u007f\"\ndevargs = \"net_null0\"\n", "2:8 port[0].name", "0x7f"},
        {"[[port]]\nname = \"p\\r\"\ndevargs = \"net_null0\"\n", "2:8 port[0].name", "0x0d"},
        {"[eal]\nextra_args = [\"--log-level\", \"x\\u001b[2J\"]\n" + std::string(kMinimal),
         "2:30 eal.extra_args", "0x1b"},
        {std::string(kMinimal) + "[log]\nfile = \"/tmp/a\\nb\"\n", "5:8 log.file", "0x0a"},
        {std::string(kMinimal) + "[forward]\npairs = [[\"p0\", \"p\\n0\"]]\n", "5:17 forward.pairs",
         "0x0a"},
        {"\"a\\nb\" = 1\n" + std::string(kMinimal), "1:1 (document)", "0x0a"},
        {std::string(kMinimal) + "\"a\\nb\" = 1\n", "4:1 port[0]", "0x0a"},
        {"[forward.\"x\\ty\"]\n" + std::string(kMinimal), "1:10 forward", "0x09"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const auto e = error_of(c.text);
        CHECK(where(e) == c.where);
        CHECK_THAT(e.message, Catch::StartsWith("control character " + c.byte));
    }
    // Printable text, UTF-8 included, is fine.
    CHECK(
        parse_ok("[[port]]\nname = \"p0\"\ndevargs = \"net_pcap0,rx_pcap=/tmp/caf\xC3\xA9.pcap\"\n")
            .ports[0]
            .devargs == "net_pcap0,rx_pcap=/tmp/caf\xC3\xA9.pcap");
}

TEST_CASE("config: extra_args may not set what pmdfwd sets itself", "[config]") {
    for (const char* arg : {"--lcores",
                            "--lcores=0-1",
                            "--lcore=0",
                            "--main-lcore",
                            "--file-prefix",
                            "--file-prefix=x",
                            "--file-pre=x",
                            "--socket-mem=512",
                            "--no-huge",
                            "--no-hug",
                            "--huge-unlink",
                            "--in-memory",
                            "--no-shconf",
                            "--telemetry",
                            "--no-telemetry",
                            "--proc-type=secondary",
                            "--vdev=net_null9",
                            "--allow",
                            "--block=01:00.0",
                            "--no-pci",
                            "--help",
                            "--version",
                            "-l",
                            "-l0-1",
                            "-c",
                            "-c3",
                            "-m",
                            "-m512",
                            "-a",
                            "-a01:00.0",
                            "-b",
                            "-h",
                            "-v",
                            "-vh",
                            "-vn4"}) {
        INFO(arg);
        const auto e = error_of("[eal]\nextra_args = [\"-n\", \"4\", \"" + std::string(arg) +
                                "\"]\n" + kMinimal);
        CHECK(where(e) == "2:26 eal.extra_args");
        CHECK_THAT(e.message, Catch::StartsWith("'" + std::string(arg) + "' "));
        CHECK_THAT(e.message, Catch::EndsWith("; remove it from extra_args"));
    }
    CHECK(owned_eal_option("--file-prefix=x") ==
          "'--file-prefix=x' sets --file-prefix: pmdfwd sets it from eal.file_prefix");
    CHECK(owned_eal_option("--no-hu") ==
          "'--no-hu' abbreviates --no-huge: pmdfwd sets it from eal.hugepages");
    CHECK(owned_eal_option("-m512") == "'-m512' sets -m: pmdfwd sets it from eal.memory_mb");
    // What pmdfwd leaves to EAL, and option values that merely look like options.
    for (const char* arg : {"--log-level", "lib.eal:debug", "-n", "4", "-d", "/usr/lib/pmd.so",
                            "--huge-dir", "/mnt/huge", "--iova-mode=va", "--legacy-mem", "-r2",
                            "-d-v", "-nv", "-", "--", "4-7", "--single-file-segments"}) {
        INFO(arg);
        CHECK(owned_eal_option(arg).empty());
    }
}

TEST_CASE("config: file_prefix stays a single name under the runtime directory", "[config]") {
    for (const char* prefix : {"a/b", "..", "../x", "/abs", "a b", "a\\u0001",
                               "a-prefix-of-thirty-three-bytes-xx", ""}) {
        INFO(prefix);
        const auto e =
            error_of("[eal]\nfile_prefix = \"" + std::string(prefix) + "\"\n" + kMinimal);
        CHECK(e.key == "eal.file_prefix");
        if (std::string(prefix) != "a\\u0001")
            CHECK(e.message == "must be 1-32 characters of letters, digits, '_' or '-'");
    }
    CHECK(parse_ok("[eal]\nfile_prefix = \"a-prefix-of-thirty-two-bytes-xxx\"\n" +
                   std::string(kMinimal))
              .eal.file_prefix.size() == 32);
}

TEST_CASE("config: at most kMaxPorts ports", "[config]") {
    const auto ports = [](size_t n) {
        std::string text = "[eal]\nlcores = \"0@0,1@1\"\n";
        for (size_t i = 0; i < n; ++i)
            text += "[[port]]\nname = \"p" + std::to_string(i) + "\"\ndevargs = \"net_null" +
                    std::to_string(i) + "\"\nrx_queues = " + (i == 0 ? "1" : "0") + "\n";
        return text;
    };
    const Config cfg = parse_ok(ports(kMaxPorts));
    CHECK(cfg.ports.size() == 32);
    CHECK(std::holds_alternative<Plan>(build_plan(cfg)));
    const auto e = error_of(ports(kMaxPorts + 1));
    CHECK(where(e) == "131:1 port[32]");
    CHECK(e.message ==
          "the config declares 33 ports; DPDK here allows at most 32 (RTE_MAX_ETHPORTS)");
}

TEST_CASE("config: log file paths that cannot be opened are refused while parsing", "[config]") {
    const auto log = [](const std::string& file) {
        return std::string(kMinimal) + "[log]\nfile = \"" + file + "\"\n";
    };
    auto e = error_of(log("/tmp/" + std::string(256, 'x')));
    CHECK(where(e) == "5:8 log.file");
    CHECK(e.message ==
          "log file path has a component of 256 bytes ('xxxxxxxxxxxxxxxx...'); the limit is 255 "
          "(NAME_MAX)");
    CHECK(parse_ok(log("/tmp/" + std::string(255, 'x'))).log.file.size() == 260);
    std::string deep;
    while (deep.size() < 4096) deep += "/" + std::string(200, 'd');
    e = error_of(log(deep.substr(0, 4096)));
    CHECK(where(e) == "5:8 log.file");
    CHECK(e.message == "log file path is 4096 bytes; the limit is 4095 (PATH_MAX)");
    e = error_of(log("/var/log/pmdfwd/"));
    CHECK(e.message == "log file '/var/log/pmdfwd/' ends in '/', so it names a directory");
    CHECK(e.key == "log.file");
    CHECK(parse_ok(log("/var/log/pmdfwd.log")).log.file_loc.line == 5);
}

TEST_CASE("config: config files that would block or are not files are refused at once",
          "[config]") {
    using clock = std::chrono::steady_clock;
    TempDir dir;
    const std::string fifo = dir.path + "/config.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto start = clock::now();
    auto e = std::get<ConfigError>(load_config_file(fifo));
    CHECK(clock::now() - start < std::chrono::seconds(2));
    CHECK(e.to_string() == fifo + ":0:0: key '(document)': not a regular file (a fifo)");

    const std::string sock = dir.path + "/config.sock";
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(s >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
    REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    e = std::get<ConfigError>(load_config_file(sock));
    ::close(s);
    CHECK(e.message == "not a regular file (a socket)");

    // An anonymous pipe, as from `--config <(sed ... config.toml)`, is read to its end.
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    REQUIRE(::write(fds[1], kMinimal, std::strlen(kMinimal)) == ssize_t(std::strlen(kMinimal)));
    ::close(fds[1]);
    auto r = load_config_file("/dev/fd/" + std::to_string(fds[0]));
    ::close(fds[0]);
    if (auto* err = std::get_if<ConfigError>(&r)) FAIL(err->to_string());
    CHECK(std::get<Config>(r).ports.at(0).devargs == "net_null0");
}

TEST_CASE("config: the metrics address is numeric, and loopback unless allowed", "[config]") {
    const auto control = [](const std::string& lines) {
        return std::string(kMinimal) + "[control]\n" + lines;
    };
    CHECK(parse_ok(control("metrics = \"127.0.0.1:9469\"\n")).control.metrics == "127.0.0.1:9469");
    CHECK(parse_ok(control("metrics = \"[::1]:9469\"\n")).control.metrics == "[::1]:9469");
    CHECK(parse_ok(control("metrics = \"127.9.9.9:1\"\n")).control.metrics == "127.9.9.9:1");
    CHECK(parse_ok(kMinimal).control.metrics.empty());
    struct Bad {
        std::string lines, message;
    };
    const Bad bad[] = {
        {"metrics = \"0.0.0.0:9469\"\n", "'0.0.0.0' is not a loopback address"},
        {"metrics = \"[::]:9469\"\n", "'::' is not a loopback address"},
        {"metrics = \"localhost:9469\"\n", "is not a numeric IPv4 address"},
        {"metrics = \"127.0.0.1\"\n", "expected \"address:port\""},
        {"metrics = \"127.0.0.1:0\"\n", "is not a number in [1, 65535]"},
        {"metrics = \"127.0.0.1:65536\"\n", "is not a number in [1, 65535]"},
        {"metrics = \"127.0.0.1:80x\"\n", "is not a number in [1, 65535]"},
        {"metrics = \"[::1:9469\"\n", "expected \"[ipv6]:port\""},
        {"metrics = \"::1:9469\"\n", "expected \"address:port\""},
        {"metrics = 9469\n", "expected a string"},
        {"metrics_allow_remote = false\nmetrics = \"192.168.1.1:9469\"\n", "metrics_allow_remote"},
    };
    for (const auto& b : bad) {
        INFO(b.lines);
        const ConfigError e = error_of(control(b.lines));
        CHECK(e.key == "control.metrics");
        CHECK(e.line == (b.lines.starts_with("metrics_allow") ? 6 : 5));
        CHECK(e.column == 11);  // the value
        CHECK_THAT(e.message, Catch::Contains(b.message));
    }
}
