// Forwarding on net_ring ports in-process: frames injected on one port come
// out of its pair unchanged (patch) or with rewritten MACs (l2); counters,
// drop reasons and the pool audit match what was sent.
#include <rte_launch.h>
#include <rte_pause.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>

#include "ring_ports.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

namespace {

int g_ring_case = 0;

struct Rig {
    RingPort a, b;
    Config cfg;
    std::unique_ptr<Appliance> app;
    rte_mempool* pool_a = nullptr;  // worker 0's pool: polls port a

    Rig(ForwardMode mode, unsigned b_tx_ring = 4096, bool b_to_nowhere = false,
        uint16_t b_mtu = 1500, bool read_lengths = true) {
        const std::string tag = "fr" + std::to_string(++g_ring_case);
        a = RingPort::create(tag + "a");
        b = RingPort::create(tag + "b", b_tx_ring);
        REQUIRE(a.port_id != 0xffff);
        REQUIRE(b.port_id != 0xffff);
        cfg = two_port_config(a, b, mode);
        cfg.ports[1].mtu = b_mtu;
        cfg.forward.read_lengths = read_lengths;
        if (b_to_nowhere) cfg.forward.pairs = {{"b", "a", {}}};
        auto started = Appliance::start(cfg, plan_of(cfg), tag);
        if (!started) FAIL(started.error().message);
        app = std::move(started.value());
        pool_a = rte_mempool_lookup((tag + "_w0").c_str());
        REQUIRE(pool_a != nullptr);
    }
    ~Rig() {
        if (app) app->shutdown();
        a.destroy();
        b.destroy();
    }
    void inject_a(const std::vector<std::vector<uint8_t>>& frames) {
        for (const auto& f : frames) {
            rte_mbuf* m = to_mbuf(pool_a, f);
            REQUIRE(m != nullptr);
            REQUIRE(rte_ring_enqueue(a.rx, m) == 0);
        }
    }
};

void check_identity(const WorkerSnapshot& s) {
    CHECK(s.rx_pkts + s.handoff_in == s.tx_pkts + s.total_drops() + s.handoff_out);
}

}  // namespace

TEST_CASE("patch mode forwards frames unchanged and in order", "[forward][patch]") {
    for (const size_t n : {size_t(1), size_t(32), size_t(33), size_t(1000)}) {
        DYNAMIC_SECTION("burst of " << n) {
            Rig rig(ForwardMode::patch);
            const auto sent = make_frames(n, 60 + uint16_t(n % 7));
            rig.inject_a(sent);
            const auto got = collect(rig.b.tx, n);
            REQUIRE(got.size() == n);
            CHECK(got == sent);
            REQUIRE(wait_rx(*rig.app, 0, n));
            const auto s = rig.app->worker_snapshot(0);
            CHECK(s.rx_pkts == n);
            CHECK(s.tx_pkts == n);
            CHECK(s.total_drops() == 0);
            uint64_t bytes = 0;
            for (const auto& f : sent) bytes += f.size();
            CHECK(s.rx_bytes == bytes);
            CHECK(s.tx_bytes == bytes);
            check_identity(s);
            const auto report = rig.app->shutdown();
            CHECK(report.pools_full());
        }
    }
}

