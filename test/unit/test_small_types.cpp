// The small pure pieces: MAC text, burst buckets, the worker counter block
// and its seqlock snapshot, the EAL argv, PMD quirks, and records.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "burst_histogram.hpp"
#include "eal_args.hpp"
#include "kernel_link.hpp"
#include "mac_addr.hpp"
#include "pmd_quirks.hpp"
#include "record.hpp"
#include "record_schemas.hpp"
#include "stats_records.hpp"
#include "worker_stats.hpp"

using namespace pmdfwd;

namespace {

std::string field(const Record& r, const std::string& name) {
    const auto v = r.get(name);
    if (!v) FAIL("no field " << name);
    if (const auto* u = std::get_if<uint64_t>(&*v)) return std::to_string(*u);
    return std::get<std::string>(*v);
}

std::vector<std::string> names(const Record& r) {
    std::vector<std::string> out;
    r.for_each_wire([&](std::string_view key, const WireValue&) { out.emplace_back(key); });
    return out;
}

// A record kind of the test's own: the Record mechanics, apart from any
// real table.
constexpr Field kTestFields[] = {
    {"name", Unit::none, Kind::label, "its name"},
    {"rx", Unit::packets, Kind::counter, "packets in"},
    {"big", Unit::bytes, Kind::counter, "a large number"},
    {"state", Unit::none, Kind::info, "up or down"},
    {"lat", Unit::nanoseconds, Kind::histogram, "a distribution"},
};
constexpr RecordSchema kTestRecord{"test", "A record of the tests.", kTestFields};

}  // namespace

TEST_CASE("mac: parse and print", "[small][mac]") {
    const auto mac = MacAddr::parse("02:00:5e:10:AB:ff");
    REQUIRE(mac);
    CHECK(mac->bytes == std::array<uint8_t, 6>{0x02, 0x00, 0x5e, 0x10, 0xab, 0xff});
    CHECK(mac->to_string() == "02:00:5e:10:ab:ff");
    CHECK(MacAddr::parse("02-00-5E-10-AB-FF") == mac);
    CHECK(MacAddr::parse("00:00:00:00:00:00")->to_string() == "00:00:00:00:00:00");
    CHECK(MacAddr::parse(mac->to_string()) == mac);
    CHECK(MacAddr{} == *MacAddr::parse("00:00:00:00:00:00"));
    CHECK_FALSE(MacAddr{} == *mac);
    for (const char* bad :
         {"", "02:00:5e:10:ab", "02:00:5e:10:ab:ff:00", "02:00:5e:10:ab:f", "2:00:5e:10:ab:ff0",
          "02-00:5e:10:ab:ff", "02:00-5e:10:ab:ff", "02.00.5e.10.ab.ff", "0g:00:5e:10:ab:ff",
          "02:00:5e:10:ab:fG", "02 00 5e 10 ab ff", "020:0:5e:10:ab:ff", " 02:00:5e:10:ab:f"}) {
        INFO(bad);
        CHECK_FALSE(MacAddr::parse(bad));
    }
}

TEST_CASE("burst histogram: power-of-two buckets", "[small][burst]") {
    static_assert(burst_bucket(1) == 0);
    static_assert(burst_bucket(512) == kBurstBuckets - 1);
    CHECK(kBurstBuckets == 10);
    const struct {
        uint32_t burst;
        size_t bucket;
    } cases[] = {{1, 0},   {2, 1},   {3, 1},   {4, 2},   {7, 2},    {8, 3},
                 {31, 4},  {32, 5},  {33, 5},  {63, 5},  {64, 6},   {255, 7},
                 {256, 8}, {511, 8}, {512, 9}, {513, 9}, {4096, 9}, {UINT32_MAX, 9}};
    for (const auto& c : cases) {
        INFO(c.burst);
        CHECK(burst_bucket(c.burst) == c.bucket);
    }
    CHECK(kBurstBucketTable[0].key == "burst_1");
    CHECK(kBurstBucketTable[1].key == "burst_2_3");
    CHECK(kBurstBucketTable[2].key == "burst_4_7");
    CHECK(kBurstBucketTable[5].key == "burst_32_63");
    CHECK(kBurstBucketTable[8].key == "burst_256_511");
    CHECK(kBurstBucketTable[9].key == "burst_512_up");
}

