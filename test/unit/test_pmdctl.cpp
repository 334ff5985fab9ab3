// pmdctl's pure parts: socket path rules (as dpdk-telemetry.py), greeting and
// reply parsing, human units, table alignment, the command renderers on fixed
// records, and watch rates. No socket, no EAL.
#include <catch2/catch.hpp>

#include "render.hpp"
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

// A worker record shaped like lib/stats_records.cpp's worker_record().
Json worker_record(uint64_t id, uint64_t rx, uint64_t drops_tx_full) {
    return Json{{"worker", id},
                {"lcore", id + 1},
                {"rx_port", id ? "p1" : "p0"},
                {"rx_queue", 0},
                {"tx_port", id ? "p0" : "p1"},
                {"tx_queue", 0},
                {"rx_pkts", rx},
                {"rx_bytes", rx * 64},
                {"tx_pkts", rx - drops_tx_full},
                {"tx_bytes", (rx - drops_tx_full) * 64},
                {"drops", drops_tx_full},
                {"drop_tx_full", drops_tx_full},
                {"drop_no_route", 0},
                {"in_flight", 0},
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

TEST_CASE("show workers: table, drop reasons, burst sizes, other counters", "[pmdctl]") {
    const std::vector<Json> workers = {worker_record(0, 2000000, 0), worker_record(1, 500, 20)};
    const std::string out = render_workers(workers);
    CHECK(out ==
          "worker  lcore  rx -> tx      rx_pkts  tx_pkts  drops  empty%  busy%  cyc/pkt\n"
          "     0      1  p0/0 -> p1/0    2.00M    2.00M      0   25.0%  70.0%       41\n"
          "     1      2  p1/0 -> p0/0      500      480     20   25.0%  70.0%       41\n"
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
          "  worker 0: rx_bytes=128000000 tx_bytes=128000000 in_flight=0 busy_tsc=7000 "
          "idle_tsc=3000\n"
          "  worker 1: rx_bytes=32000 tx_bytes=30720 in_flight=0 busy_tsc=7000 idle_tsc=3000\n");

    const std::string clean = render_workers({worker_record(0, 10, 0)});
    CHECK(clean.find("drops by reason: none\n") != std::string::npos);
    CHECK(render_workers({}) == "no workers\n");
}

TEST_CASE("show workers: an unpaired worker and missing fields", "[pmdctl]") {
    Json w{{"worker", 3}, {"lcore", 4}, {"rx_port", "lan"}, {"rx_queue", 1}, {"tx_port", "-"}};
    CHECK(render_workers({w}) ==
          "worker  lcore  rx -> tx    rx_pkts  tx_pkts  drops  empty%  busy%  cyc/pkt\n"
          "     3      4  lan/1 -> -        -        -      -       -      -        -\n"
          "\n"
          "drops by reason: none\n");
}

TEST_CASE("show pools: every field, plus use%", "[pmdctl]") {
    const std::vector<Json> pools = {Json{{"name", "pf_w0"},
                                          {"socket", 0},
                                          {"size", 8192},
                                          {"cache_size", 256},
                                          {"avail", 8160},
                                          {"in_use", 32},
                                          {"present_unclamped", 8160}}};
    CHECK(render_pools(pools) ==
          "name   socket  size  cache_size  avail  in_use  use%  present_unclamped\n"
          "pf_w0       0  8192         256   8160      32  0.4%               8160\n");
}

TEST_CASE("show plan and stats", "[pmdctl]") {
    const Json info{{"version", "0.1.0"}, {"mode", "patch"}, {"uptime_s", 3723}};
    const Json plan = Json::array({"mode patch, burst 32", "worker 0 on lcore 1"});
    CHECK(render_plan(info, plan) ==
          "version   0.1.0\n"
          "mode      patch\n"
          "uptime_s  3723 (1h02m03s)\n"
          "\n"
          "plan:\n"
          "  mode patch, burst 32\n"
          "  worker 0 on lcore 1\n");

    const Json totals{{"workers", 2},
                      {"rx_pkts", 2000500},
                      {"rx_bytes", 128032000},
                      {"drops", 20},
                      {"busy_permille", 1000}};
    CHECK(render_stats(totals, {worker_record(0, 2000000, 0), worker_record(1, 500, 20)}) ==
          "totals:\n"
          "workers                2\n"
          "rx_pkts          2000500  2.00M\n"
          "rx_bytes       128032000  128MB\n"
          "drops                 20\n"
          "busy_permille       1000\n"
          "\n"
          "per worker:\n"
          "worker 0  lcore 1  p0/0 -> p1/0  rx  2.00M  tx  2.00M  drops   0  busy  70.0%\n"
          "worker 1  lcore 2  p1/0 -> p0/0  rx    500  tx    480  drops  20  busy  70.0%\n");
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
