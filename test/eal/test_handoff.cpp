// Pool models and TX sharing on net_ring and net_null ports in-process: every
// model x tx setting forwards and leaves its pools full; "owner" hands bursts
// to the TX queue's owner; "auto" picks handoff when the device has too few
// TX queues; a full handoff ring drops and counts.
#include <rte_bus_vdev.h>

#include <catch2/catch.hpp>

#include "forward_burst.hpp"
#include "recycle_mempool.hpp"
#include "ring_ports.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

namespace {

int g_rig = 0;

struct HandoffRig {
    std::vector<RingPort> rings;
    Config cfg;
    std::unique_ptr<Appliance> app;
    std::string tag;

    // b_tx_ring: the slots of port b's tx ring (one stays empty).
    explicit HandoffRig(size_t ports, unsigned b_tx_ring = 4096) {
        tag = "ho" + std::to_string(++g_rig);
        for (size_t i = 0; i < ports; ++i) {
            rings.push_back(RingPort::create(tag + char('a' + i), i == 1 ? b_tx_ring : 4096));
            REQUIRE(rings.back().port_id != 0xffff);
        }
        cfg = two_port_config(rings[0], rings[1], ForwardMode::patch);
        for (size_t i = 2; i < ports; ++i) {
            PortConfig p = cfg.ports[1];
            p.name = std::string(1, char('a' + i));
            p.devargs = rings[i].name;
            cfg.ports.push_back(p);
        }
    }
    Result<std::unique_ptr<Appliance>> start() { return Appliance::start(cfg, plan_of(cfg), tag); }
    void run() {
        auto started = start();
        if (!started) FAIL(started.error().message);
        app = std::move(started.value());
    }
    ~HandoffRig() {
        if (app) app->shutdown();
        for (auto& r : rings) r.destroy();
    }
    void inject(size_t port, size_t worker, const std::vector<std::vector<uint8_t>>& frames) {
        for (const auto& f : frames) {
            rte_mbuf* m = to_mbuf(app->worker_pool(worker), f);
            REQUIRE(m != nullptr);
            REQUIRE(rte_ring_enqueue(rings[port].rx, m) == 0);
        }
    }
};

// Waits until the workers' totals show every received packet sent or dropped.
WorkerSnapshot settled_totals(const Appliance& app, uint64_t rx) {
    WorkerSnapshot sum;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    do {
        sum = WorkerSnapshot{};
        for (size_t i = 0; i < app.worker_count(); ++i) sum += app.worker_snapshot(i);
        if (sum.rx_pkts >= rx && sum.in_flight() == 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } while (std::chrono::steady_clock::now() < deadline);
    return sum;
}

const char* name(PoolModel m) { return to_string(m); }

std::string field(const Record& r, const std::string& key) {
    const auto v = r.get(key);
    if (!v) return "(absent)";
    return std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v)
                                                   : std::to_string(std::get<uint64_t>(*v));
}

}  // namespace

TEST_CASE("every pool model and tx setting forwards and leaves its pools full", "[handoff]") {
    for (const PoolModel model :
         {PoolModel::recycle, PoolModel::shared, PoolModel::per_worker_stock}) {
        for (const TxMode tx : {TxMode::per_worker, TxMode::owner, TxMode::auto_select}) {
            DYNAMIC_SECTION("model " << name(model) << ", tx " << to_string(tx)) {
                HandoffRig rig(2);
                rig.cfg.pool.model = model;
                if (model == PoolModel::shared) rig.cfg.pool.mbufs = 8192;  // both workers' rings
                for (auto& p : rig.cfg.ports) p.tx = tx;
                rig.run();
                const Plan& plan = rig.app->resolved_plan();
                // a's worker 0 sends to b, whose only TX queue worker 1 owns in owner mode.
                const bool handoff = tx == TxMode::owner;
                CHECK(plan.workers[0].handoff_to == (handoff ? 1 : kNoWorker));
                CHECK(plan.ports[1].tx == (handoff ? TxMode::owner : TxMode::per_worker));
                if (model == PoolModel::shared)
                    CHECK(rig.app->worker_pool(0) == rig.app->worker_pool(1));
                else
                    CHECK(rig.app->worker_pool(0) != rig.app->worker_pool(1));

                const auto sent = make_frames(1000);
                rig.inject(0, 0, sent);
                const auto got = collect(rig.rings[1].tx, sent.size());
                CHECK(got == sent);  // unchanged and in order through the handoff ring
                const WorkerSnapshot sum = settled_totals(*rig.app, sent.size());
                CHECK(sum.rx_pkts == 1000);
                CHECK(sum.tx_pkts == 1000);
                CHECK(sum.total_drops() == 0);
                CHECK(sum.in_flight() == 0);
                const auto w0 = rig.app->worker_snapshot(0), w1 = rig.app->worker_snapshot(1);
                CHECK(w0.handoff_out == (handoff ? 1000u : 0u));
                CHECK(w1.handoff_in == (handoff ? 1000u : 0u));
                CHECK(w1.tx_pkts == (handoff ? 1000u : 0u));
                CHECK(w0.tx_bytes + w1.tx_bytes == 64u * 1000);
                for (const auto& w : {w0, w1})
                    CHECK(w.rx_pkts + w.handoff_in == w.tx_pkts + w.total_drops() + w.handoff_out);
                const Record pool = rig.app->pool(0, Since::clear);
                CHECK(field(pool, "ops") ==
                      (model == PoolModel::recycle ? "pmdfwd_recycle" : "ring_mp_mc_colored"));
                if (model == PoolModel::recycle) CHECK(field(pool, "owner_lcore") == "1");
                const auto report = rig.app->shutdown();
                CHECK(report.pools_full());
            }
        }
    }
}

