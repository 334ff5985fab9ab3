// The records made of the counters (stats_records.hpp): a worker's with its
// derived figures, the totals with what is in flight, a port's counters and
// a pool's audit, negative inputs clamped.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "record_schemas.hpp"
#include "record_values.hpp"
#include "stats_records.hpp"
#include "worker_stats.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

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
