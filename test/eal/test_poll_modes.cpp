// Poll modes on net_ring ports in-process: an adaptive worker sleeps when its
// queue stays empty and spins again as soon as traffic flows, forwarding
// everything in order; interrupt mode is refused on a device without rx
// interrupts; the residence histogram counts every packet forwarded.
#include <rte_cycles.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>

#include "control.hpp"
#include "ring_ports.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

namespace {

int g_poll_case = 0;

// Port a polled by one worker, forwarding to b (TX only).
struct OneWorkerRig {
    RingPort a, b;
    Config cfg;
    std::unique_ptr<Appliance> app;
    rte_mempool* pool = nullptr;
    std::string tag;

    explicit OneWorkerRig(PollMode mode) {
        tag = "pm" + std::to_string(++g_poll_case);
        a = RingPort::create(tag + "a");
        b = RingPort::create(tag + "b", 32768);
        cfg = two_port_config(a, b, ForwardMode::patch);
        cfg.ports[1].rx_queues = 0;
        cfg.forward.pairs = {{"a", "b", {}}};
        cfg.poll.mode = mode;
        cfg.poll.idle_polls = 20000;  // ~1 ms of empty ring polls
        cfg.poll.max_sleep_us = 200;
        cfg.pool.mbufs = 24576;  // the adaptive case keeps 20000 frames on the wire
        cfg.forward.latency = true;
    }
    std::string start() {
        auto planned = build_plan(cfg);
        if (auto* e = std::get_if<ConfigError>(&planned)) return e->to_string();
        auto started = Appliance::start(cfg, std::get<Plan>(planned), tag);
        if (!started) return started.error().message;
        app = std::move(started.value());
        pool = rte_mempool_lookup((tag + "_w0").c_str());
        return pool ? "" : "no pool";
    }
    ~OneWorkerRig() {
        if (app) app->shutdown();
        a.destroy();
        b.destroy();
    }
};

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(20000)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

// The sender's stalls: stretches longer than kStallUs in which the worker's
// queue may have been empty. A busy host (or the CI's other jobs) preempts
// the sender for milliseconds at a time, and an adaptive worker rightly
// sleeps through such a stretch once it has seen 2 x idle_polls empty
// polls; the test bounds what it may do from what the sender saw.
struct Stalls {
    // 2 x idle_polls (40000) empty polls, each an rx_burst call that reads
    // the ring's shared tail and the TSC (10 ns or more), take 400 us or
    // more: no sleep can hide in a stretch of a quarter of that.
    static constexpr uint64_t kStallUs = 100;
    uint64_t min_tsc = rte_get_tsc_hz() / 1000000 * kStallUs;
    uint64_t count = 0;
    uint64_t tsc = 0;
    void note(uint64_t gap_tsc) {
        if (gap_tsc < min_tsc) return;
        ++count;
        tsc += gap_tsc;
    }
};

// Time this process's threads spent runnable but not running, in TSC (the
// kernel's schedstat, nanoseconds). A worker's sleep is timed when it runs
// again, so a wait for the CPU after its timer fired counts as sleep.
// Nullopt where the kernel does not say.
std::optional<uint64_t> run_delay_tsc() {
    std::error_code ec;
    uint64_t ns = 0;
    bool any = false;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
        std::ifstream in(task.path() / "schedstat");
        uint64_t on_cpu = 0, waiting = 0;
        if (in >> on_cpu >> waiting) {
            ns += waiting;
            any = true;
        }
    }
    if (!any) return std::nullopt;
    return uint64_t((unsigned __int128)ns * rte_get_tsc_hz() / 1000000000);
}

}  // namespace

