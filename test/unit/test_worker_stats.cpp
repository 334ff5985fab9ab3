// A worker's counter block (worker_stats.hpp): one cache line of plain
// single-writer counters, a seqlock snapshot and its difference, and a
// reader that never waits without bound on a worker stopped mid-update.
#include <catch2/catch.hpp>
#include <chrono>
#include <future>

#include "burst_histogram.hpp"
#include "worker_stats.hpp"

using namespace pmdfwd;

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

// A worker preempted between begin_update and end_update (on a busy host,
// for a time slice or more): the reader, which holds the lock pmdctl,
// scrapes and shutdown share, must come back, with the newest consistent
// counts, not spin until the worker runs again. 10 s is a fuse, not a
// timing: before the bound the read never returned while the bracket was
// open.
TEST_CASE("WorkerStats::read returns while a worker is stopped mid-update", "[stats]") {
    WorkerStats ws;
    WorkerSnapshot delta;
    delta.rx_pkts = 5;
    delta.polls = 1;
    ws.publish(delta);
    CHECK(ws.read().rx_pkts == 5);

    ws.begin_update();  // the worker stops here
    ws.rx_pkts.add(3);
    auto reader = std::async(std::launch::async, [&] { return ws.read(); });
    const bool returned = reader.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    ws.end_update();  // the worker runs again
    const WorkerSnapshot during = reader.get();
    CHECK(returned);
    CHECK(during.rx_pkts == 5);  // the last consistent counts, never half an update
    CHECK(ws.stale_reads() == 1);
    // Once the bracket closes, reads are current again.
    CHECK(ws.read().rx_pkts == 8);
    CHECK(ws.stale_reads() == 1);
}
