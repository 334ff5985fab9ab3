// Worker assignment and cross-field checks on Configs built in code: one
// worker per (port, rx queue) in port order, TX queues handed out per output
// port, and each refusal with the location and key it blames.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config_loader.hpp"
#include "eal_args.hpp"
#include "file_check.hpp"
#include "hugepage_files.hpp"
#include "lcore_list.hpp"
#include "memory_plan.hpp"
#include "plan.hpp"
#include "system_check.hpp"
#include "temp_dir.hpp"

using namespace pmdfwd;

namespace {

PortConfig port(const std::string& name, uint16_t rx_queues = 1, uint32_t line = 0) {
    PortConfig p;
    p.name = name;
    p.devargs = "net_null_" + name;
    p.rx_queues = rx_queues;
    p.loc = {line, 1};
    return p;
}

// Two null ports cross-connected, as config/null-patch.toml.
Config cross(const std::string& lcores = "0-2") {
    Config cfg;
    cfg.source_name = "plan.toml";
    cfg.eal.lcores = lcores;
    cfg.eal.lcores_loc = {2, 10};
    cfg.ports = {port("p0", 1, 4), port("p1", 1, 8)};
    cfg.forward.pairs = {{"p0", "p1", {12, 10}}, {"p1", "p0", {12, 24}}};
    cfg.pool.loc = {14, 1};
    return cfg;
}

Plan plan_ok(const Config& cfg) {
    auto r = build_plan(cfg);
    if (auto* e = std::get_if<ConfigError>(&r)) FAIL(e->to_string());
    return std::get<Plan>(r);
}

// "file:line:column key: message" of the refusal.
std::string refusal(const Config& cfg) {
    auto r = build_plan(cfg);
    REQUIRE(std::holds_alternative<ConfigError>(r));
    const auto& e = std::get<ConfigError>(r);
    return e.file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + " " + e.key +
           ": " + e.message;
}

}  // namespace

TEST_CASE("plan: two ports cross-connected", "[plan]") {
    const Config cfg = cross();
    const Plan plan = plan_ok(cfg);
    CHECK(plan.main_lcore == 0);
    REQUIRE(plan.workers.size() == 2);
    CHECK(plan.workers[0].id == 0);
    CHECK(plan.workers[0].lcore == 1);
    CHECK(plan.workers[0].rx_port == 0);
    CHECK(plan.workers[0].rx_queue == 0);
    CHECK(plan.workers[0].tx_port == 1);
    CHECK(plan.workers[0].tx_queue == 0);
    CHECK(plan.workers[1].lcore == 2);
    CHECK(plan.workers[1].rx_port == 1);
    CHECK(plan.workers[1].tx_port == 0);
    REQUIRE(plan.ports.size() == 2);
    CHECK(plan.ports[0].rx_queues == 1);
    CHECK(plan.ports[0].tx_queues == 1);
    CHECK(plan.ports[1].tx_queues == 1);
    CHECK(plan.unused_lcores.empty());
    CHECK(plan.warnings.empty());
    CHECK(render_plan(cfg, plan) ==
          std::vector<std::string>{
              "mode patch, burst 32, tx_retries 2, main lcore 0, 2 worker(s), pool model "
              "per-worker-stock (the default), 8192 mbufs/worker",
              "port 0 'p0' net_null_p0: rx_queues 1, tx_queues 1, tx auto, mtu 1500",
              "port 1 'p1' net_null_p1: rx_queues 1, tx_queues 1, tx auto, mtu 1500",
              "worker 0 on lcore 1: polls 'p0' rxq 0 -> sends on 'p1' txq 0",
              "worker 1 on lcore 2: polls 'p1' rxq 0 -> sends on 'p0' txq 0",
          });
}

TEST_CASE("plan: the plan line says whether the pool model is the default", "[plan][pool]") {
    Config cfg = cross();
    CHECK(plan_ok(cfg).pool_model == PoolModel::per_worker_stock);
    CHECK(std::string(plan_ok(cfg).pool_model_source()) == "default");
    cfg.pool.model = PoolModel::recycle;
    cfg.pool.model_loc = {12, 9};  // as the loader records [pool] model
    const Plan plan = plan_ok(cfg);
    CHECK(std::string(plan.pool_model_source()) == "config");
    CHECK(render_plan(cfg, plan).front() ==
          "mode patch, burst 32, tx_retries 2, main lcore 0, 2 worker(s), pool model recycle "
          "(pool.model), 8192 mbufs/worker");
}

TEST_CASE("plan: the plan line says when patch mode reads no frame length", "[plan]") {
    Config cfg = cross();
    cfg.forward.read_lengths = false;
    CHECK(render_plan(cfg, plan_ok(cfg)).front() ==
          "mode patch, burst 32, tx_retries 2, frame lengths not read, main lcore 0, 2 worker(s), "
          "pool model per-worker-stock (the default), 8192 mbufs/worker");
}