TEST_CASE("worker stats: one cache-line block, snapshot and minus", "[small][worker_stats]") {
    static_assert(alignof(WorkerStats) == 64);
    static_assert(sizeof(WorkerStats) % 64 == 0);
    WorkerStats ws;
    WorkerSnapshot zero = ws.read();
    CHECK(zero.rx_pkts == 0);
    CHECK(zero.total_drops() == 0);

    ws.begin_update();
    ws.rx_pkts.add(33);
    ws.rx_bytes.add(33 * 64);
    ws.tx_pkts.add(30);
    ws.tx_bytes.add(30 * 64);
    ws.drops[size_t(DropReason::tx_full)].add(2);
    ws.drops[size_t(DropReason::no_route)].add(1);
    ws.polls.add(5);
    ws.empty_polls.add(4);
    ws.busy_tsc.add(900);
    ws.idle_tsc.add(100);
    ws.handoff_out.add(0);
    ws.burst_hist[burst_bucket(33)].add(1);
    ws.full_bursts.add(1);
    ws.end_update();

    const WorkerSnapshot a = ws.read();
    CHECK(a.rx_pkts == 33);
    CHECK(a.rx_bytes == 33 * 64);
    CHECK(a.tx_pkts == 30);
    CHECK(a.tx_bytes == 30 * 64);
    CHECK(a.drops[size_t(DropReason::tx_full)] == 2);
    CHECK(a.drops[size_t(DropReason::no_route)] == 1);
    CHECK(a.drops[size_t(DropReason::runt)] == 0);
    CHECK(a.total_drops() == 3);
    CHECK(a.rx_pkts + a.handoff_in == a.tx_pkts + a.total_drops() + a.handoff_out);
    CHECK(a.polls == 5);
    CHECK(a.empty_polls == 4);
    CHECK(a.busy_tsc == 900);
    CHECK(a.idle_tsc == 100);
    CHECK(a.burst_hist[5] == 1);
    CHECK(a.full_bursts == 1);

    ws.begin_update();
    ws.rx_pkts.add(10);
    ws.tx_pkts.add(7);
    ws.handoff_out.add(3);  // 3 packets handed to the owner of the TX queue
    ws.drops[size_t(DropReason::runt)].add(1);
    ws.burst_hist[3].add(1);
    ws.busy_tsc.add(50);
    ws.end_update();
    const WorkerSnapshot b = ws.read();
    const WorkerSnapshot d = b.minus(a);
    CHECK(d.rx_pkts == 10);
    CHECK(d.rx_bytes == 0);
    CHECK(d.tx_pkts == 7);
    CHECK(d.drops[size_t(DropReason::runt)] == 1);
    CHECK(d.drops[size_t(DropReason::tx_full)] == 0);
    CHECK(d.total_drops() == 1);
    CHECK(d.burst_hist[3] == 1);
    CHECK(d.burst_hist[5] == 0);
    CHECK(d.busy_tsc == 50);
    CHECK(d.full_bursts == 0);
    CHECK(d.handoff_out == 3);
    CHECK(d.in_flight() == 3);
    CHECK(b.minus(b).rx_pkts == 0);
    CHECK(b.minus(zero).rx_pkts == b.rx_pkts);
}

TEST_CASE("worker stats: a counter is a plain single-writer value", "[small][worker_stats]") {
    Counter c;
    CHECK(c.get() == 0);
    c.add(1);
    c.add(41);
    CHECK(c.get() == 42);
    c.add(UINT64_MAX);  // wraps like the unsigned it is
    CHECK(c.get() == 41);
}

