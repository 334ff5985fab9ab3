// DPDK's log lines into spdlog: levels, lines written in pieces, a line longer
// than the buffer, lines from several lcores at once, a PMD's own line, and
// a sink that logs through DPDK again without looping.
#include <rte_bus_vdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dpdk_log.hpp"

using namespace pmdfwd;

namespace {

struct Line {
    spdlog::level::level_enum level;
    std::string text;
};

// Keeps what reaches the logger; when `relog` is set, the first record that
// comes through also calls rte_log, as a sink that reached DPDK would.
class CaptureSink final : public spdlog::sinks::base_sink<std::mutex> {
  public:
    std::vector<Line> lines() {
        std::lock_guard lock(mutex_);
        return lines_;
    }
    bool relog = false;

  protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        lines_.push_back({msg.level, std::string(msg.payload.data(), msg.payload.size())});
        if (relog) {
            relog = false;
            rte_log(RTE_LOG_ERR, RTE_LOGTYPE_EAL, "EAL: logged again from a sink\n");
        }
    }
    void flush_() override {}

  private:
    std::vector<Line> lines_;
};

// The capture sink as the default logger's only sink, at debug, for one
// test; and DPDK routed into it.
struct Routed {
    std::shared_ptr<CaptureSink> sink = std::make_shared<CaptureSink>();
    std::vector<spdlog::sink_ptr> sinks_before;
    spdlog::level::level_enum level_before;
    int type;
    Routed() {
        auto logger = spdlog::default_logger();
        level_before = logger->level();
        logger->set_level(spdlog::level::debug);
        sinks_before = logger->sinks();
        logger->sinks() = {sink};
        type = rte_log_register_type_and_pick_level("pmdfwd.test", RTE_LOG_DEBUG);
        REQUIRE(type >= 0);
        REQUIRE(rte_log_set_level(uint32_t(type), RTE_LOG_DEBUG) == 0);
        REQUIRE(route_dpdk_log());
    }
    ~Routed() {
        unroute_dpdk_log();
        spdlog::default_logger()->sinks() = sinks_before;
        spdlog::default_logger()->set_level(level_before);
    }
    std::vector<std::string> texts() {
        std::vector<std::string> out;
        for (const auto& l : sink->lines()) out.push_back(l.text);
        return out;
    }
};

struct LcoreLog {
    int type;
    unsigned lines;
};

// Each line in two messages, the second ending it, as DPDK code that
// builds a line with several rte_log calls does.
int log_lines(void* arg) {
    const auto& job = *static_cast<const LcoreLog*>(arg);
    const unsigned lcore = rte_lcore_id();
    for (unsigned i = 0; i < job.lines; ++i) {
        rte_log(RTE_LOG_INFO, uint32_t(job.type), "lcore %u line ", lcore);
        rte_log(RTE_LOG_INFO, uint32_t(job.type), "%u of %u\n", i, job.lines);
    }
    return 0;
}

}  // namespace

TEST_CASE("dpdk log: each level maps to spdlog's, prefixed dpdk:", "[dpdklog]") {
    Routed r;
    const std::pair<uint32_t, spdlog::level::level_enum> levels[] = {
        {RTE_LOG_EMERG, spdlog::level::critical}, {RTE_LOG_ALERT, spdlog::level::critical},
        {RTE_LOG_CRIT, spdlog::level::critical},  {RTE_LOG_ERR, spdlog::level::err},
        {RTE_LOG_WARNING, spdlog::level::warn},   {RTE_LOG_NOTICE, spdlog::level::info},
        {RTE_LOG_INFO, spdlog::level::info},      {RTE_LOG_DEBUG, spdlog::level::debug}};
    for (const auto& [rte, spd] : levels) rte_log(rte, uint32_t(r.type), "TEST: level %u\n", rte);
    const auto lines = r.sink->lines();
    REQUIRE(lines.size() == std::size(levels));
    for (size_t i = 0; i < lines.size(); ++i) {
        INFO(lines[i].text);
        CHECK(lines[i].text == "dpdk: TEST: level " + std::to_string(levels[i].first));
        CHECK(lines[i].level == levels[i].second);
    }
}