TEST_CASE("plan: several rx queues share an output port's tx queues", "[plan]") {
    Config cfg = cross("0,(4-7),9");
    cfg.ports[0].rx_queues = 3;
    cfg.ports[1].rx_queues = 2;
    const Plan plan = plan_ok(cfg);
    REQUIRE(plan.workers.size() == 5);
    const unsigned lcores[] = {4, 5, 6, 7, 9};
    for (unsigned i = 0; i < 5; ++i) {
        CHECK(plan.workers[i].id == i);
        CHECK(plan.workers[i].lcore == lcores[i]);
    }
    // p0's three queues each own a tx queue on p1, and the reverse.
    CHECK(plan.workers[0].rx_queue == 0);
    CHECK(plan.workers[2].rx_queue == 2);
    CHECK(plan.workers[2].tx_port == 1);
    CHECK(plan.workers[2].tx_queue == 2);
    CHECK(plan.workers[3].rx_port == 1);
    CHECK(plan.workers[3].rx_queue == 0);
    CHECK(plan.workers[4].tx_queue == 1);
    CHECK(plan.ports[0].rx_queues == 3);
    CHECK(plan.ports[0].tx_queues == 2);
    CHECK(plan.ports[1].rx_queues == 2);
    CHECK(plan.ports[1].tx_queues == 3);
}

TEST_CASE("plan: main lcore is the first listed; spare lcores are reported", "[plan]") {
    Config cfg = cross("3,1,2,8-9");
    const Plan plan = plan_ok(cfg);
    CHECK(plan.main_lcore == 3);
    CHECK(plan.workers[0].lcore == 1);
    CHECK(plan.workers[1].lcore == 2);
    CHECK(plan.unused_lcores == std::vector<unsigned>{8, 9});
    CHECK(render_plan(cfg, plan).back() == "unused lcores: 8 9");
}

TEST_CASE("plan: capture needs hugepages, and the plan names dumpcap's devices", "[plan]") {
    Config cfg = cross();
    cfg.control.capture = true;
    cfg.control.capture_loc = {16, 11};
    CHECK_THAT(refusal(cfg), Catch::StartsWith("plan.toml:16:11 control.capture: capture needs "
                                               "hugepages") &&
                                 Catch::Contains("(it is not set, and defaults to false)"));
    cfg.eal.hugepages = true;
    cfg.eal.hugepages_loc = {3, 13};
    cfg.ports[1].devargs = "01:00.1,rxq=2";
    const Plan plan = plan_ok(cfg);
    CHECK(render_plan(cfg, plan).back() ==
          "capture: dpdk-dumpcap --file-prefix pmdfwd -i <device> (net_null_p0, 0000:01:00.1)");
    cfg.eal.hugepages = false;
    CHECK_THAT(refusal(cfg), Catch::EndsWith("set eal.hugepages = true, or capture = false"));
}

TEST_CASE("plan: a polled port without a pair drops, with a warning", "[plan]") {
    Config cfg = cross();
    cfg.forward.pairs.pop_back();  // p1 -> p0 gone
    const Plan plan = plan_ok(cfg);
    CHECK(plan.workers[1].tx_port == kNoPort);
    CHECK(plan.ports[0].tx_queues == 0);
    REQUIRE(plan.warnings.size() == 1);
    CHECK(plan.warnings[0] ==
          "port 'p1' is polled but is the source of no pair: its packets are dropped as no_route");
    const auto lines = render_plan(cfg, plan);
    CHECK(lines[4] == "worker 1 on lcore 2: polls 'p1' rxq 0 -> no pair (drop)");
    CHECK(lines.back() == "warning: " + plan.warnings[0]);
}

TEST_CASE("plan: a port with no rx queues is only an output", "[plan]") {
    Config cfg = cross("0-1");
    cfg.ports[1].rx_queues = 0;
    const Plan plan = plan_ok(cfg);
    REQUIRE(plan.workers.size() == 1);
    CHECK(plan.ports[1].rx_queues == 0);
    CHECK(plan.ports[1].tx_queues == 1);
    CHECK(plan.warnings.empty());  // p1 is the source of a pair but polls nothing: no warning
}

TEST_CASE("plan: a port may forward to itself", "[plan]") {
    Config cfg = cross("0-1");
    cfg.ports.pop_back();
    cfg.forward.pairs = {{"p0", "p0", {12, 10}}};
    const Plan plan = plan_ok(cfg);
    CHECK(plan.workers[0].tx_port == 0);
    CHECK(plan.ports[0].tx_queues == 1);
}

TEST_CASE("plan: l2 mode with a next hop per output port", "[plan]") {
    Config cfg = cross();
    cfg.forward.mode = ForwardMode::l2;
    cfg.forward.next_hop_mac = {{"p0", MacAddr{}}, {"p1", MacAddr{}}};
    const Plan plan = plan_ok(cfg);
    CHECK(render_plan(cfg, plan)[0].rfind("mode l2, ", 0) == 0);
}