TEST_CASE("adaptive: sleeps on an idle queue, spins again under traffic", "[poll][adaptive]") {
    OneWorkerRig rig(PollMode::adaptive);
    REQUIRE(rig.start().empty());
    // Idle: after 2 x idle_polls empty polls it sleeps, waking each time.
    REQUIRE(eventually([&] { return rig.app->worker_snapshot(0).wakeups >= 20; }));
    const WorkerSnapshot idle = rig.app->worker_snapshot(0);
    CHECK(idle.sleep_tsc > 0);
    CHECK(idle.rx_pkts == 0);

    // Traffic: a frame every ~5 us for ~100 ms, far less than idle_polls
    // empty polls apart, so the worker must not sleep while it lasts, except
    // in the sender's stalls. Sleeping between frames would be ~18000
    // wake-ups.
    constexpr uint32_t kFrames = 20000;
    const uint64_t gap = rte_get_tsc_hz() / 200000;
    const uint64_t max_sleep_tsc = rte_get_tsc_hz() / 1000000 * rig.cfg.poll.max_sleep_us;
    uint64_t wakeups_early = 0, sleep_early = 0, tsc_early = 0;
    std::optional<uint64_t> delay_early;
    Stalls stalls;
    uint64_t prev_before = 0;
    uint64_t next = rte_rdtsc();
    for (uint32_t i = 0; i < kFrames; ++i) {
        while (rte_rdtsc() < next) rte_pause();
        next += gap;
        rte_mbuf* m = to_mbuf(rig.pool, make_frame(i, 64));
        REQUIRE(m != nullptr);
        // The queue lacked frame i from before frame i-1 went in (at worst)
        // until frame i is in.
        const uint64_t before = rte_rdtsc();
        // A starved worker (a busy machine) lets the queue fill: the sender
        // waits for room, a stall like any other, noted below.
        const uint64_t give_up = before + 10 * rte_get_tsc_hz();
        bool queued;
        while (!(queued = rte_ring_enqueue(rig.a.rx, m) == 0) && rte_rdtsc() < give_up) rte_pause();
        REQUIRE(queued);
        if (i != 0) stalls.note(rte_rdtsc() - prev_before);
        prev_before = before;
        if (i == kFrames / 10) {
            const WorkerSnapshot early = rig.app->worker_snapshot(0);
            wakeups_early = early.wakeups;
            sleep_early = early.sleep_tsc;
            tsc_early = rte_rdtsc();
            delay_early = run_delay_tsc();
        }
    }
    REQUIRE(wait_rx(*rig.app, 0, kFrames));
    const WorkerSnapshot busy = rig.app->worker_snapshot(0);
    const uint64_t tsc_busy = rte_rdtsc();
    const std::optional<uint64_t> delay_busy = run_delay_tsc();
    stalls.note(tsc_busy - prev_before);  // after the last frame the queue stays empty
    INFO("sender stalls: " << stalls.count << ", " << stalls.tsc * 1000000 / rte_get_tsc_hz()
                           << " us in all");
    // In a stall of L the sleeps double from 1 us to max_sleep_us: at most
    // 9 + L / max_sleep_us of them; the rest is slack for snapshots that lag.
    CHECK(busy.wakeups - wakeups_early <= 50 + 10 * stalls.count + stalls.tsc / max_sleep_tsc);
    // Sleep time: at most a tenth of the run, plus the stalls (each may end
    // one sleep late), plus any time the worker waited for a CPU after a
    // sleep, which a loaded host makes long and the worker counts as sleep.
    if (delay_early && delay_busy) {
        CHECK(busy.sleep_tsc - sleep_early <= (tsc_busy - tsc_early) / 10 + stalls.tsc +
                                                  stalls.count * max_sleep_tsc +
                                                  (*delay_busy - *delay_early));
    }
    const auto got = collect(rig.b.tx, kFrames);
    REQUIRE(got.size() == kFrames);
    for (uint32_t i = 0; i < kFrames; ++i) CHECK(got[i] == make_frame(i, 64));

    // Every forwarded packet has a residence time.
    const HistogramSnapshot res = rig.app->residence_snapshot(0);
    CHECK(res.count == kFrames);
    uint64_t in_buckets = 0;
    for (const uint64_t b : res.buckets) in_buckets += b;
    CHECK(in_buckets == kFrames);
    CHECK(res.min > 0);
    CHECK(res.min <= res.mean());
    CHECK(res.mean() <= res.max);
    const Record lat = rig.app->latency(0, Since::clear);
    CHECK(std::get<uint64_t>(*lat.get("residence_count")) == kFrames);
    const auto buckets = lat.get("residence_buckets");
    REQUIRE(buckets);
    uint64_t on_wire = 0;
    for (const uint64_t b : std::get<std::vector<uint64_t>>(*buckets)) on_wire += b;
    CHECK(on_wire == kFrames);

    // Idle again: it goes back to sleep.
    const uint64_t before = rig.app->worker_snapshot(0).wakeups;
    CHECK(eventually([&] { return rig.app->worker_snapshot(0).wakeups > before + 10; }));
    const auto report = rig.app->shutdown();
    CHECK(report.pools_full());
}

TEST_CASE("busy: never sleeps", "[poll][busy]") {
    OneWorkerRig rig(PollMode::busy);
    REQUIRE(rig.start().empty());
    // Polls take as long as the host lets them: wait for them, not a time.
    CHECK(eventually([&] { return rig.app->worker_snapshot(0).empty_polls > 2000; }));
    const WorkerSnapshot s = rig.app->worker_snapshot(0);
    CHECK(s.wakeups == 0);
    CHECK(s.sleep_tsc == 0);
}

TEST_CASE("interrupt: refused at start on a device without rx interrupts", "[poll][interrupt]") {
    OneWorkerRig rig(PollMode::interrupt);
    // net_ring devices are named freely, so only the probed driver tells.
    const std::string error = rig.start();
    CHECK(error.find("(net_ring) has no rx interrupts") != std::string::npos);
    CHECK(rig.app == nullptr);
}

TEST_CASE("latency off: no residence histogram, same forwarding", "[poll][latency]") {
    OneWorkerRig rig(PollMode::busy);
    rig.cfg.forward.latency = false;
    REQUIRE(rig.start().empty());
    for (uint32_t i = 0; i < 100; ++i)
        REQUIRE(rte_ring_enqueue(rig.a.rx, to_mbuf(rig.pool, make_frame(i))) == 0);
    REQUIRE(collect(rig.b.tx, 100).size() == 100);
    CHECK(rig.app->residence_snapshot(0).count == 0);
}
