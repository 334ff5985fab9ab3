// pmdctl's pure parts: socket path rules (as dpdk-telemetry.py), greeting and
// reply parsing, human units, table alignment, the command renderers on fixed
// records, and watch rates. No socket, no EAL.
#include <catch2/catch.hpp>
#include <iterator>

#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "telemetry_client.hpp"
#include "units.hpp"

using namespace pmdctl;
using pmdfwd::human_bytes;
using pmdfwd::human_count;
using pmdfwd::human_duration;
using pmdfwd::human_ns;
using pmdfwd::percent;

namespace {

RuntimeEnv env(std::optional<std::string> runtime, std::optional<std::string> xdg, bool root) {
    RuntimeEnv e;
    e.runtime_directory = std::move(runtime);
    e.xdg_runtime_dir = std::move(xdg);
    e.is_root = root;
    return e;
}

// A worker record shaped like lib/records/stats_records.cpp's worker_record(): every
// worker keeps rx_pkts + handoff_in == tx_pkts + drops + handoff_out.
Json worker_record(uint64_t id, uint64_t rx, uint64_t drops_tx_full, uint64_t handoff_out = 0,
                   uint64_t handoff_in = 0) {
    const uint64_t tx = rx + handoff_in - drops_tx_full - handoff_out;
    return Json{{"worker", id},
                {"lcore", id + 1},
                {"rx_port", id ? "p1" : "p0"},
                {"rx_queue", 0},
                {"tx_port", id ? "p0" : "p1"},
                {"tx_queue", 0},
                {"rx_pkts", rx},
                {"rx_bytes", rx * 64},
                {"tx_pkts", tx},
                {"tx_bytes", tx * 64},
                {"drops", drops_tx_full},
                {"drop_tx_full", drops_tx_full},
                {"drop_handoff_full", 0},
                {"drop_no_route", 0},
                {"drop_runt", 0},
                {"handoff_out", handoff_out},
                {"handoff_in", handoff_in},
                {"polls", 1000},
                {"empty_polls", 250},
                {"busy_tsc", 7000},
                {"idle_tsc", 3000},
                {"cycles_per_pkt", 41},
                {"busy_permille", 700},
                {"burst_1", 10},
                {"burst_2_3", 0},
                {"burst_512_up", 0},
                {"full_bursts", 740}};
}

// The recycle counters, as Appliance::worker() adds them under model
// "recycle" (the worker table's recycle group, in its order).
void add_worker_recycle(Json& w, std::vector<uint64_t> values) {
    const auto fields = pmdfwd::kWorkerRecord.group("recycle");
    REQUIRE(values.size() == fields.size());
    for (size_t i = 0; i < values.size(); ++i) w[std::string(fields[i].key)] = values[i];
}

// A pool record shaped like pool_record() plus Appliance::pool()'s "ops".
Json stock_pool(const std::string& name, uint64_t size, uint64_t in_use) {
    return Json{{"name", name},
                {"socket", 0},
                {"size", size},
                {"cache_size", 256},
                {"avail", size - in_use},
                {"in_use", in_use},
                {"present_unclamped", size - in_use},
                {"ops", "ring_mp_mc"}};
}

// A recycle pool: the stock fields, then owner, free levels and counters.
Json recycle_pool(const std::string& name, uint64_t owner, uint64_t in_use,
                  std::vector<uint64_t> counts) {
    Json p = stock_pool(name, 8192, in_use);
    p["ops"] = "pmdfwd_recycle";
    p["owner_lcore"] = owner;
    p["free_owner_store"] = 6000;
    p["free_pending"] = 32;
    p["free_defer_rings"] = 1024;
    p["free_shared_ring"] = 0;
    p["overflow"] = 0;
    const auto fields = pmdfwd::kPoolRecord.group("recycle");
    REQUIRE(counts.size() == fields.size());
    for (size_t i = 0; i < counts.size(); ++i) p[std::string(fields[i].key)] = counts[i];
    return p;
}

// A /pmdfwd/log dict shaped like NetlogChannel::stats(): 1224 sends timed,
// 42 datagrams dropped (30 by the token bucket, 10 finding the channel busy,
// 2 refused by the TX queue), the pre-filled stack ran dry 3 times. The
// percentiles are what HistogramView::percentile_ns gives for these buckets.
Json log_record() {
    return Json{{"enabled", "true"},
                {"port", "p0"},
                {"queue", 1},
                {"src", "10.0.0.1:6665"},
                {"dst", "10.0.0.2:6666"},
                {"dst_mac", "02:00:00:00:00:02"},
                {"format", "extended"},
                {"level", "info"},
                {"send_path", "pool-first"},
                {"rate_limit", 2000},
                {"records", 1200},
                {"datagrams", 1250},
                {"bytes", 312000},
                {"dropped", 42},
                {"drop_rate_limited", 30},
                {"drop_busy", 10},
                {"drop_no_buffer", 0},
                {"drop_tx_full", 2},
                {"drop_stopped", 0},
                {"reserve_size", 512},
                {"reserve_free", 448},
                {"prefill_target", 64},
                {"prefilled", 60},
                {"refilled", 1190},
                {"inline_refills", 0},
                {"reserve_allocs", 3},
                {"emergency_sends", 0},
                {"truncated", 3},
                {"latency_count", 1224},
                {"latency_sum_ns", 492048},
                {"latency_min_ns", 150},
                {"latency_avg_ns", 402},
                {"latency_p50_ns", 447},
                {"latency_p90_ns", 639},
                {"latency_p99_ns", 1791},
                {"latency_p999_ns", 5210},
                {"latency_max_ns", 5210},
                {"latency_le_ns", {191, 447, 639, 1791, 3583, 5631}},
                {"latency_buckets", {12, 980, 200, 30, 0, 2}}};
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

TEST_CASE("human units keep three significant digits", "[pmdctl]") {
    CHECK(human_count(0) == "0");
    CHECK(human_count(999) == "999");
    CHECK(human_count(1000) == "1.00K");
    CHECK(human_count(1234) == "1.23K");
    CHECK(human_count(12345) == "12.3K");
    CHECK(human_count(123456) == "123K");
    CHECK(human_count(999499) == "999K");
    CHECK(human_count(999500) == "1.00M");  // rounds up a suffix, never "1000K"
    CHECK(human_count(9996) == "10.0K");    // never "10.00K"
    CHECK(human_count(1230000) == "1.23M");
    CHECK(human_count(UINT64_MAX) == "18.4E");
    CHECK(human_bytes(512) == "512B");
    CHECK(human_bytes(1500) == "1.50KB");
    CHECK(percent(1, 3) == "33.3%");
    CHECK(percent(1, 0) == "-");
    CHECK(human_duration(7) == "7s");
    CHECK(human_duration(245) == "4m05s");
    CHECK(human_duration(3723) == "1h02m03s");
}

TEST_CASE("nanoseconds in human units", "[pmdctl]") {
    CHECK(human_ns(0) == "0ns");
    CHECK(human_ns(511) == "511ns");
    CHECK(human_ns(999) == "999ns");
    CHECK(human_ns(1000) == "1.00us");
    CHECK(human_ns(1023) == "1.02us");  // a bucket's upper edge reads as the next bound
    CHECK(human_ns(1024) == "1.02us");
    CHECK(human_ns(16384) == "16.4us");
    CHECK(human_ns(999499) == "999us");
    CHECK(human_ns(999500) == "1.00ms");
    CHECK(human_ns(1048576) == "1.05ms");
    CHECK(human_ns(uint64_t(1) << 31) == "2.15s");
    CHECK(human_ns(999'499'999'999) == "999s");
    CHECK(human_ns(999'500'000'000) == "1000s");  // never "1.00Ts"
    CHECK(human_ns(UINT64_MAX) == "18446744074s");
}

TEST_CASE("tables pad columns and trim the line end", "[pmdctl]") {
    Table t;
    t.columns = {{"name", Align::kLeft}, {"pkts"}, {"note", Align::kLeft}};
    t.rows = {{"p0", "1.23M", "x"}, {"wan0", "7", ""}};
    CHECK(t.render() ==
          "name   pkts  note\n"
          "p0    1.23M  x\n"
          "wan0      7\n");
    t.show_header = false;
    CHECK(t.render() ==
          "p0    1.23M  x\n"
          "wan0      7\n");
}

TEST_CASE("show ports: table plus every other field", "[pmdctl]") {
    const std::vector<Json> ports = {
        Json{{"index", 0},
             {"name", "p0"},
             {"port_id", 0},
             {"devargs", "net_null0"},
             {"driver", "net_null"},
             {"mac", "02:00:00:00:00:01"},
             {"link", "up"},
             {"speed_mbps", 10000},
             {"mtu", 1500},
             {"rx_queues", 1},
             {"tx_queues", 1},
             {"ipackets", 1234567},
             {"opackets", 999},
             {"ibytes", 0},
             {"obytes", 0},
             {"imissed", 0},
             {"ierrors", 0},
             {"oerrors", 0},
             {"rx_nombuf", 12}},
        Json{{"index", 1},
             {"name", "wan0"},
             {"driver", "net_tap"},
             {"link", "down"},
             {"speed_mbps", 0},
             {"ipackets", 5},
             {"opackets", 6},
             {"ibytes", 2500000},
             {"obytes", 300},
             {"imissed", 0},
             {"ierrors", 1},
             {"oerrors", 0},
             {"rx_nombuf", 0},
             {"new_field", "shown"}},
    };
    CHECK(
        render_ports(ports) ==
        "port  driver    link    rx_pkts  tx_pkts  rx_bytes  tx_bytes  imissed  ierrors  oerrors  "
        "rx_nombuf\n"
        "p0    net_null  up 10G    1.23M      999        0B        0B        0        0        0  "
        "       12\n"
        "wan0  net_tap   down          5        6    2.50MB      300B        0        1        0  "
        "        0\n"
        "\n"
        "  p0: index=0 port_id=0 devargs=net_null0 mac=02:00:00:00:00:01 mtu=1500 rx_queues=1 "
        "tx_queues=1\n"
        "  wan0: index=1 new_field=shown\n");
    CHECK(render_ports({}) == "no ports\n");
}

TEST_CASE("tables can put a word over a header", "[pmdctl]") {
    Table t;
    t.columns = {{"pool", Align::kLeft}, {"fast", Align::kRight, "alloc"}, {"recycled"}};
    t.rows = {{"w0", "1.25M", "7"}};
    CHECK(t.render() ==
          "      alloc\n"
          "pool   fast  recycled\n"
          "w0    1.25M         7\n");
}

TEST_CASE("show workers: table, drop reasons, burst sizes, other counters", "[pmdctl]") {
    const std::vector<Json> workers = {worker_record(0, 2000000, 0), worker_record(1, 500, 20)};
    const std::string out = render_workers(workers);
    CHECK(out ==
          "worker  lcore  rx -> tx      rx_pkts  tx_pkts  drops  handoff_out  handoff_in  empty%  "
          "busy%  cyc/pkt\n"
          "     0      1  p0/0 -> p1/0    2.00M    2.00M      0            0           0   25.0%  "
          "70.0%       41\n"
          "     1      2  p1/0 -> p0/0      500      480     20            0           0   25.0%  "
          "70.0%       41\n"
          "\n"
          "drops by reason:\n"
          "worker  tx_full\n"
          "     1       20\n"
          "\n"
          "rx burst sizes (polls that returned packets):\n"
          "worker   1  2-3  512+  full\n"
          "     0  10    0     0   740\n"
          "     1  10    0     0   740\n"
          "\n"
          "other counters:\n"
          "  worker 0: rx_bytes=128000000 tx_bytes=128000000 busy_tsc=7000 idle_tsc=3000\n"
          "  worker 1: rx_bytes=32000 tx_bytes=30720 busy_tsc=7000 idle_tsc=3000\n");
    // No per-worker in_flight any more, and no recycle table without recycle fields.
    CHECK(out.find("in_flight") == std::string::npos);
    CHECK(out.find("recycle") == std::string::npos);

    const std::string clean = render_workers({worker_record(0, 10, 0)});
    CHECK(clean.find("drops by reason: none\n") != std::string::npos);
    CHECK(render_workers({}) == "no workers\n");
}

TEST_CASE("show workers: handoff and the recycle counters of each lcore", "[pmdctl]") {
    // config/null-handoff.toml: worker 0 polls p0 and hands every burst to
    // worker 1, the owner of p1's only TX queue; 32 packets are still in its
    // handoff ring, 5 found the ring full.
    Json w0 = worker_record(0, 3000005, 0, 3000000, 0);
    w0["drops"] = 5;
    w0["drop_handoff_full"] = 5;
    w0["tx_pkts"] = 0;
    w0["tx_bytes"] = 0;
    Json w1 = worker_record(1, 0, 0, 0, 2999968);
    w1["tx_port"] = "p1";
    // Worker 0's lcore owns pool w0: it allocates and refills from the defer
    // ring; worker 1's lcore frees w0's mbufs after TX, so it defers them.
    add_worker_recycle(w0, {2990000, 10005, 0, 2900000, 128, 5, 0, 0, 0, 0, 0});
    add_worker_recycle(w1, {0, 0, 0, 0, 0, 0, 2999936, 64, 0, 0, 0});

    const std::string out = render_workers({w0, w1});
    CHECK(out ==
          "worker  lcore  rx -> tx      rx_pkts  tx_pkts  drops  handoff_out  handoff_in  empty%  "
          "busy%  cyc/pkt\n"
          "     0      1  p0/0 -> p1/0    3.00M        0      5        3.00M           0   25.0%  "
          "70.0%       41\n"
          "     1      2  p1/0 -> p1/0        0    3.00M      0            0       3.00M   25.0%  "
          "70.0%       41\n"
          "\n"
          "drops by reason:\n"
          "worker  handoff_full\n"
          "     0             5\n"
          "\n"
          "rx burst sizes (polls that returned packets):\n"
          "worker   1  2-3  512+  full\n"
          "     0  10    0     0   740\n"
          "     1  10    0     0   740\n"
          "\n"
          "recycle counters on each worker's lcore (since the last clear):\n"
          "        alloc  alloc  refill  refill                      defer\n"
          "worker   fast   slow   defer  shared  recycled  deferred   full\n"
          "     0  2.99M  10.0K   2.90M     128         5         0      0\n"
          "     1      0      0       0       0         0     3.00M     64\n"
          "  zero on every worker: alloc_empty shared_put foreign_alloc foreign_fail\n"
          "\n"
          "other counters:\n"
          "  worker 0: rx_bytes=192000320 tx_bytes=0 busy_tsc=7000 idle_tsc=3000\n"
          "  worker 1: rx_bytes=0 tx_bytes=191997952 busy_tsc=7000 idle_tsc=3000\n");

    // A counter off the main list gets a column once it is non-zero.
    w1["recycle_foreign_alloc"] = 7;
    const std::string foreign = render_workers({w0, w1});
    CHECK(foreign.find("        alloc  alloc  refill  refill                      defer  foreign\n"
                       "worker   fast   slow   defer  shared  recycled  deferred   full    alloc\n"
                       "     0  2.99M  10.0K   2.90M     128         5         0      0        0\n"
                       "     1      0      0       0       0         0     3.00M     64        7\n"
                       "  zero on every worker: alloc_empty shared_put foreign_fail\n") !=
          std::string::npos);
}

TEST_CASE("every recycle counter gets a column once it is non-zero", "[pmdctl]") {
    // The list is the worker table's: a counter added there needs no pmdctl change.
    for (const auto& info : pmdfwd::kWorkerRecord.group("recycle")) {
        INFO(info.key);
        const std::string name(info.header());
        const size_t cut = name.find('_');
        const std::string over = cut == std::string::npos ? "" : name.substr(0, cut);
        const std::string header = cut == std::string::npos ? name : name.substr(cut + 1);
        const Json w{{"worker", 0}, {std::string(info.key), 4242}};
        const std::string out = render_workers({w});
        const size_t at = out.find("recycle counters on each worker's lcore");
        REQUIRE(at != std::string::npos);
        const std::string table = out.substr(at);
        // Right-aligned to the widest of the two header words and "4.24K".
        const size_t width = std::max({over.size(), header.size(), size_t(5)});
        const auto pad = [&](const std::string& cell) {
            return std::string(width - cell.size(), ' ') + cell + "\n";
        };
        const std::string lines = (over.empty() ? "" : "        " + pad(over)) + "worker  " +
                                  pad(header) + "     0  " + pad("4.24K");
        CHECK(table.find(":\n" + lines) != std::string::npos);
        CHECK(out.find("recycle_") == std::string::npos);  // not left to "other counters"
    }
}

TEST_CASE("show workers: an unpaired worker and missing fields", "[pmdctl]") {
    Json w{{"worker", 3}, {"lcore", 4}, {"rx_port", "lan"}, {"rx_queue", 1}, {"tx_port", "-"}};
    CHECK(render_workers({w}) ==
          "worker  lcore  rx -> tx    rx_pkts  tx_pkts  drops  handoff_out  handoff_in  empty%  "
          "busy%  cyc/pkt\n"
          "     3      4  lan/1 -> -        -        -      -            -           -       -  "
          "    -        -\n"
          "\n"
          "drops by reason: none\n");
}

TEST_CASE("show pools: stock pools", "[pmdctl]") {
    const std::vector<Json> pools = {stock_pool("pf_w0", 8192, 32), stock_pool("pf_w1", 8192, 29)};
    CHECK(render_pools(pools) ==
          "name   ops         owner  socket  size  cache_size  avail  in_use  use%  "
          "present_unclamped\n"
          "pf_w0  ring_mp_mc      -       0  8192         256   8160      32  0.4%  "
          "             8160\n"
          "pf_w1  ring_mp_mc      -       0  8192         256   8163      29  0.4%  "
          "             8163\n");
    CHECK(render_pools({}) == "no pools\n");
}

TEST_CASE("show pools: the first line says which pool model runs and why", "[pmdctl]") {
    Json info = {
        {"mode", "patch"}, {"pool_model", "per-worker-stock"}, {"pool_model_source", "default"}};
    CHECK(render_pool_model(info) ==
          "pool model: per-worker-stock, the default: recycle costs more than a stock pool where "
          "buffers are freed on another core (docs/performance.md, \"The handoff step by "
          "step\")\n\n");
    info["pool_model"] = "recycle";
    info["pool_model_source"] = "config";
    CHECK(render_pool_model(info) == "pool model: recycle, set by [pool] model in the config\n\n");
    CHECK(render_pool_model(Json::object()).empty());  // an older pmdfwd: no line
}

TEST_CASE("show pools: recycle pools next to a stock pool", "[pmdctl]") {
    // alloc_fast alloc_slow alloc_empty refill_defer refill_shared recycled
    // deferred defer_full shared_put foreign_alloc foreign_fail
    Json w0 =
        recycle_pool("pf_w0", 1, 1136, {2990000, 10005, 0, 2900000, 128, 5, 2999936, 64, 0, 0, 0});
    Json w1 = recycle_pool("pf_w1", 2, 0, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    w1["free_owner_store"] = 8192;
    w1["free_pending"] = 0;
    w1["free_defer_rings"] = 0;
    Json spare = stock_pool("pf_spare1", 1024, 512);
    spare["new_field"] = "shown";
    const std::string out = render_pools({w0, w1, spare});
    CHECK(out ==
          "name       ops             owner  socket  size  cache_size  avail  in_use   use%  "
          "present_unclamped\n"
          "pf_w0      pmdfwd_recycle      1       0  8192         256   7056    1136  13.9%  "
          "             7056\n"
          "pf_w1      pmdfwd_recycle      2       0  8192         256   8192       0   0.0%  "
          "             8192\n"
          "pf_spare1  ring_mp_mc          -       0  1024         256    512     512  50.0%  "
          "              512\n"
          "\n"
          "recycle counters (since the last clear):\n"
          "           alloc  alloc  refill  refill                      defer      in\n"
          "pool        fast   slow   defer  shared  recycled  deferred   full  flight\n"
          "pf_w0      2.99M  10.0K   2.90M     128         5     3.00M     64    1136\n"
          "pf_w1          0      0       0       0         0         0      0       0\n"
          "pf_spare1      -      -       -       -         -         -      -     512\n"
          "  zero on every pool: alloc_empty shared_put foreign_alloc foreign_fail\n"
          "\n"
          "free objects by place:\n"
          "           owner           defer  shared\n"
          "pool       store  pending  rings    ring  overflow\n"
          "pf_w0       6000       32   1024       0         0\n"
          "pf_w1       8192        0      0       0         0\n"
          "pf_spare1      -        -      -       -         -\n"
          "\n"
          "other fields:\n"
          "  pf_spare1: new_field=shown\n");

    // A pool that ran dry: alloc_empty gets its column, the others stay named.
    w1["alloc_empty"] = 3;
    const std::string dry = render_pools({w0, w1, spare});
    CHECK(dry.find(
              "           alloc  alloc  alloc  refill  refill                      defer      in\n"
              "pool        fast   slow  empty   defer  shared  recycled  deferred   full  flight\n"
              "pf_w0      2.99M  10.0K      0   2.90M     128         5     3.00M     64    1136\n"
              "pf_w1          0      0      3       0       0         0         0      0       0\n"
              "pf_spare1      -      -      -       -       -         -         -      -     512\n"
              "  zero on every pool: shared_put foreign_alloc foreign_fail\n") !=
          std::string::npos);
}

TEST_CASE("show plan and stats", "[pmdctl]") {
    const Json info{
        {"version", "0.1.0"}, {"mode", "patch"}, {"pool_model", "recycle"}, {"uptime_s", 3723}};
    const Json plan = Json::array({"mode patch, burst 32", "worker 0 on lcore 1"});
    CHECK(render_plan(info, plan) ==
          "version     0.1.0\n"
          "mode        patch\n"
          "pool_model  recycle\n"
          "uptime_s    3723 (1h02m03s)\n"
          "\n"
          "plan:\n"
          "  mode patch, burst 32\n"
          "  worker 0 on lcore 1\n");

    // Shaped like totals_record(): in_flight last, rx == tx + drops + in_flight.
    const Json totals{{"workers", 2},       {"rx_pkts", 2000500},    {"rx_bytes", 128032000},
                      {"tx_pkts", 2000448}, {"drops", 20},           {"handoff_out", 1500},
                      {"handoff_in", 1468}, {"busy_permille", 1000}, {"in_flight", 32}};
    CHECK(render_stats(totals, {worker_record(0, 2000000, 0, 1500, 0),
                                worker_record(1, 500, 20, 0, 1468)}) ==
          "totals:\n"
          "workers                2\n"
          "rx_pkts          2000500  2.00M\n"
          "rx_bytes       128032000  128MB\n"
          "tx_pkts          2000448  2.00M\n"
          "drops                 20\n"
          "handoff_out         1500  1.50K\n"
          "handoff_in          1468  1.47K\n"
          "busy_permille       1000\n"
          "in_flight             32\n"
          "\n"
          "per worker:\n"
          "worker 0  lcore 1  p0/0 -> p1/0  rx  2.00M  tx  2.00M  drops   0  handoff out  1.50K  "
          "in      0  busy  70.0%\n"
          "worker 1  lcore 2  p1/0 -> p0/0  rx    500  tx  1.95K  drops  20  handoff out      0  "
          "in  1.47K  busy  70.0%\n");
}

TEST_CASE("watch rates from two snapshots", "[pmdctl]") {
    Snapshot a{10.0, {{0, 1000, 64000, 900, 57600, 100}, {1, 0, 0, 0, 0, 0}}};
    Snapshot b{10.5,
               {{0, 3001000, 192064000, 3000900, 192057600, 600}, {1, 500000, 0, 500000, 0, 0}}};
    const auto rows = compute_rates(a, b);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].worker == 0u);
    CHECK(rows[0].rx_pkts == 3000000);
    CHECK(rows[0].rx_mpps == Approx(6.0));
    CHECK(rows[0].tx_mpps == Approx(6.0));
    CHECK(rows[0].rx_gbps == Approx(3.072));  // 192e6 bytes * 8 / 0.5 s
    CHECK(rows[0].drops_per_s == Approx(1000));
    CHECK(rows[1].rx_mpps == Approx(1.0));
    CHECK(rows[1].rx_gbps == 0);  // net_null-style: packets but no bytes
    CHECK_FALSE(rows[2].worker.has_value());
    CHECK(rows[2].rx_mpps == Approx(7.0));
    CHECK(rows[2].drops == 500);

    CHECK(render_rates(rows, 10.5, 0.5) ==
          "t=10.50s  interval 0.50s\n"
          "worker  rx Mpps  tx Mpps  rx Gbit/s  tx Gbit/s  drops/s\n"
          "0         6.000    6.000      3.072      3.072    1.00K\n"
          "1         1.000    1.000      0.000      0.000        0\n"
          "total     7.000    7.000      3.072      3.072    1.00K\n");

    const Json j = rates_json(rows, 10.5, 0.5);
    CHECK(j["workers"].size() == 2);
    CHECK(j["workers"][0]["worker"] == 0);
    CHECK(j["workers"][0]["rx_pkts"] == 3000000);
    CHECK(j["total"]["rx_mpps"].get<double>() == Approx(7.0));
    CHECK_FALSE(j["total"].contains("worker"));
}

TEST_CASE("watch rates across a clear, a new worker and a zero interval", "[pmdctl]") {
    Snapshot a{1.0, {{0, 5000, 0, 5000, 0, 10}}};
    // Counters went down: cleared in between, so the new values are the deltas.
    Snapshot b{2.0, {{0, 300, 0, 300, 0, 0}, {7, 100, 0, 100, 0, 0}}};
    auto rows = compute_rates(a, b);
    REQUIRE(rows.size() == 2);  // worker 7 has no baseline yet
    CHECK(rows[0].rx_pkts == 300);
    CHECK(rows[0].drops == 0);
    CHECK(rows[1].rx_pkts == 300);

    rows = compute_rates(b, b);
    CHECK(rows.back().rx_mpps == 0);
}

TEST_CASE("worker counters come from the record by name", "[pmdctl]") {
    const auto c = worker_counters(worker_record(1, 500, 20));
    CHECK(c.worker == 1);
    CHECK(c.rx_pkts == 500);
    CHECK(c.tx_bytes == 480 * 64);
    CHECK(c.drops == 20);
    CHECK(worker_counters(Json::object()).rx_pkts == 0);
}

TEST_CASE("show log: the channel is off", "[pmdctl]") {
    CHECK(render_log(Json{{"enabled", "false"}}) ==
          "log channel: off (set [netlog] enabled = true)\n");
}

TEST_CASE("show log: summary, drops by reason, latency histogram", "[pmdctl]") {
    CHECK(render_log(log_record()) ==
          "destination  10.0.0.2:6666 (02:00:00:00:00:02) from 10.0.0.1:6665 via p0 txq 1\n"
          "format       extended\n"
          "level        info\n"
          "send path    pool-first\n"
          "rate limit   2000 datagrams/s\n"
          "sent         1.20K records, 1.25K datagrams, 312KB\n"
          "truncated    3 records cut to fit 8191 bytes\n"
          "dropped      42: rate_limited 30, busy 10, tx_full 2\n"
          "reserve      448/512 free\n"
          "pre-filled   60/64, refilled 1.19K, inline refills 0, reserve allocs 3\n"
          "emergency    0 sends\n"
          "\n"
          "send latency (1.22K datagrams, each from taking its buffer to the TX queue):\n"
          "<= 191ns    12 |                                        |\n"
          "<= 447ns   980 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
          "<= 639ns   200 |@@@@@@@@                                |\n"
          "<= 1.79us   30 |@                                       |\n"
          "<= 3.58us    0 |                                        |\n"
          "<= 5.63us    2 |                                        |\n"
          "p50 <= 447ns  p90 <= 639ns  p99 <= 1.79us  max 5.21us  avg 402ns\n"
          "(p50/p90/p99: the upper edge of the bucket the percentile falls in, within 25%)\n");

    // Nothing sent yet, no limit, and a field this pmdctl does not know.
    Json idle = log_record();
    for (const char* key :
         {"records", "datagrams", "bytes", "truncated", "dropped", "drop_rate_limited", "drop_busy",
          "drop_tx_full", "refilled", "reserve_allocs", "latency_count", "latency_sum_ns",
          "latency_min_ns", "latency_avg_ns", "latency_p50_ns", "latency_p90_ns", "latency_p99_ns",
          "latency_p999_ns", "latency_max_ns"})
        idle[key] = 0;
    idle["latency_le_ns"] = Json::array();
    idle["latency_buckets"] = Json::array();
    idle["rate_limit"] = 0;
    idle["send_path"] = "alloc-first";
    idle["inline_refills"] = 64;
    idle["new_field"] = 7;
    CHECK(render_log(idle) ==
          "destination  10.0.0.2:6666 (02:00:00:00:00:02) from 10.0.0.1:6665 via p0 txq 1\n"
          "format       extended\n"
          "level        info\n"
          "send path    alloc-first\n"
          "rate limit   none\n"
          "sent         0 records, 0 datagrams, 0B\n"
          "truncated    0 records cut to fit 8191 bytes\n"
          "dropped      0\n"
          "reserve      448/512 free\n"
          "pre-filled   60/64, refilled 0, inline refills 64, reserve allocs 0\n"
          "emergency    0 sends\n"
          "\n"
          "send latency: no sends yet\n"
          "\n"
          "other fields:\n"
          "  log: new_field=7\n");
}

TEST_CASE("show log: every netlog drop reason is named once non-zero", "[pmdctl]") {
    // The list is the log record's table: a reason added there needs no pmdctl change.
    for (const auto& f : pmdfwd::kLogRecord.group("drops")) {
        const std::string reason(f.member);
        INFO(reason);
        Json log = log_record();
        for (auto& [key, value] : log.items())
            if (key.starts_with("drop_")) value = 0;
        log["drop_" + reason] = 4242;
        log["dropped"] = 4242;
        const std::string out = render_log(log);
        CHECK(out.find("\ndropped      4.24K: " + reason + " 4.24K\n") != std::string::npos);
        CHECK(out.find("drop_") == std::string::npos);  // not left to "other fields"
    }
}

TEST_CASE("show latency: per-worker percentiles and histogram bars", "[pmdctl][latency]") {
    const Json w0{{"worker", 0},
                  {"rx_port", "a"},
                  {"rx_queue", 0},
                  {"poll", "busy"},
                  {"enabled", "true"},
                  {"residence_count", 1500},
                  {"residence_sum_ns", 2700000},
                  {"residence_min_ns", 250},
                  {"residence_avg_ns", 1800},
                  {"residence_p50_ns", 1500},
                  {"residence_p90_ns", 3000},
                  {"residence_p99_ns", 12000},
                  {"residence_p999_ns", 40000},
                  {"residence_max_ns", 2500000},
                  {"residence_le_ns", {1500, 3000}},
                  {"residence_buckets", {1000, 500}}};
    CHECK(render_latency({w0}, false) ==
          "residence time since the last clear: from a packet's rx burst to the end of that "
          "burst's transmit\n"
          "worker  rx   poll   pkts    min     avg     p50     p90     p99   p99.9     max\n"
          "     0  a/0  busy  1.50K  250ns  1.80us  1.50us  3.00us  12.0us  40.0us  2.50ms\n"
          "(percentiles: the upper edge of their bucket, within 25%)\n");
    const std::string with_bars = render_latency({w0}, true);
    CHECK(with_bars.find("\nworker 0:\n<= 1.50us  1000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
                         "<= 3.00us   500 |@@@@@@@@@@@@@@@@@@@@                    |\n") !=
          std::string::npos);
    Json off = w0;
    off["enabled"] = "false";
    CHECK(render_latency({off}, false).find("latency is off") != std::string::npos);
    CHECK(render_latency({}, false) == "no workers\n");
}

TEST_CASE("show workers: the poll mode and time split", "[pmdctl][poll]") {
    Json w = worker_record(0, 1000, 0);
    w["poll"] = "adaptive";
    w["busy_permille"] = 100;
    w["idle_permille"] = 50;
    w["sleep_permille"] = 850;
    w["wakeups"] = 1234;
    w["cpu_permille"] = 31;
    w["cpu_ns"] = 5000;
    const std::string out = render_workers({w});
    CHECK(out.find("worker  poll      busy%  spin%  sleep%  wakeups  cpu%\n"
                   "     0  adaptive  10.0%   5.0%   85.0%    1.23K  3.1%\n") != std::string::npos);
    // Behind cpu%, so not repeated as "other".
    CHECK(out.find("cpu_ns=") == std::string::npos);
}