TEST_CASE("plan: refusals and where they point", "[plan]") {
    Config cfg = cross();
    cfg.ports.clear();
    cfg.forward.pairs.clear();
    CHECK(refusal(cfg) ==
          "plan.toml:1:1 port: the config declares no [[port]]; at least one is needed");

    cfg = cross();
    cfg.ports[1].name = "p0";
    CHECK(refusal(cfg) == "plan.toml:8:1 port[1].name: port name 'p0' is used twice");

    cfg = cross();
    cfg.forward.pairs[1].to = "p9";
    CHECK(
        refusal(cfg) ==
        "plan.toml:12:24 forward.pairs: pair names port 'p9', which is not a configured [[port]]");
    cfg.forward.pairs[1].from = "p8";
    CHECK(
        refusal(cfg) ==
        "plan.toml:12:24 forward.pairs: pair names port 'p8', which is not a configured [[port]]");

    cfg = cross();
    cfg.forward.pairs.push_back({"p1", "p1", {13, 3}});
    CHECK(refusal(cfg) ==
          "plan.toml:13:3 forward.pairs: port 'p1' is the source of more than one pair");

    cfg = cross();
    cfg.eal.lcores = "0-1,1";
    CHECK(refusal(cfg) == "plan.toml:2:10 eal.lcores: '0-1,1': an lcore appears twice");

    cfg = cross();
    cfg.ports[0].rx_queues = cfg.ports[1].rx_queues = 0;
    CHECK(refusal(cfg) ==
          "plan.toml:1:1 port: no port has rx_queues > 0, so nothing would be polled");
}

TEST_CASE("plan: l2 next hops", "[plan]") {
    Config cfg = cross();
    cfg.forward.mode = ForwardMode::l2;
    cfg.forward.mode_loc = {11, 8};
    CHECK(refusal(cfg) ==
          "plan.toml:11:8 forward.next_hop_mac: l2 mode sends on port 'p1' but next_hop_mac has "
          "no entry for it");
    cfg.forward.next_hop_mac = {{"p1", MacAddr{}}};
    cfg.forward.next_hop_loc = {13, 16};
    CHECK(refusal(cfg) ==
          "plan.toml:13:16 forward.next_hop_mac: l2 mode sends on port 'p0' but next_hop_mac has "
          "no entry for it");
    cfg.forward.next_hop_mac["px"] = MacAddr{};
    CHECK(refusal(cfg) ==
          "plan.toml:13:16 forward.next_hop_mac.px: names port 'px', which is not a "
          "configured [[port]]");

    cfg = cross();
    cfg.forward.next_hop_mac = {{"p1", MacAddr{}}};
    cfg.forward.next_hop_loc = {13, 1};
    CHECK(refusal(cfg) ==
          "plan.toml:13:1 forward.next_hop_mac: next_hop_mac is used only by mode "
          "\"l2\"; remove it or set mode = \"l2\"");
}

TEST_CASE("plan: one worker lcore per rx queue", "[plan]") {
    Config cfg = cross("0-2");
    cfg.ports[1].rx_queues = 2;
    CHECK(refusal(cfg) ==
          "plan.toml:2:10 eal.lcores: the ports need 3 worker lcores (one per port rx queue) but "
          "'0-2' gives 2 after the main lcore; add lcores or lower rx_queues");
    cfg.eal.lcores = "0-3";
    CHECK(plan_ok(cfg).workers.size() == 3);

    // Without eal.lcores in the file the default is blamed on the port that overflows it.
    cfg = cross("0-2");
    cfg.eal.lcores_loc = {};
    cfg.ports.push_back(port("p2", 1, 20));
    CHECK(
        refusal(cfg) ==
        "plan.toml:20:1 port[2].rx_queues: the ports need 3 worker lcores (one per port rx "
        "queue) but '0-2' gives 2 after the main lcore; add lcores or lower rx_queues (eal.lcores "
        "is not set, so its default applies)");
    cfg.ports[0].rx_queues = 3;
    CHECK_THAT(refusal(cfg), Catch::StartsWith("plan.toml:4:1 port[0].rx_queues: "));
    cfg.eal.lcores = "0";
    cfg.ports = {port("p0", 1, 4)};
    cfg.forward.pairs.clear();
    CHECK_THAT(refusal(cfg),
               Catch::StartsWith("plan.toml:4:1 port[0].rx_queues: the ports need 1 "));
}

TEST_CASE("plan: data_room must hold headroom + mtu + L2 overhead", "[plan]") {
    Config cfg = cross();
    cfg.ports[1].mtu = 9000;
    cfg.pool.data_room = 128 + 9000 + 22 - 1;
    CHECK(refusal(cfg) ==
          "plan.toml:8:1 port[1].mtu: mtu 9000 needs pool.data_room >= 9150 (it is 9149)");
    cfg.pool.data_room = 9150;
    CHECK(plan_ok(cfg).workers.size() == 2);
    cfg = cross();
    cfg.pool.data_room = 256;
    cfg.ports[0].mtu = 68;
    cfg.ports[1].mtu = 68;
    CHECK(plan_ok(cfg).workers.size() == 2);  // 128 + 68 + 22 = 218 fits in 256
}