TEST_CASE("dpdk log: lines in pieces, several in one message, one past the buffer", "[dpdklog]") {
    Routed r;
    rte_log(RTE_LOG_WARNING, uint32_t(r.type), "begun, ");
    rte_log(RTE_LOG_WARNING, uint32_t(r.type), "continued, ");
    CHECK(r.sink->lines().empty());  // nothing until the newline
    rte_log(RTE_LOG_WARNING, uint32_t(r.type), "ended\nsecond\r\n\nthird\n");
    const std::string longest(2500, 'x');
    rte_log(RTE_LOG_ERR, uint32_t(r.type), "%s\n", longest.c_str());
    const auto lines = r.sink->lines();
    REQUIRE(lines.size() == 6);
    CHECK(lines[0].text == "dpdk: begun, continued, ended");
    CHECK(lines[0].level == spdlog::level::warn);
    CHECK(lines[1].text == "dpdk: second");  // the \r goes, the empty line is not passed on
    CHECK(lines[2].text == "dpdk: third");
    // 2500 bytes in pieces of 1024, nothing lost.
    std::string joined;
    for (size_t i = 3; i < 6; ++i) {
        REQUIRE(lines[i].text.rfind("dpdk: ", 0) == 0);
        CHECK(lines[i].level == spdlog::level::err);
        joined += lines[i].text.substr(6);
    }
    CHECK(joined == longest);
}

TEST_CASE("dpdk log: lines from several lcores at once stay whole", "[dpdklog]") {
    Routed r;
    LcoreLog job{r.type, 300};
    REQUIRE(rte_eal_remote_launch(log_lines, &job, 1) == 0);
    REQUIRE(rte_eal_remote_launch(log_lines, &job, 2) == 0);
    log_lines(&job);
    rte_eal_wait_lcore(1);
    rte_eal_wait_lcore(2);
    std::map<std::string, unsigned> next;  // per lcore: the line expected next
    for (const auto& text : r.texts()) {
        INFO(text);
        const size_t at = text.find(" line ");
        REQUIRE(text.rfind("dpdk: lcore ", 0) == 0);
        REQUIRE(at != std::string::npos);
        const std::string who = text.substr(0, at);
        CHECK(text == who + " line " + std::to_string(next[who]++) + " of 300");
    }
    REQUIRE(next.size() == 3);
    for (const auto& [who, n] : next) CHECK(n == 300);
}

TEST_CASE("dpdk log: a PMD's complaint about its devargs arrives at its level", "[dpdklog]") {
    Routed r;
    // net_ring refuses a NUMA node that is not a number, and says why (a
    // warning, in 22.11).
    CHECK(rte_vdev_init("net_ring_dpdklog0", "nodeaction=r0:abc:CREATE") != 0);
    std::vector<Line> said;
    for (const auto& l : r.sink->lines())
        if (l.text.find("node value abc is unparseable as a number") != std::string::npos)
            said.push_back(l);
    REQUIRE(said.size() == 1);
    CHECK(said[0].text.rfind("dpdk: ", 0) == 0);
    CHECK(said[0].level == spdlog::level::warn);
}

TEST_CASE("dpdk log: a sink that logs through DPDK does not loop", "[dpdklog]") {
    Routed r;
    r.sink->relog = true;
    rte_log(RTE_LOG_ERR, uint32_t(r.type), "TEST: first\n");
    rte_log(RTE_LOG_ERR, uint32_t(r.type), "TEST: after\n");
    // The line logged from inside the sink went to standard error instead.
    CHECK(r.texts() == std::vector<std::string>{"dpdk: TEST: first", "dpdk: TEST: after"});
}

TEST_CASE("dpdk log: once unrouted, DPDK's lines no longer reach the logger", "[dpdklog]") {
    std::shared_ptr<CaptureSink> sink;
    int type;
    {
        Routed r;
        sink = r.sink;
        type = r.type;
        rte_log(RTE_LOG_ERR, uint32_t(type), "TEST: routed\n");
    }
    rte_log(RTE_LOG_ERR, uint32_t(type), "TEST: to standard error\n");
    REQUIRE(sink->lines().size() == 1);
    CHECK(sink->lines()[0].text == "dpdk: TEST: routed");
}