TEST_CASE("eal args: built from config and plan", "[small][eal_args]") {
    Config cfg;
    cfg.eal.lcores = "0@0,1@0,2@1";
    cfg.eal.file_prefix = "pf";
    cfg.eal.memory_mb = 256;
    PortConfig p0, p1;
    p0.name = "p0";
    p0.devargs = "net_null0";
    p1.name = "p1";
    p1.devargs = "net_tap0,iface=t0";
    cfg.ports = {p0, p1};
    Plan plan;
    plan.main_lcore = 0;
    CHECK(build_eal_args(cfg, plan) ==
          std::vector<std::string>{"pmdfwd", "--lcores", "0@0,1@0,2@1", "--main-lcore", "0",
                                   "--file-prefix", "pf", "-m", "256", "--no-huge", "--vdev",
                                   "net_null0", "--vdev", "net_tap0,iface=t0", "--no-pci"});

    cfg.eal.hugepages = true;
    cfg.control.telemetry = false;
    cfg.ports[1].devargs = "0000:03:00.1,txq_inline=128";
    cfg.eal.extra_args = {"--log-level", "pmd.net.*:debug"};
    plan.main_lcore = 5;
    CHECK(build_eal_args(cfg, plan) ==
          std::vector<std::string>{
              "pmdfwd", "--lcores", "0@0,1@0,2@1", "--main-lcore", "5", "--file-prefix", "pf", "-m",
              "256", "--huge-unlink", "--no-telemetry", "--vdev", "net_null0", "-a",
              "0000:03:00.1,txq_inline=128", "--log-level", "pmd.net.*:debug"});

    // A capture's secondary process opens the hugepage files by name.
    cfg.control.capture = true;
    const auto args = build_eal_args(cfg, plan);
    CHECK(std::find(args.begin(), args.end(), "--huge-unlink") == args.end());
    CHECK(std::find(args.begin(), args.end(), "--no-huge") == args.end());
    CHECK(args.size() == 16);
}

TEST_CASE("eal args: PCI addresses and device names", "[small][eal_args]") {
    for (const char* pci : {"0000:01:00.0", "01:00.0", "ffff:ff:1f.7", "0000:AB:cd.3",
                            "01:00.0,rxq=2", "0000:01:00.0,a=b,c=d"}) {
        INFO(pci);
        CHECK(is_pci_devargs(pci));
    }
    for (const char* vdev :
         {"net_null0", "net_tap0,iface=x", "", "0000:01:00.8", "1:00.0", "01:00", "01:00.",
          "00000:01:00.0", "0000-01:00.0", "01:00.0x", "g000:01:00.0", "net_ring0,01:00.0"}) {
        INFO(vdev);
        CHECK_FALSE(is_pci_devargs(vdev));
    }
    CHECK(devargs_name("net_tap0,iface=pmd0") == "net_tap0");
    CHECK(devargs_name("0000:01:00.0") == "0000:01:00.0");
    CHECK(devargs_name(",x") == "");
    CHECK(devargs_name("") == "");
}

TEST_CASE("pmd quirks: queue counts per driver", "[small][quirks]") {
    auto counts = [](std::string_view driver, uint16_t rx, uint16_t tx) {
        const QueueCounts c = configured_queue_counts(driver, rx, tx);
        return std::to_string(c.rx) + "/" + std::to_string(c.tx);
    };
    CHECK(counts("net_null", 1, 1) == "1/1");
    CHECK(counts("net_null", 2, 0) == "2/1");  // every device gets a tx queue
    CHECK(counts("net_null", 0, 3) == "0/3");
    CHECK(counts("net_ring", 4, 2) == "4/2");
    CHECK(counts("net_tap", 2, 1) == "2/2");  // tap pairs queues on one fd
    CHECK(counts("net_tap", 1, 3) == "3/3");
    CHECK(counts("net_tap", 0, 0) == "1/1");
    CHECK(counts("net_tap", 0, 1) == "1/1");
    CHECK(counts("net_tap0", 2, 1) == "2/1");  // the driver name, not the device name
}

TEST_CASE("devargs values by key", "[small][quirks]") {
    CHECK(devargs_value("net_af_packet0,iface=veth0", "iface") == "veth0");
    CHECK(devargs_value("net_af_packet0,qpairs=2,iface=v1,blocksz=4096", "iface") == "v1");
    CHECK(devargs_value("net_af_packet0,ifacex=v1,iface=v2", "iface") == "v2");  // whole keys
    CHECK(devargs_value("net_af_packet0,iface=", "iface") == "");
    CHECK(devargs_value("iface=v0", "iface") == "");  // the device name is no key
    CHECK(devargs_value("net_af_packet0", "iface") == "");
    CHECK(devargs_value("0000:01:00.0", "iface") == "");
}