TEST_CASE("plan: each worker's pool fills its rings, a burst and two caches at their flush level",
          "[plan]") {
    Config cfg = cross();
    // rx 1024 + tx 1024 + burst 32 + 3 x cache 256 = 2848
    cfg.pool.mbufs = 2847;
    CHECK(refusal(cfg) ==
          "plan.toml:14:1 pool.mbufs: 2847 mbufs per pool is too few for worker 0 (rx_desc 1024 + "
          "tx_desc 1024 + burst 32 + 3 x cache 256 = 2848); raise pool.mbufs or lower the "
          "descriptor counts");
    cfg.pool.mbufs = 2848;
    CHECK(plan_ok(cfg).workers.size() == 2);
    // The larger worker decides: worker 1 receives on p1 with more descriptors.
    cfg.ports[1].rx_desc = 2048;
    CHECK_THAT(refusal(cfg), Catch::Contains("too few for worker 1 (rx_desc 2048 + tx_desc 1024"));
    // A worker with no pair needs no tx ring.
    cfg = cross();
    cfg.forward.pairs.clear();
    cfg.pool.mbufs = 1024 + 32 + 768;
    CHECK(plan_ok(cfg).workers.size() == 2);
    // Without a [pool] table in the file, the port's descriptors are blamed.
    cfg.pool.loc = {};
    cfg.pool.mbufs = 8192;
    cfg.ports[1].rx_desc = 8192;
    CHECK_THAT(refusal(cfg), Catch::StartsWith("plan.toml:8:1 port[1].rx_desc: 8192 mbufs per pool "
                                               "is too few for worker 1"));
}

TEST_CASE("plan: the example configs plan as documented", "[plan]") {
    auto r = load_config_file(std::string(PMDFWD_SOURCE_ROOT) + "/config/null-patch.toml");
    REQUIRE(std::holds_alternative<Config>(r));
    const Config& cfg = std::get<Config>(r);
    const Plan plan = plan_ok(cfg);
    CHECK(plan.main_lcore == 0);
    CHECK(plan.workers.size() == 2);
    CHECK(render_plan(cfg, plan).size() == 5);
}

namespace {

// p0 (2 rx queues) and p2 both send to p1, which is polled by one worker.
Config fan_in() {
    Config cfg;
    cfg.source_name = "plan.toml";
    cfg.eal.lcores = "0-4";
    cfg.ports = {port("p0", 2, 4), port("p1", 1, 8), port("p2", 1, 12)};
    cfg.ports[1].tx_loc = {10, 6};
    cfg.forward.pairs = {{"p0", "p1", {16, 10}}, {"p2", "p1", {16, 24}}};
    cfg.pool.loc = {18, 1};
    return cfg;
}

Plan plan_with(const Config& cfg, const std::vector<PortLimits>& limits) {
    auto r = build_plan(cfg, &limits);
    if (auto* e = std::get_if<ConfigError>(&r)) FAIL(e->to_string());
    return std::get<Plan>(r);
}

}  // namespace

TEST_CASE("plan: tx owner hands every sender's bursts to the port's poller", "[plan][tx]") {
    Config cfg = fan_in();
    cfg.ports[1].tx = TxMode::owner;
    const Plan plan = plan_ok(cfg);
    // Workers 0 and 1 poll p0, worker 2 polls p1 (and owns its only TX queue), worker 3 polls p2.
    CHECK(plan.ports[1].tx == TxMode::owner);
    CHECK(plan.ports[1].tx_queues == 1);
    for (const unsigned w : {0u, 1u, 3u}) {
        CHECK(plan.workers[w].tx_port == 1);
        CHECK(plan.workers[w].tx_queue == 0);
        CHECK(plan.workers[w].handoff_to == 2);
    }
    CHECK(plan.workers[2].handoff_to == kNoWorker);
    const auto lines = render_plan(cfg, plan);
    CHECK(lines[2] == "port 1 'p1' net_null_p1: rx_queues 1, tx_queues 1, tx owner, mtu 1500");
    CHECK(lines[4] ==
          "worker 0 on lcore 1: polls 'p0' rxq 0 -> hands off to worker 2, owner of "
          "'p1' txq 0");
    CHECK(lines[6] ==
          "worker 2 on lcore 3: polls 'p1' rxq 0 -> no pair (drop); transmits for "
          "worker(s) 0, 1, 3");
    // p1's worker exists to own the queue: no "polled but no pair" warning.
    CHECK(plan.warnings.empty());
}

TEST_CASE("plan: tx owner on a port nobody polls gives its queue to the first sender",
          "[plan][tx]") {
    Config cfg = fan_in();
    cfg.ports[1].rx_queues = 0;
    cfg.ports[1].tx = TxMode::owner;
    const Plan plan = plan_ok(cfg);
    CHECK(plan.ports[1].tx_queues == 1);
    CHECK(plan.workers[0].handoff_to == kNoWorker);  // sends itself, on the queue it owns
    CHECK(plan.workers[1].handoff_to == 0);
    CHECK(plan.workers[2].handoff_to == 0);  // p2's worker
}