TEST_CASE("patch mode forwards both directions of a pair", "[forward][patch]") {
    Rig rig(ForwardMode::patch);
    rte_mempool* pool_b = rte_mempool_lookup(("fr" + std::to_string(g_ring_case) + "_w1").c_str());
    REQUIRE(pool_b != nullptr);
    const auto sent = make_frames(50);
    for (const auto& f : sent) REQUIRE(rte_ring_enqueue(rig.b.rx, to_mbuf(pool_b, f)) == 0);
    const auto got = collect(rig.a.tx, sent.size());
    CHECK(got == sent);
    REQUIRE(wait_rx(*rig.app, 1, sent.size()));
    CHECK(rig.app->worker_snapshot(1).tx_pkts == sent.size());
    CHECK(rig.app->worker_snapshot(0).rx_pkts == 0);
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("l2 mode rewrites destination to the next hop and source to the output port",
          "[forward][l2]") {
    for (const size_t n : {size_t(1), size_t(32), size_t(33)}) {
        DYNAMIC_SECTION("burst of " << n) {
            Rig rig(ForwardMode::l2);
            const auto sent = make_frames(n, 128);
            rig.inject_a(sent);
            const auto got = collect(rig.b.tx, n);
            REQUIRE(got.size() == n);
            rte_ether_addr b_mac;
            REQUIRE(rte_eth_macaddr_get(rig.b.port_id, &b_mac) == 0);
            const MacAddr next_hop = rig.cfg.forward.next_hop_mac.at("b");
            for (size_t i = 0; i < n; ++i) {
                auto expected = sent[i];
                std::memcpy(expected.data(), next_hop.bytes.data(), 6);
                std::memcpy(expected.data() + 6, b_mac.addr_bytes, 6);
                CHECK(got[i] == expected);
            }
            REQUIRE(wait_rx(*rig.app, 0, n));
            const auto s = rig.app->worker_snapshot(0);
            CHECK(s.tx_pkts == n);
            check_identity(s);
            CHECK(rig.app->shutdown().pools_full());
        }
    }
}

TEST_CASE("runts and oversize frames are dropped by name, the rest forwarded in order",
          "[forward][l2][patch]") {
    // Port b's mtu is 1000: it sends frames of up to 1018 bytes (Ethernet
    // header and one VLAN tag). A runt is shorter than an Ethernet header,
    // and only l2 mode, which writes that header, looks for one.
    constexpr uint16_t kMtu = 1000;
    constexpr uint16_t kMaxFrame = kMtu + 18;
    struct Case {
        const char* name;
        ForwardMode mode;
        std::vector<uint16_t> lens;  // one burst
    };
    std::vector<uint16_t> mixed_33;
    for (uint16_t i = 0; i < 33; ++i) mixed_33.push_back(i % 3 == 1 ? kMaxFrame + 1 + i : 64 + i);
    const Case cases[] = {
        {"l2: runts inside", ForwardMode::l2, {64, 10, 64, 13, 14}},
        {"l2: runts first and last", ForwardMode::l2, {13, 64, 64, 100, 1}},
        {"l2: oversize and runts mixed",
         ForwardMode::l2,
         {kMaxFrame + 1, 64, 10, kMaxFrame, 2000, 14}},
        {"l2: one oversize frame", ForwardMode::l2, {kMaxFrame + 1}},
        {"l2: a burst of 33, every third oversize", ForwardMode::l2, mixed_33},
        {"l2: full frames and ACKs, one too long",
         ForwardMode::l2,
         {kMaxFrame, 60, kMaxFrame - 4, 54, kMaxFrame + 1, 60}},
        {"patch: oversize inside", ForwardMode::patch, {64, kMaxFrame + 1, kMaxFrame, 2000, 60}},
        {"patch: oversize first and last", ForwardMode::patch, {1500, 64, 10, 2000}},
        {"patch: full frames and ACKs, none too long",
         ForwardMode::patch,
         {kMaxFrame, 60, kMaxFrame - 4, 54, 60, kMaxFrame}},
        {"patch: full frames and ACKs, one too long",
         ForwardMode::patch,
         {kMaxFrame, 60, kMaxFrame - 4, 54, kMaxFrame + 1, 60}},
        {"patch: one oversize frame", ForwardMode::patch, {kMaxFrame + 1}},
        {"patch: a burst of 33, every third oversize", ForwardMode::patch, mixed_33},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Rig rig(c.mode, 4096, false, kMtu);
            std::vector<std::vector<uint8_t>> sent;
            std::vector<size_t> kept;
            uint64_t rx_bytes = 0, tx_bytes = 0, runts = 0, oversize = 0;
            for (size_t i = 0; i < c.lens.size(); ++i) {
                sent.push_back(make_frame(uint32_t(i), c.lens[i]));
                rx_bytes += c.lens[i];
                if (c.mode == ForwardMode::l2 && c.lens[i] < kEtherHeaderLen) {
                    runts++;
                } else if (c.lens[i] > kMaxFrame) {
                    oversize++;
                } else {
                    kept.push_back(i);
                    tx_bytes += c.lens[i];
                }
            }
            rig.inject_a(sent);
            const auto got = collect(rig.b.tx, kept.size());
            REQUIRE(got.size() == kept.size());
            // In order; patch frames whole, l2 frames past the MAC header.
            for (size_t k = 0; k < kept.size(); ++k) {
                const auto& want = sent[kept[k]];
                REQUIRE(got[k].size() == want.size());
                const size_t from = c.mode == ForwardMode::l2 ? 12 : 0;
                CHECK(std::equal(got[k].begin() + long(from), got[k].end(),
                                 want.begin() + long(from)));
            }
            REQUIRE(wait_rx(*rig.app, 0, sent.size()));
            const auto s = rig.app->worker_snapshot(0);
            CHECK(s.drops[size_t(DropReason::runt)] == runts);
            CHECK(s.drops[size_t(DropReason::oversize)] == oversize);
            CHECK(s.drops[size_t(DropReason::tx_full)] == 0);
            CHECK(s.tx_pkts == kept.size());
            CHECK(s.rx_bytes == rx_bytes);
            CHECK(s.tx_bytes == tx_bytes);
            check_identity(s);
            CHECK(rig.app->shutdown().pools_full());
        }
    }
}