TEST_CASE("a tun file's fdinfo names its interface", "[small][quirks]") {
    CHECK(tun_fdinfo_iff("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1040\niff:\tdtap0\n") == "dtap0");
    CHECK(tun_fdinfo_iff("pos:\t0\niff:\t\n") == "");      // detached: the interface was deleted
    CHECK(!tun_fdinfo_iff("pos:\t0\nflags:\t0100002\n"));  // not a tun file
    CHECK(!tun_fdinfo_iff(""));
}

TEST_CASE("record: fields in table order, unset ones left out, the log line", "[small][record]") {
    Record r(kTestRecord);
    CHECK(r.to_line() == "");
    r.set(kTestRecord.at("state"), std::string("up"));
    r.set(kTestRecord.at("big"), UINT64_MAX);
    r.set(kTestRecord.at("name"), "p0");
    CHECK(r.to_line() == "name=p0 big=18446744073709551615 state=up");
    CHECK(names(r) == std::vector<std::string>{"name", "big", "state"});
    CHECK(std::holds_alternative<std::string>(*r.get("name")));
    CHECK(std::holds_alternative<uint64_t>(*r.get("big")));
    CHECK_FALSE(r.get("rx"));  // never set
    r.set(kTestRecord.at("rx"), uint64_t(0));
    CHECK(names(r) == std::vector<std::string>{"name", "rx", "big", "state"});
}

TEST_CASE("record: a histogram field on the wire", "[small][record][histogram]") {
    Record r(kTestRecord);
    HistogramView h;
    h.count = 3;
    h.sum_ns = 600;
    h.min_ns = 100;
    h.max_ns = 300;
    h.le_ns = {127, 255, 319};
    h.counts = {1, 1, 1};
    r.set(kTestRecord.at("lat"), h);
    std::vector<std::string> expected;
    for (const auto& w : kHistogramWire) expected.push_back("lat" + std::string(w.suffix));
    CHECK(names(r) == expected);
    CHECK(field(r, "lat_count") == "3");
    CHECK(field(r, "lat_sum_ns") == "600");
    CHECK(field(r, "lat_min_ns") == "100");
    CHECK(field(r, "lat_avg_ns") == "200");
    CHECK(field(r, "lat_p50_ns") == "255");
    CHECK(field(r, "lat_p90_ns") == "300");  // the bucket's edge, never above max
    CHECK(field(r, "lat_max_ns") == "300");
    CHECK(std::get<std::vector<uint64_t>>(*r.get("lat_le_ns")) == h.le_ns);
    CHECK(std::get<std::vector<uint64_t>>(*r.get("lat_buckets")) == h.counts);
    CHECK(r.to_line().ends_with("lat_le_ns=127,255,319 lat_buckets=1,1,1"));
}