TEST_CASE("plan: tx auto follows the device's TX queue limit", "[plan][tx]") {
    Config cfg = fan_in();
    std::vector<PortLimits> limits(3, PortLimits{"net_null", 16, 16});
    SECTION("enough queues: one per sender") {
        const Plan plan = plan_with(cfg, limits);
        CHECK(plan.ports[1].tx == TxMode::per_worker);
        CHECK(plan.ports[1].tx_queues == 3);
        for (const auto& w : plan.workers) CHECK(w.handoff_to == kNoWorker);
        CHECK(render_plan(cfg, plan)[2].find("tx per-worker (auto)") != std::string::npos);
    }
    SECTION("one queue: the poller owns it") {
        limits[1].max_tx_queues = 1;
        const Plan plan = plan_with(cfg, limits);
        CHECK(plan.ports[1].tx == TxMode::owner);
        CHECK(plan.ports[1].tx_queues == 1);
        CHECK(plan.workers[0].handoff_to == 2);
        CHECK(render_plan(cfg, plan)[2].find("tx owner (auto)") != std::string::npos);
    }
    SECTION("net_tap pairs rx with tx queues: its rx limit counts too") {
        limits[1] = {"net_tap", 2, 16};
        CHECK(plan_with(cfg, limits).ports[1].tx == TxMode::owner);
    }
    SECTION("without limits (--check) auto is shown unresolved") {
        const Plan plan = plan_ok(cfg);
        CHECK_FALSE(plan.ports[1].tx_resolved);
        CHECK(render_plan(cfg, plan)[2].find("tx auto,") != std::string::npos);
    }
}

TEST_CASE("plan: tx per-worker beyond the device's queues is refused with the fix", "[plan][tx]") {
    Config cfg = fan_in();
    cfg.ports[1].tx = TxMode::per_worker;
    std::vector<PortLimits> limits(3, PortLimits{"net_null", 16, 16});
    limits[1] = {"net_af_packet", 1, 1};
    auto r = build_plan(cfg, &limits);
    REQUIRE(std::holds_alternative<ConfigError>(r));
    const auto& e = std::get<ConfigError>(r);
    CHECK(e.line == 10);
    CHECK(e.column == 6);
    CHECK(e.key == "port[1].tx");
    CHECK(e.message ==
          "port 'p1' (net_af_packet) allows at most 1 tx queues but tx = \"per-worker\" needs 3 "
          "(one per sending worker); set tx = \"owner\" or \"auto\"");
}

TEST_CASE("plan: pools cover the handoff ring, and the shared pool every worker",
          "[plan][tx][pool]") {
    Config cfg = cross();
    cfg.ports[1].tx = TxMode::owner;
    cfg.forward.handoff_ring = 4096;
    cfg.pool.mbufs = 4096;
    // The default model, per-worker-stock: the sender's cache of the owner's
    // pool and the owner's cache of the sender's count too.
    CHECK(refusal(cfg) ==
          "plan.toml:14:1 pool.mbufs: 4096 mbufs per pool is too few for worker 0 (rx_desc 1024 + "
          "tx_desc 1024 + handoff_ring 4096 + burst 32 + 5 x cache 256 = 7456); raise pool.mbufs "
          "or lower the descriptor counts");
    cfg.pool.model = PoolModel::recycle;
    CHECK(refusal(cfg) ==
          "plan.toml:14:1 pool.mbufs: 4096 mbufs per pool is too few for worker 0 (rx_desc 1024 + "
          "tx_desc 1024 + handoff_ring 4096 + burst 32 + 3 x cache 256 = 6944); raise pool.mbufs "
          "or lower the descriptor counts");
    cfg = cross();
    cfg.pool.model = PoolModel::shared;
    cfg.pool.mbufs = 4096;
    CHECK(refusal(cfg) ==
          "plan.toml:14:1 pool.mbufs: 4096 mbufs in the shared pool is too few for 2 workers "
          "(worker 0 2848, worker 1 2848 = 5696); raise pool.mbufs or lower the descriptor counts");
    cfg.pool.mbufs = 5696;
    CHECK(plan_ok(cfg).workers.size() == 2);
}

TEST_CASE("plan: with device limits, too many rx queues are refused before tx is decided",
          "[plan][tx]") {
    Config cfg = fan_in();
    std::vector<PortLimits> limits(3, PortLimits{"net_pcap", 1, 1});
    auto r = build_plan(cfg, &limits);
    REQUIRE(std::holds_alternative<ConfigError>(r));
    const auto& e = std::get<ConfigError>(r);
    CHECK(e.key == "port[0].rx_queues");
    CHECK(e.line == 4);
    CHECK(e.message ==
          "port 'p0' (net_pcap) allows at most 1 rx queues but the plan needs 2; lower rx_queues "
          "for this port");
}

TEST_CASE("plan: two ports on one device are refused, PCI spelled either way", "[plan]") {
    CHECK(device_key("net_tap0,iface=a") == "net_tap0");
    CHECK(device_key("01:00.0") == "0000:01:00.0");
    CHECK(device_key("0000:0A:00.1,opt=1") == "0000:0a:00.1");
    CHECK(device_key("net_null0") != device_key("net_null1"));
    const struct {
        const char *a, *b;
        const char* device;  // nullptr: two devices, accepted
    } cases[] = {
        {"net_tap0,iface=a", "net_tap0,iface=b", "net_tap0"},
        {"net_null0", "net_null0", "net_null0"},
        {"0000:01:00.0", "01:00.0,rxq_pkt_pad_en=1", "0000:01:00.0"},
        {"0000:0a:00.0", "0A:00.0", "0000:0a:00.0"},
        {"net_tap0,iface=a", "net_tap1,iface=a", nullptr},
        {"01:00.0", "01:00.1", nullptr},
    };
    for (const auto& c : cases) {
        INFO(c.a << " " << c.b);
        Config cfg = cross();
        cfg.ports[0].devargs = c.a;
        cfg.ports[1].devargs = c.b;
        cfg.ports[1].devargs_loc = {9, 11};
        if (!c.device) {
            plan_ok(cfg);
            continue;
        }
        CHECK(refusal(cfg) == "plan.toml:9:11 port[1].devargs: port 'p1' uses device '" +
                                  std::string(c.device) +
                                  "', as port 'p0' does; each device backs one port");
    }
}

