// What pmdctl's show commands print (renderers.hpp), on fixed records:
// ports, workers (handoff, recycle counters, poll modes), pools, the plan
// and stats, the log channel and latency.
#include <catch2/catch.hpp>
#include <iterator>

#include "pmdctl_records.hpp"
#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"

using namespace pmdctl;
using namespace pmdctl::test;

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