TEST_CASE("stats records: worker record with derived figures", "[small][stats_records]") {
    WorkerSnapshot s;
    s.rx_pkts = 100;
    s.rx_bytes = 6400;
    s.tx_pkts = 90;
    s.tx_bytes = 5760;
    s.drops[size_t(DropReason::tx_full)] = 6;
    s.drops[size_t(DropReason::no_route)] = 4;
    s.polls = 10;
    s.empty_polls = 3;
    s.busy_tsc = 7000;
    s.idle_tsc = 2000;
    s.sleep_tsc = 1000;
    s.wakeups = 4;
    s.burst_hist[5] = 3;
    s.full_bursts = 2;
    const Record r = worker_record({1, 2, "p1", 0, "p0", 1, "adaptive"}, s);
    // Every field of its table, in its order, but the CPU share, the loop's
    // heartbeat and the recycle counters, which the appliance adds.
    std::vector<std::string> expected;
    for (const auto& f : kWorkerRecord.fields)
        if (!f.key.starts_with("cpu_") && f.key != "quiet_ns" && f.key != "hung" &&
            f.group != "recycle")
            expected.emplace_back(f.key);
    CHECK(names(r) == expected);
    CHECK(field(r, "poll") == "adaptive");
    CHECK(field(r, "wakeups") == "4");
    // The time split adds up.
    CHECK(field(r, "idle_permille") == "200");
    CHECK(field(r, "sleep_permille") == "100");
    CHECK(field(r, "worker") == "1");
    CHECK(field(r, "lcore") == "2");
    CHECK(field(r, "rx_port") == "p1");
    CHECK(field(r, "tx_port") == "p0");
    CHECK(field(r, "tx_queue") == "1");
    CHECK(field(r, "drops") == "10");
    CHECK(field(r, "drop_tx_full") == "6");
    CHECK(field(r, "cycles_per_pkt") == "70");
    CHECK(field(r, "busy_permille") == "700");
    CHECK(field(r, "burst_32_63") == "3");
    CHECK(field(r, "full_bursts") == "2");

    // No traffic and no time: no division by zero; no pair shows as '-'.
    const Record idle = worker_record({0, 1, "p0", 0, "", 0}, WorkerSnapshot{});
    CHECK(field(idle, "tx_port") == "-");
    CHECK(field(idle, "cycles_per_pkt") == "0");
    CHECK(field(idle, "busy_permille") == "0");
}

TEST_CASE("stats records: totals, ports and pools", "[small][stats_records]") {
    WorkerSnapshot a, b;
    // b hands 4 packets to a, the owner of its TX queue; a has taken 2.
    a.rx_pkts = 10;
    a.handoff_in = 2;
    a.tx_pkts = 10;
    a.drops[size_t(DropReason::runt)] = 2;
    a.busy_tsc = 100;
    b.rx_pkts = 5;
    b.tx_pkts = 1;
    b.handoff_out = 4;
    b.busy_tsc = 50;
    b.idle_tsc = 150;
    CHECK(in_flight_level({a, b}) == 2);
    const Record t = totals_record({a, b}, in_flight_level({a, b}));
    CHECK(names(t).front() == "workers");
    CHECK(field(t, "workers") == "2");
    CHECK(field(t, "rx_pkts") == "15");
    CHECK(field(t, "tx_pkts") == "11");
    CHECK(field(t, "drops") == "2");
    CHECK(field(t, "drop_runt") == "2");
    CHECK(field(t, "in_flight") == "2");       // rx 15 == tx 11 + drops 2 + in flight 2
    CHECK(field(t, "cycles_per_pkt") == "8");  // 150 cycles over 15 received + 2 handed in
    CHECK(field(t, "busy_permille") == "500");
    CHECK(field(totals_record({}, 0), "rx_pkts") == "0");

    PortStats ps;
    ps.ipackets = 1;
    ps.opackets = 2;
    ps.ibytes = 3;
    ps.obytes = 4;
    ps.imissed = 5;
    ps.ierrors = 6;
    ps.oerrors = 7;
    ps.rx_nombuf = 8;
    CHECK(port_counters_record(ps).to_line() ==
          "ipackets=1 opackets=2 ibytes=3 obytes=4 imissed=5 ierrors=6 oerrors=7 rx_nombuf=8");

    PoolAudit audit{"pool_w0", 8192, 8190};
    CHECK(pool_record(audit, 256, 8000, 0, "ring_mp_mc").to_line() ==
          "name=pool_w0 socket=0 size=8192 cache_size=256 avail=8000 in_use=192 "
          "present_unclamped=8190 ops=ring_mp_mc");
    // Negative inputs (SOCKET_ID_ANY, a failed count) are clamped to zero.
    audit.present = -3;
    CHECK(pool_record(audit, 0, -1, -1, "x").to_line() ==
          "name=pool_w0 socket=0 size=8192 cache_size=0 avail=0 in_use=0 present_unclamped=0 "
          "ops=x");
    CHECK(field(pool_record(audit, 0, 9000, 1, "x"), "in_use") == "0");
    CHECK(field(pool_record(audit, 0, 9000, 1, "x"), "socket") == "1");
}