TEST_CASE("plan: the CPUs each lcore runs on, as EAL reads --lcores", "[plan][system]") {
    using Cpus = std::vector<std::vector<unsigned>>;
    CHECK(parse_lcore_list("0-2").cpus == Cpus{{0}, {1}, {2}});
    CHECK(parse_lcore_list("0@0,1@0,2@1").cpus == Cpus{{0}, {0}, {1}});
    CHECK(parse_lcore_list("0@0,(1-3)@1").cpus == Cpus{{0}, {1}, {1}, {1}});
    CHECK(parse_lcore_list("(0,6)").cpus == Cpus{{0, 6}, {0, 6}});  // a group floats over itself
    CHECK(parse_lcore_list("4@(0-1),5").cpus == Cpus{{0, 1}, {5}});
    CHECK(parse_cpu_list("0-3,8,10-11\n") == std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11});
    CHECK(parse_cpu_list("") == std::vector<unsigned>{});
    CHECK_FALSE(parse_cpu_list("0-"));
    CHECK_FALSE(parse_cpu_list("3-1"));
    CHECK_FALSE(parse_cpu_list("x"));
    CHECK(format_cpu_list({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11");
    CHECK(format_cpu_list({5}) == "5");
}

namespace {

SystemFacts two_cpus() {
    SystemFacts f;
    f.cpus = {0, 1};
    f.memory_bytes = uint64_t(4) << 30;
    return f;
}

std::string system_refusal(const Config& cfg, const SystemFacts& facts) {
    const auto e = check_against_system(cfg, facts);
    REQUIRE(e);
    return e->file + ":" + std::to_string(e->line) + ":" + std::to_string(e->column) + " " +
           e->key + ": " + e->message;
}

}  // namespace

TEST_CASE("system: lcores must run on CPUs this process may use", "[plan][system]") {
    Config cfg = cross("0-2");
    CHECK(system_refusal(cfg, two_cpus()) ==
          "plan.toml:2:10 eal.lcores: lcore 2 would run on CPU 2, which this process cannot use "
          "(it may use CPUs 0-1); use only those, or put several lcores on one CPU with "
          "lcore@cpu, e.g. \"0@0,1@0,2@1\"");
    cfg.eal.lcores_loc = {};  // the default, not in the file
    CHECK_THAT(system_refusal(cfg, two_cpus()),
               Catch::StartsWith("plan.toml:1:1 eal.lcores: lcore 2 would run on CPU 2") &&
                   Catch::EndsWith("(eal.lcores is not set, so its default \"0-2\" applies)"));
    cfg.eal.lcores = "0@0,1@0,2@1";
    CHECK_FALSE(check_against_system(cfg, two_cpus()));
    cfg.eal.lcores = "0,1,(2)@1";
    CHECK_FALSE(check_against_system(cfg, two_cpus()));
    cfg.eal.lcores = "0@0,1@1,2@(0-2)";
    CHECK_THAT(system_refusal(cfg, two_cpus()), Catch::Contains("lcore 2 would run on CPU 2,"));
    cfg.eal.lcores = "0@0,(1,3)";  // the group floats over CPUs 1 and 3
    CHECK_THAT(system_refusal(cfg, two_cpus()), Catch::Contains("lcore 1 would run on CPU 3,"));
    SystemFacts sparse = two_cpus();
    sparse.cpus = {2, 3, 5};
    cfg.eal.lcores = "2-5";
    CHECK_THAT(system_refusal(cfg, sparse),
               Catch::Contains("lcore 4 would run on CPU 4, which this process cannot use (it may "
                               "use CPUs 2-3,5)"));
    sparse.cpus.clear();  // unknown: not checked
    CHECK_FALSE(check_against_system(cfg, sparse));
}

TEST_CASE("system: memory_mb must fit the machine, or its free hugepages", "[plan][system]") {
    Config cfg = cross("0@0,1@0,2@1");
    cfg.eal.memory_mb = 4096;
    CHECK_FALSE(check_against_system(cfg, two_cpus()));
    cfg.eal.memory_mb = 4097;
    cfg.eal.memory_mb_loc = {3, 13};
    CHECK(system_refusal(cfg, two_cpus()) ==
          "plan.toml:3:13 eal.memory_mb: memory_mb 4097 is more than this machine's memory "
          "(4096 MiB); without hugepages EAL takes it from ordinary memory at start");
    cfg.eal.memory_mb = 1024;
    cfg.eal.hugepages = true;
    SystemFacts huge = two_cpus();
    huge.free_hugepage_bytes = uint64_t(512) << 20;
    CHECK(system_refusal(cfg, huge) ==
          "plan.toml:3:13 eal.memory_mb: memory_mb 1024 does not fit in this machine's free "
          "hugepages (512 MiB); reserve more (dpdk-hugepages.py --reserve) or lower memory_mb");
    huge.free_hugepage_bytes = uint64_t(1) << 30;
    CHECK_FALSE(check_against_system(cfg, huge));
    // memory_mb left at its default: the error points at hugepages, else 1:1.
    cfg.eal.memory_mb = 2048;
    cfg.eal.memory_mb_loc = {};
    cfg.eal.hugepages_loc = {4, 13};
    CHECK_THAT(system_refusal(cfg, huge), Catch::StartsWith("plan.toml:4:13 eal.memory_mb: "));
    cfg.eal.hugepages_loc = {};
    CHECK_THAT(system_refusal(cfg, huge), Catch::StartsWith("plan.toml:1:1 eal.memory_mb: "));
}

namespace {}  // namespace

TEST_CASE("system: the log file is a regular file or a character device in a directory that exists",
          "[plan][system]") {
    TempDir dir;
    const std::string fifo = dir.path + "/log.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    Config cfg = cross("0@0,1@0,2@1");
    cfg.log.file_loc = {20, 8};
    const auto refused = [&](const std::string& file) {
        cfg.log.file = file;
        return system_refusal(cfg, two_cpus());
    };
    const std::string fifo_sentence =
        "log file '" + fifo +
        "' is not a regular file (a fifo); give a regular file, or a character device such as "
        "/dev/null";
    CHECK(refused(fifo) == "plan.toml:20:8 log.file: " + fifo_sentence);
    CHECK(refused(dir.path) ==
          "plan.toml:20:8 log.file: log file '" + dir.path +
              "' is not a regular file (a directory); give a regular file, or a character device "
              "such as /dev/null");
    CHECK(refused(dir.path + "/no-dir/pmdfwd.log") ==
          "plan.toml:20:8 log.file: log file '" + dir.path + "/no-dir/pmdfwd.log': directory '" +
              dir.path + "/no-dir' does not exist");
    CHECK(refused(fifo + "/pmdfwd.log") == "plan.toml:20:8 log.file: log file '" + fifo +
                                               "/pmdfwd.log': '" + fifo +
                                               "' is not a directory (a fifo)");
    for (const std::string& ok : {dir.path + "/new.log", std::string("/dev/null")}) {
        INFO(ok);
        cfg.log.file = ok;
        CHECK_FALSE(check_against_system(cfg, two_cpus()));
    }
    CHECK_FALSE(std::filesystem::exists(dir.path + "/new.log"));  // --check creates nothing

    // At start: the same sentence, at once, with nobody reading the fifo.
    const auto start = std::chrono::steady_clock::now();
    auto st = check_log_file_openable(fifo);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
    REQUIRE_FALSE(st);
    CHECK(st.error().message == fifo_sentence);
    st = check_log_file_openable(dir.path);
    REQUIRE_FALSE(st);
    CHECK(st.error().message == log_file_problem(dir.path));
    st = check_log_file_openable(dir.path + "/no-dir/pmdfwd.log");
    REQUIRE_FALSE(st);
    CHECK(st.error().message == log_file_problem(dir.path + "/no-dir/pmdfwd.log"));
    CHECK(check_log_file_openable("/dev/null"));
    CHECK(check_log_file_openable(dir.path + "/new.log"));
    struct stat sb {};
    REQUIRE(::stat((dir.path + "/new.log").c_str(), &sb) == 0);
    CHECK(S_ISREG(sb.st_mode));
    CHECK((sb.st_mode & 0777 & ~0640) == 0);
    auto fd = open_log_file_nonblocking(dir.path + "/new.log");
    REQUIRE(fd);
    ::close(fd.value());
}

TEST_CASE("system: hugepage files an earlier run of the prefix left count as free",
          "[plan][system]") {
    Config cfg = cross("0@0,1@0,2@1");
    cfg.eal.memory_mb = 1024;
    cfg.eal.memory_mb_loc = {3, 13};
    cfg.eal.hugepages = true;
    SystemFacts huge = two_cpus();
    huge.free_hugepage_bytes = uint64_t(512) << 20;
    huge.prefix_hugepage_bytes = uint64_t(256) << 20;
    CHECK(system_refusal(cfg, huge) ==
          "plan.toml:3:13 eal.memory_mb: memory_mb 1024 does not fit in this machine's free "
          "hugepages (768 MiB, 256 MiB of them in files an earlier run of file prefix 'pmdfwd' "
          "left, which start removes); reserve more (dpdk-hugepages.py --reserve) or lower "
          "memory_mb");
    huge.prefix_hugepage_bytes = uint64_t(512) << 20;
    CHECK_FALSE(check_against_system(cfg, huge));
}

TEST_CASE("hugepage files: only a prefix's own <prefix>map_<n> files are found and removed",
          "[plan][system]") {
    CHECK(is_hugepage_file_of("pmdfwdmap_0", "pmdfwd"));
    CHECK(is_hugepage_file_of("pmdfwdmap_123456", "pmdfwd"));
    for (const char* other : {"pmdfwd-demomap_0", "pmdfwdmap_1map_0", "pmdfwdmap_", "pmdfwdmap",
                              "pmdfwdmap_1x", "xpmdfwdmap_0", "pmdfwd", "map_0"}) {
        INFO(other);
        CHECK_FALSE(is_hugepage_file_of(other, "pmdfwd"));
    }
    TempDir a, b;
    const auto write = [](const std::string& path, size_t bytes) {
        std::ofstream(path) << std::string(bytes, 'x');
    };
    write(a.path + "/pmdfwdmap_0", 100);
    write(a.path + "/pmdfwdmap_1", 100);
    write(b.path + "/pmdfwdmap_7", 50);
    write(b.path + "/pmdfwd-demomap_0", 1000);
    write(b.path + "/rtemap_0", 1000);
    const std::vector<std::string> dirs = {a.path, b.path, a.path + "/no-such-dir"};
    const HugepageFiles found = find_hugepage_files("pmdfwd", dirs);
    CHECK(found.count == 3);
    CHECK(found.bytes == 250);
    const HugepageFiles removed = remove_hugepage_files("pmdfwd", dirs);
    CHECK(removed.count == 3);
    CHECK(removed.bytes == 250);
    CHECK(find_hugepage_files("pmdfwd", dirs).count == 0);
    CHECK(std::filesystem::exists(b.path + "/pmdfwd-demomap_0"));
    CHECK(std::filesystem::exists(b.path + "/rtemap_0"));
}

TEST_CASE("system: the facts read from this machine are plausible", "[plan][system]") {
    const SystemFacts f = read_system_facts();
    CHECK_FALSE(f.cpus.empty());
    CHECK(std::is_sorted(f.cpus.begin(), f.cpus.end()));
    CHECK(f.memory_bytes > (uint64_t(64) << 20));
}

TEST_CASE("plan: --check adds up the EAL memory and refuses what memory_mb cannot hold",
          "[plan][memory]") {
    Config cfg = cross();
    // Two pools of 8192 mbufs; without hugepages each mbuf (2368 bytes with
    // its headers) takes a 4 KiB page of its own, as /eal/heap_info shows:
    // 67 MiB with rings and caches.
    CHECK(memory_line(cfg, plan_ok(cfg)) ==
          "memory: about 83 MiB of eal.memory_mb 512 (pools: 2 x 8192 mbufs (pool.mbufs) of 2176 "
          "bytes (pool.data_room) 67 MiB, EAL's own and small pools 16 MiB)");
    // With 2 MiB hugepages 885 fit a page.
    cfg.eal.hugepages = true;
    CHECK(memory_line(cfg, plan_ok(cfg)).find("of 2176 bytes (pool.data_room) 43 MiB") !=
          std::string::npos);
    cfg.eal.hugepages = false;
    cfg.eal.memory_mb = 96;
    plan_ok(cfg);
    // Past it: the error is at the key that takes the most.
    cfg.pool.mbufs = 16384;
    cfg.pool.mbufs_loc = {15, 9};
    CHECK(refusal(cfg).rfind("plan.toml:15:9 pool.mbufs: the plan needs about ", 0) == 0);
    CHECK(refusal(cfg).find("MiB of EAL memory (pools: 2 x 16384 mbufs (pool.mbufs) of 2176 bytes "
                            "(pool.data_room) 131 MiB, ") != std::string::npos);
    CHECK(refusal(cfg).find("and eal.memory_mb is 96; raise eal.memory_mb or lower pool.mbufs") !=
          std::string::npos);
    cfg.pool.mbufs = 8192;
    cfg.pool.data_room = 65535;
    cfg.pool.data_room_loc = {16, 13};
    CHECK(refusal(cfg).rfind("plan.toml:16:13 pool.data_room: ", 0) == 0);
    // Not in the file: at eal.memory_mb, where the fix goes.
    cfg.pool.data_room_loc = {};
    cfg.eal.memory_mb_loc = {3, 13};
    CHECK(refusal(cfg).rfind("plan.toml:3:13 eal.memory_mb: ", 0) == 0);
}

TEST_CASE("plan: router mode's tables count by l3.max_routes", "[plan][memory]") {
    L3Config l3;
    const auto table_mib = [&](uint32_t max_routes) {
        Config cfg = cross();
        cfg.forward.mode = ForwardMode::l3;
        cfg.forward.pairs.clear();
        cfg.l3.max_routes = max_routes;
        Plan plan;
        plan.workers.resize(2);
        for (const MemoryPart& p : plan_memory(cfg, plan))
            if (p.key == "l3.max_routes") return p.bytes >> 20;
        return uint64_t(0);
    };
    // Each family's tbl24 64 MiB and 33,791 groups of 1 KiB, and the rib
    // nodes: 2 per route of each family, 211 B each.
    CHECK(table_mib(l3.max_routes) >= 238);
    CHECK(table_mib(l3.max_routes) <= 250);
    // 16 million routes: the rib nodes (6.6 GiB a family) and the groups.
    CHECK(table_mib(1 << 24) > 3000);
}
