// pmdgen's engine on a net_ring loopback whose wire the test controls: the
// frames it sends are taken off the TX ring, some dropped, some swapped, some
// duplicated, a few foreign ones added, and put on the RX ring; the loss,
// reorder, duplicate and latency accounting must match exactly.
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "histogram.hpp"
#include "pool.hpp"
#include "port.hpp"
#include "ring_ports.hpp"
#include "traffic_gen.hpp"

using namespace pmdfwd;

namespace {

struct Wire {
    test::RingPort port;
    std::unique_ptr<Pool> pool;
    PortConfig pc;
    std::unique_ptr<Port> dev;

    explicit Wire(const std::string& tag) {
        port = test::RingPort::create(tag, 8192);
        auto p = Pool::create(tag + "_pool", 8192, 0, 2176, SOCKET_ID_ANY);
        REQUIRE(p);
        pool = std::move(p.value());
        pc.name = tag;
        pc.devargs = port.name;
        pc.promiscuous = false;
        PortSetup setup;
        setup.config = &pc;
        setup.plan.rx_queues = 1;
        setup.plan.tx_queues = 1;
        setup.rx_pools = {pool->mempool()};
        auto d = Port::open(setup);
        REQUIRE(d);
        dev = std::move(d.value());
    }
    ~Wire() {
        dev.reset();
        port.destroy();
    }
    // One generator poll, then back to the generator what it sent: the wire.
    void poll(TrafficGen& gen) const {
        gen.poll(true);
        void* objs[64];
        const unsigned n = rte_ring_dequeue_burst(port.tx, objs, 64, nullptr);
        if (rte_ring_enqueue_bulk(port.rx, objs, n, nullptr) != n) FAIL("rx ring full");
    }
    GenConfig gen_config() const {
        GenConfig g;
        g.tx_port = g.rx_port = dev->id();
        g.pool = pool->mempool();
        g.flows = 4;
        g.burst = 32;
        return g;
    }
};

uint64_t seq_of(rte_mbuf* m) {
    return parse_probe(rte_pktmbuf_mtod(m, const uint8_t*), m->data_len)->seq;
}

}  // namespace

TEST_CASE("pmdgen engine: loss, reordering and duplicates against a known wire", "[pmdgen]") {
    Wire wire("tg1");
    TrafficGen gen(wire.gen_config());
    gen.start(rte_rdtsc());
    while (gen.counters().sent < 1024) gen.poll(true);
    REQUIRE(gen.counters().sent == 1024);  // 32 bursts of 32, nothing received yet
    CHECK(gen.sequence().received() == 0);

    std::vector<rte_mbuf*> sent(1024);
    REQUIRE(rte_ring_dequeue_bulk(wire.port.tx, reinterpret_cast<void**>(sent.data()), 1024,
                                  nullptr) == 1024);
    for (uint64_t i = 0; i < 1024; ++i) REQUIRE(seq_of(sent[i]) == i);
    // The flows take turns: source ports 1024.. in rotation.
    CHECK(parse_probe(rte_pktmbuf_mtod(sent[5], const uint8_t*), 60)->src_port ==
          uint16_t(wire.gen_config().endpoints.src_port + 1));

    std::vector<rte_mbuf*> wire_out;
    uint64_t dropped = 0;
    for (uint64_t i = 0; i < 1024; ++i) {
        if (i % 10 == 3) {  // 3, 13, ..., 1023
            rte_pktmbuf_free(sent[i]);
            dropped++;
            continue;
        }
        wire_out.push_back(sent[i]);
        if (i == 200 || i == 700) {  // the same buffer twice
            rte_mbuf_refcnt_update(sent[i], 1);
            wire_out.push_back(sent[i]);
        }
    }
    // Two swaps: each makes one packet arrive after a higher number.
    for (const uint64_t s : {uint64_t(100), uint64_t(500)}) {
        auto it = std::find_if(wire_out.begin(), wire_out.end(),
                               [&](rte_mbuf* m) { return seq_of(m) == s; });
        REQUIRE(it + 1 != wire_out.end());
        std::iter_swap(it, it + 1);
    }
    // Frames that are not probes.
    for (uint32_t i = 0; i < 5; ++i)
        wire_out.push_back(test::to_mbuf(wire.pool->mempool(), test::make_frame(i, 60)));
    REQUIRE(rte_ring_enqueue_bulk(wire.port.rx, reinterpret_cast<void**>(wire_out.data()),
                                  unsigned(wire_out.size()), nullptr) == wire_out.size());
    while (gen.receive() != 0) {
    }

    const SequenceTracker& s = gen.sequence();
    CHECK(dropped == 103);
    CHECK(s.received() == 1024 - 103 + 2);
    CHECK(s.unique() == 1024 - 103);
    CHECK(s.lost(gen.counters().sent) == 103);
    CHECK(s.duplicates() == 2);
    CHECK(s.reordered() == 2);
    CHECK(gen.counters().rx_other == 5);
    const HistogramSnapshot lat = gen.latency().read();
    CHECK(lat.count == s.received());
    CHECK(lat.min <= lat.max);
    CHECK(wire.pool->audit().missing() == 0);
}

TEST_CASE("pmdgen engine: a fixed rate is held", "[pmdgen]") {
    Wire wire("tg2");
    GenConfig g = wire.gen_config();
    g.rate_pps = 20000;
    TrafficGen gen(g);
    const uint64_t hz = rte_get_tsc_hz();
    const uint64_t start = rte_rdtsc();
    gen.start(start);
    // ~100 ms: ~2000 packets; the wire hands each one straight back.
    uint64_t before_last = start, after_last = start;
    const auto poll = [&] {
        before_last = rte_rdtsc();
        wire.poll(gen);
        after_last = rte_rdtsc();
    };
    while (rte_rdtsc() - start < hz / 10) poll();
    // A poll sends what was due when it read the TSC, at most a burst: after
    // a stall (a busy host preempts this thread for milliseconds) the next
    // polls make up the rest. Poll until what was due at the last window's
    // poll has gone, however long the host takes; never more than was due.
    const uint64_t due = 20000 * (before_last - start) / hz;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (gen.counters().sent < due && std::chrono::steady_clock::now() < deadline) poll();
    const uint64_t sent = gen.counters().sent;
    CHECK(sent >= due);
    CHECK(sent <= 20000 * (after_last - start) / hz);
    CHECK(sent >= 1000);
    while (gen.receive() != 0) {
    }
    CHECK(gen.sequence().unique() == sent);
    CHECK(gen.sequence().reordered() == 0);
    CHECK(wire.pool->audit().missing() == 0);
}

TEST_CASE("pmdgen engine: nothing falls due after the end of the run", "[pmdgen]") {
    Wire wire("tg3");
    GenConfig g = wire.gen_config();
    g.rate_pps = 20000;
    TrafficGen gen(g);
    const uint64_t hz = rte_get_tsc_hz();
    const uint64_t start = rte_rdtsc();
    gen.start(start, start + hz / 20);  // 50 ms: 1000 packets due in all
    const auto poll = [&] { wire.poll(gen); };
    // Past the end however long the host stalls this thread: polls there
    // make up what was due at the end and nothing more.
    while (rte_rdtsc() - start < hz / 5) poll();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (gen.counters().sent < 1000 && std::chrono::steady_clock::now() < deadline) poll();
    for (int i = 0; i < 100; ++i) poll();
    CHECK(gen.counters().sent == 1000);
    while (gen.receive() != 0) {
    }
    CHECK(gen.sequence().unique() == 1000);
    CHECK(wire.pool->audit().missing() == 0);
}