TEST_CASE("patch mode with read_lengths = false passes every frame on and counts no byte",
          "[forward][patch]") {
    // b's mtu allows 1018-byte frames and its tx ring holds 63 frames: the
    // longer frames go out like the rest, and the 137 that do not fit are
    // tx_full drops whose bytes, never counted, are not taken back either.
    constexpr uint16_t kMtu = 1000;
    Rig rig(ForwardMode::patch, 64, false, kMtu, /*read_lengths=*/false);
    std::vector<std::vector<uint8_t>> sent;
    for (uint32_t i = 0; i < 200; ++i)
        sent.push_back(make_frame(i, i % 5 == 2 ? kMtu + 18 + 1 + uint16_t(i) : 64));
    rig.inject_a(sent);
    REQUIRE(wait_rx(*rig.app, 0, sent.size()));
    const auto s = rig.app->worker_snapshot(0);
    CHECK(s.tx_pkts == 63);
    CHECK(s.drops[size_t(DropReason::tx_full)] == 200 - 63);
    CHECK(s.drops[size_t(DropReason::oversize)] == 0);
    CHECK(s.rx_bytes == 0);
    CHECK(s.tx_bytes == 0);
    check_identity(s);
    const auto got = collect(rig.b.tx, 63);
    CHECK(got == std::vector<std::vector<uint8_t>>(sent.begin(), sent.begin() + 63));
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("a full TX ring drops and counts tx_full, never blocks", "[forward][drops]") {
    // b's tx ring holds 63 frames and nobody drains it.
    Rig rig(ForwardMode::patch, 64);
    rig.inject_a(make_frames(200));
    REQUIRE(wait_rx(*rig.app, 0, 200));
    const auto s = rig.app->worker_snapshot(0);
    CHECK(s.tx_pkts == 63);
    CHECK(s.drops[size_t(DropReason::tx_full)] == 200 - 63);
    check_identity(s);
    // The 63 frames in b's ring are outside pmdfwd; once returned, the pool is whole.
    const auto got = collect(rig.b.tx, 63);
    CHECK(got.size() == 63);
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("a TX shortfall while the output link is down counts as link_down", "[forward][drops]") {
    Rig rig(ForwardMode::patch, 64);
    REQUIRE(rte_eth_dev_set_link_down(rig.b.port_id) == 0);
    rig.app->housekeeping();  // the first call samples every link
    REQUIRE(rig.app->port_at(1).link() == LinkState::down);
    // net_ring still takes frames while down: its 63 slots fill, then no more.
    rig.inject_a(make_frames(200));
    REQUIRE(wait_rx(*rig.app, 0, 200));
    const auto s = rig.app->worker_snapshot(0);
    CHECK(s.tx_pkts == 63);
    CHECK(s.drops[size_t(DropReason::link_down)] == 200 - 63);
    CHECK(s.drops[size_t(DropReason::tx_full)] == 0);
    check_identity(s);
    CHECK(collect(rig.b.tx, 63).size() == 63);
    CHECK(rte_eth_dev_set_link_up(rig.b.port_id) == 0);
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("a port that is the source of no pair drops as no_route", "[forward][drops]") {
    for (const bool read_lengths : {true, false}) {
        DYNAMIC_SECTION("read_lengths = " << read_lengths) {
            Rig rig(ForwardMode::patch, 4096, /*b_to_nowhere=*/true, 1500, read_lengths);
            rig.inject_a(make_frames(40));
            REQUIRE(wait_rx(*rig.app, 0, 40));
            const auto s = rig.app->worker_snapshot(0);
            CHECK(s.drops[size_t(DropReason::no_route)] == 40);
            CHECK(s.tx_pkts == 0);
            CHECK(s.rx_bytes == (read_lengths ? 40u * 64 : 0u));
            check_identity(s);
            CHECK(rte_ring_count(rig.b.tx) == 0);
            CHECK(rig.app->shutdown().pools_full());
        }
    }
}

TEST_CASE("the shutdown audit reports mbufs that never came back", "[accounting]") {
    Rig rig(ForwardMode::patch, 64);
    rig.inject_a(make_frames(10));
    REQUIRE(wait_rx(*rig.app, 0, 10));
    // Take the forwarded mbufs out of the ring and hold them across shutdown.
    void* held[16];
    REQUIRE(rte_ring_dequeue_bulk(rig.b.tx, held, 10, nullptr) == 10);
    const auto report = rig.app->shutdown();
    CHECK_FALSE(report.pools_full());
    int64_t missing = 0;
    for (const auto& a : report.audits) missing += a.missing();
    CHECK(missing == 10);
    // The pools are gone now; the held pointers are not touched again.
}

TEST_CASE("clearing stats restarts counters from zero without touching the worker", "[stats]") {
    Rig rig(ForwardMode::patch);
    rig.inject_a(make_frames(20));
    REQUIRE(collect(rig.b.tx, 20).size() == 20);
    REQUIRE(wait_rx(*rig.app, 0, 20));
    rig.app->clear_stats();
    CHECK(rig.app->worker_snapshot(0).rx_pkts == 0);
    rig.inject_a(make_frames(5));
    REQUIRE(collect(rig.b.tx, 5).size() == 5);
    REQUIRE(wait_rx(*rig.app, 0, 5));
    const auto s = rig.app->worker_snapshot(0);
    CHECK(s.rx_pkts == 5);
    CHECK(s.tx_pkts == 5);
    CHECK(rig.app->shutdown().pools_full());
}

TEST_CASE("a start that fails hands back the audit of the pools it had made", "[accounting]") {
    const std::string tag = "fr" + std::to_string(++g_ring_case);
    RingPort a = RingPort::create(tag + "a"), b = RingPort::create(tag + "b");
    Config cfg = two_port_config(a, b, ForwardMode::patch);
    // Worker 1's lcore is busy: its launch fails last, once pools and ports
    // are set up and worker 0 runs.
    static std::atomic<bool> release{false};
    release = false;
    REQUIRE(rte_eal_remote_launch(
                [](void*) {
                    while (!release.load()) rte_pause();
                    return 0;
                },
                nullptr, 2) == 0);
    ShutdownReport unwound;
    auto started = Appliance::start(cfg, plan_of(cfg), tag, &unwound);
    release = true;
    rte_eal_wait_lcore(2);
    REQUIRE(!started);
    CHECK(started.error().message.find("worker 1: rte_eal_remote_launch on lcore 2 failed") !=
          std::string::npos);
    REQUIRE(unwound.audits.size() == 2);
    CHECK(unwound.pools_full());
    CHECK(rte_mempool_lookup((tag + "_w0").c_str()) == nullptr);
    a.destroy();
    b.destroy();
}