TEST_CASE("read_lengths = false: the owner transmits handed-off frames of any length, no bytes",
          "[handoff]") {
    HandoffRig rig(2);
    for (auto& p : rig.cfg.ports) p.tx = TxMode::owner;
    rig.cfg.ports[1].mtu = 1000;  // frames of up to 1018 bytes
    rig.cfg.forward.read_lengths = false;
    rig.run();
    REQUIRE(rig.app->resolved_plan().workers[0].handoff_to == 1);
    std::vector<std::vector<uint8_t>> sent;
    for (uint32_t i = 0; i < 300; ++i) sent.push_back(make_frame(i, i % 7 == 3 ? 1500 : 64));
    rig.inject(0, 0, sent);
    CHECK(collect(rig.rings[1].tx, sent.size()) == sent);
    const WorkerSnapshot sum = settled_totals(*rig.app, sent.size());
    CHECK(sum.tx_pkts == sent.size());
    CHECK(sum.handoff_in == sent.size());
    CHECK(sum.total_drops() == 0);
    CHECK(sum.rx_bytes == 0);
    CHECK(sum.tx_bytes == 0);
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("read_lengths = false: the owner's tx_full drops take back no byte", "[handoff]") {
    // b's tx ring holds 63 frames and nobody drains it: the owner sends 63
    // and drops the rest as tx_full, with no byte count to correct.
    HandoffRig rig(2, 64);
    for (auto& p : rig.cfg.ports) p.tx = TxMode::owner;
    rig.cfg.forward.read_lengths = false;
    rig.run();
    REQUIRE(rig.app->resolved_plan().workers[0].handoff_to == 1);
    rig.inject(0, 0, make_frames(300));
    const WorkerSnapshot sum = settled_totals(*rig.app, 300);
    CHECK(sum.handoff_in == 300);
    CHECK(sum.tx_pkts == 63);
    CHECK(sum.drops[size_t(DropReason::tx_full)] == 300 - 63);
    CHECK(sum.tx_bytes == 0);
    CHECK(sum.rx_bytes == 0);
    CHECK(collect(rig.rings[1].tx, 63).size() == 63);
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("tx auto hands off when the device has too few TX queues", "[handoff]") {
    // a and c both send to b, which has one TX queue and nobody polls: its
    // queue belongs to a's worker, and c's worker hands its bursts over.
    HandoffRig rig(3);
    rig.cfg.ports[1].rx_queues = 0;
    rig.cfg.forward.pairs = {{"a", "b", {}}, {"c", "b", {}}};
    rig.run();
    const Plan& plan = rig.app->resolved_plan();
    REQUIRE(plan.workers.size() == 2);
    CHECK(plan.ports[1].tx == TxMode::owner);
    CHECK(plan.ports[1].tx_queues == 1);
    CHECK(plan.workers[0].handoff_to == kNoWorker);
    CHECK(plan.workers[1].handoff_to == 0);
    const auto lines = render_plan(rig.cfg, plan);
    CHECK(std::find(lines.begin(), lines.end(),
                    "worker 1 on lcore 2: polls 'c' rxq 0 -> hands off to worker 0, owner of "
                    "'b' txq 0") != lines.end());

    rig.inject(0, 0, make_frames(300));
    rig.inject(2, 1, make_frames(200));
    CHECK(collect(rig.rings[1].tx, 500).size() == 500);
    const WorkerSnapshot sum = settled_totals(*rig.app, 500);
    CHECK(sum.tx_pkts == 500);
    CHECK(rig.app->worker_snapshot(0).handoff_in == 200);
    CHECK(rig.app->worker_snapshot(1).handoff_out == 200);
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("tx per-worker on a device with too few TX queues is refused", "[handoff]") {
    HandoffRig rig(3);
    rig.cfg.ports[1].rx_queues = 0;
    rig.cfg.ports[1].tx = TxMode::per_worker;
    rig.cfg.forward.pairs = {{"a", "b", {}}, {"c", "b", {}}};
    auto started = rig.start();
    REQUIRE(!started);
    const std::string& msg = started.error().message;
    CHECK(msg.find("port 'b' (net_ring) allows at most 1 tx queues") != std::string::npos);
    CHECK(msg.find("set tx = \"owner\" or \"auto\"") != std::string::npos);
    CHECK(msg.find("port[1].tx") != std::string::npos);
}

TEST_CASE("a full handoff ring drops and counts handoff_full, never blocks", "[handoff]") {
    rte_mempool* mp = rte_pktmbuf_pool_create("ho_full", 512, 0, 0, 2048, SOCKET_ID_ANY);
    REQUIRE(mp != nullptr);
    rte_ring* ring = rte_ring_create("ho_full_ring", 32, SOCKET_ID_ANY,
                                     RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
    REQUIRE(ring != nullptr);
    auto w = std::make_unique<WorkerContext>();
    w->has_tx = true;
    w->handoff_out = ring;  // nobody drains it
    for (const uint16_t n : {uint16_t(1), uint16_t(32), uint16_t(33)}) {
        DYNAMIC_SECTION("burst of " << n) {
            rte_mbuf* pkts[64];
            REQUIRE(rte_pktmbuf_alloc_bulk(mp, pkts, n) == 0);
            for (uint16_t i = 0; i < n; ++i) rte_pktmbuf_append(pkts[i], 64);
            const unsigned room = rte_ring_free_count(ring);
            const BurstOutcome out = forward_burst<ForwardMode::patch>(*w, pkts, n);
            const uint64_t queued = std::min<unsigned>(n, room);
            CHECK(out.handoff_out == queued);
            CHECK(out.drops[size_t(DropReason::handoff_full)] == n - queued);
            CHECK(out.tx_pkts == 0);
            CHECK(rte_mempool_avail_count(mp) == 512 - rte_ring_count(ring));
        }
    }
    void* objs[64];
    while (const unsigned n = rte_ring_dequeue_burst(ring, objs, 64, nullptr))
        rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(objs), n);
    CHECK(rte_mempool_avail_count(mp) == 512);
    rte_ring_free(ring);
    rte_mempool_free(mp);
}

TEST_CASE("handoff on net_null ports: the owner transmits what the poller receives", "[handoff]") {
    // vdev names start with their driver's name.
    const std::string tag = "net_null_ho" + std::to_string(++g_rig) + "_";
    REQUIRE(rte_vdev_init((tag + "0").c_str(), "size=64") == 0);
    REQUIRE(rte_vdev_init((tag + "1").c_str(), "no-rx=1") == 0);
    Config cfg;
    cfg.source_name = "test";
    for (int i = 0; i < 2; ++i) {
        PortConfig p;
        p.name = "n" + std::to_string(i);
        p.devargs = tag + std::to_string(i);
        p.rx_desc = p.tx_desc = 512;
        p.tx = TxMode::owner;
        cfg.ports.push_back(p);
    }
    cfg.forward.pairs = {{"n0", "n1", {}}};
    cfg.pool.model = PoolModel::recycle;  // the defer rings are what this test watches
    cfg.pool.mbufs = 4096;
    cfg.pool.cache = 64;
    {
        auto started = Appliance::start(cfg, plan_of(cfg), "honull" + std::to_string(g_rig));
        if (!started) FAIL(started.error().message);
        auto& app = *started.value();
        CHECK(app.resolved_plan().workers[0].handoff_to == 1);
        // Until the counts below have moved, however long a loaded host takes.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < deadline) {
            const RecycleCounts c = recycle_counts(app.worker_pool(0));
            if (c.deferred > 0 && c.refill_defer > 0 && app.worker_snapshot(0).rx_pkts > 10000 &&
                app.worker_snapshot(1).handoff_in > 0)
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        // Worker 1 frees worker 0's mbufs in tx_burst: they go back over its
        // defer ring.
        const RecycleCounts c = recycle_counts(app.worker_pool(0));
        CHECK(c.deferred > 0);
        CHECK(c.refill_defer > 0);
        const auto report = app.shutdown();
        CHECK(report.pools_full());
        const auto w0 = app.worker_snapshot(0), w1 = app.worker_snapshot(1);
        CHECK(w0.rx_pkts > 10000);
        CHECK(w0.handoff_out > 0);
        CHECK(w1.handoff_in > 0);
        CHECK(w1.tx_pkts == w1.handoff_in);  // a sink never refuses
        WorkerSnapshot sum = w0;
        sum += w1;
        // Bursts left in the ring at stop were freed by shutdown, and counted.
        CHECK(sum.rx_pkts == sum.tx_pkts + sum.total_drops() + sum.in_flight());
        CHECK(sum.in_flight() == report.handoff_drained);
    }
    rte_vdev_uninit((tag + "0").c_str());
    rte_vdev_uninit((tag + "1").c_str());
}
