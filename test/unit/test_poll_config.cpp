// Poll modes in the config and the plan: [poll] and each port's poll, by
// port or by queue, the defaults and idle_polls, and interrupt mode left to
// the start-up probe when the driver is not known yet.
#include <catch2/catch.hpp>
#include <string>
#include <variant>
#include <vector>

#include "config_loader.hpp"
#include "plan.hpp"

using namespace pmdfwd;

namespace {

Config parse_ok(const std::string& text) {
    auto r = parse_config(text, "t.toml");
    if (auto* e = std::get_if<ConfigError>(&r)) FAIL("unexpected error: " << e->to_string());
    return std::get<Config>(r);
}

Plan plan_ok(const Config& cfg) {
    auto p = build_plan(cfg);
    if (auto* e = std::get_if<ConfigError>(&p)) FAIL("unexpected error: " << e->to_string());
    return std::get<Plan>(p);
}

}  // namespace

TEST_CASE("poll: global mode, per-port string and per-queue array", "[poll][config]") {
    const Config cfg = parse_ok(R"([eal]
lcores = "0-4"
[poll]
mode = "adaptive"
max_sleep_us = 500
[[port]]
name = "a"
devargs = "net_tap_a,iface=pa"
rx_queues = 2
poll = ["busy", "interrupt"]
[[port]]
name = "b"
devargs = "net_null0"
[[port]]
name = "c"
devargs = "net_null1"
poll = "busy"
[forward]
pairs = [["a", "b"], ["b", "c"], ["c", "a"]]
)");
    CHECK(cfg.poll.mode == PollMode::adaptive);
    CHECK(cfg.poll.max_sleep_us == 500);
    const Plan plan = plan_ok(cfg);
    REQUIRE(plan.workers.size() == 4);
    CHECK(plan.workers[0].poll == PollMode::busy);
    CHECK(plan.workers[1].poll == PollMode::interrupt);
    CHECK(plan.workers[2].poll == PollMode::adaptive);  // [poll] mode
    CHECK(plan.workers[3].poll == PollMode::busy);
    const auto lines = render_plan(cfg, plan);
    CHECK(std::find(lines.begin(), lines.end(),
                    "worker 1 on lcore 2: polls 'a' rxq 1 -> sends on 'b' txq 1; poll interrupt "
                    "(idle_polls 200)") != lines.end());
    CHECK(std::find(lines.begin(), lines.end(),
                    "worker 2 on lcore 3: polls 'b' rxq 0 -> sends on 'c' txq 0; poll adaptive "
                    "(idle_polls 50000, max_sleep_us 500)") != lines.end());
}

TEST_CASE("poll: defaults, and idle_polls per mode", "[poll][config]") {
    const Config cfg = parse_ok("[[port]]\nname = \"p\"\ndevargs = \"net_null0\"\n");
    CHECK(cfg.poll.mode == PollMode::busy);
    CHECK_FALSE(cfg.forward.latency);  // ~3% on a null device: asked for, not assumed
    CHECK(cfg.poll.idle_polls_for(PollMode::adaptive) == kAdaptiveIdlePolls);
    CHECK(cfg.poll.idle_polls_for(PollMode::interrupt) == kInterruptIdlePolls);
    const Config set = parse_ok(
        "[poll]\nidle_polls = 77\n[forward]\nlatency = true\n[[port]]\nname = \"p\"\n"
        "devargs = \"net_null0\"\n");
    CHECK(set.poll.idle_polls_for(PollMode::adaptive) == 77);
    CHECK(set.poll.idle_polls_for(PollMode::interrupt) == 77);
    CHECK(set.forward.latency);
}

TEST_CASE("poll: interrupt on a device of unknown driver is left to the start-up probe",
          "[poll][plan]") {
    const Config cfg =
        parse_ok("[[port]]\nname = \"p\"\ndevargs = \"0000:01:00.0\"\npoll = \"interrupt\"\n");
    CHECK(plan_ok(cfg).workers[0].poll == PollMode::interrupt);
    // With the probed driver known, the same config is refused.
    const std::vector<PortLimits> limits = {{"net_null", 1, 1}};
    const auto refused = build_plan(cfg, &limits);
    REQUIRE(std::holds_alternative<ConfigError>(refused));
    CHECK(std::get<ConfigError>(refused).message.find("(net_null) has no rx interrupts") !=
          std::string::npos);
}
