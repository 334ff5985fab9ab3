// The log channel on a real net_ring port: datagrams on the wire in
// netconsole format, fragments, a reserve that data pools cannot drain, the
// rate limit, a full queue, concurrent senders that never wait, both send
// paths, and the spdlog sink's gap-free sequence.
#define ALLOW_EXPERIMENTAL_API  // rte_pktmbuf_pool_create_extbuf: a reserve of external buffers
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_memzone.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>
#include <thread>

#include "appliance.hpp"
#include "netlog_channel.hpp"
#include "netlog_sink.hpp"
#include "pool.hpp"
#include "ring_ports.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

namespace {

int g_nl = 0;

struct Datagram {
    std::vector<uint8_t> frame;
    const void* mbuf = nullptr;  // the buffer it left in
    std::string payload() const {
        return std::string(frame.begin() + kUdpFrameHeaderLen, frame.end());
    }
};

// A started net_ring port whose TX ring the test reads, a reserve pool, and
// a channel on TX queue 0.
struct ChannelRig {
    RingPort port;
    rte_mempool* rx_pool = nullptr;
    rte_mempool* reserve = nullptr;
    std::unique_ptr<NetlogChannel> ch;
    NetlogConfig cfg;

    bool owns_reserve = true;

    // With `external`, the reserve is the caller's, freed by the caller.
    explicit ChannelRig(unsigned tx_ring = 16384, rte_mempool* external = nullptr) {
        const std::string tag = "nl" + std::to_string(++g_nl);
        port = RingPort::create(tag, tx_ring);
        REQUIRE(port.port_id != 0xffff);
        rx_pool = rte_pktmbuf_pool_create((tag + "_rx").c_str(), 1024, 0, 0, 2048, SOCKET_ID_ANY);
        owns_reserve = external == nullptr;
        reserve = external ? external
                           : rte_pktmbuf_pool_create((tag + "_res").c_str(), 256, 0, 0, 128 + 1088,
                                                     SOCKET_ID_ANY);
        REQUIRE(rx_pool);
        REQUIRE(reserve);
        rte_eth_conf conf{};
        REQUIRE(rte_eth_dev_configure(port.port_id, 1, 1, &conf) == 0);
        REQUIRE(rte_eth_rx_queue_setup(port.port_id, 0, 256, SOCKET_ID_ANY, nullptr, rx_pool) == 0);
        REQUIRE(rte_eth_tx_queue_setup(port.port_id, 0, 256, SOCKET_ID_ANY, nullptr) == 0);
        REQUIRE(rte_eth_dev_start(port.port_id) == 0);
        cfg.enabled = true;
        cfg.src_ip = *Ipv4Addr::parse("10.9.0.1");
        cfg.dst_ip = *Ipv4Addr::parse("10.9.0.2");
        cfg.dst_mac = *MacAddr::parse("02:00:00:00:09:02");
        cfg.rate_limit = 0;
        cfg.prefill = 8;
    }
    void open() {
        NetlogSetup s;
        s.config = cfg;
        s.port_id = port.port_id;
        s.queue = 0;
        s.src_mac = *MacAddr::parse("02:00:00:00:09:01");
        s.port_name = "log";
        s.reserve = reserve;
        auto made = NetlogChannel::create(s);
        if (!made) FAIL(made.error().message);
        ch = std::move(made.value());
    }
    ~ChannelRig() {
        ch.reset();
        drain();
        rte_eth_dev_stop(port.port_id);
        rte_eth_dev_close(port.port_id);
        port.destroy();
        rte_mempool_free(rx_pool);
        if (owns_reserve) rte_mempool_free(reserve);
    }
    std::vector<Datagram> drain() {
        std::vector<Datagram> out;
        void* objs[64];
        while (const unsigned n = rte_ring_dequeue_burst(port.tx, objs, 64, nullptr))
            for (unsigned i = 0; i < n; ++i) {
                auto* m = static_cast<rte_mbuf*>(objs[i]);
                out.push_back({bytes_of(m), m});
                rte_pktmbuf_free(m);
            }
        return out;
    }
    uint64_t stat(const std::string& key) const {
        const auto v = ch->stats().get(key);
        if (!v) FAIL("no field " << key);
        return std::get<uint64_t>(*v);
    }
};

NetlogRecord rec(std::string_view text, uint64_t seq) {
    NetlogRecord r;
    r.level = 6;
    r.seq = seq;
    r.timestamp_us = 99;
    r.text = text;
    return r;
}

}  // namespace

TEST_CASE("netlog channel: records leave as netconsole UDP datagrams", "[netlog]") {
    ChannelRig rig;
    rig.open();
    CHECK(rig.ch->send(rec("hello", 5)) == 1);
    std::string long_text;
    while (long_text.size() < 2200) long_text += "0123456789";
    CHECK(rig.ch->send(rec(long_text, 6)) == 3);
    const auto got = rig.drain();
    REQUIRE(got.size() == 4);
    const auto& f = got[0].frame;
    CHECK(std::vector<uint8_t>(f.begin(), f.begin() + 6) ==
          std::vector<uint8_t>{0x02, 0, 0, 0, 0x09, 0x02});
    CHECK(ipv4_header_checksum(f.data() + 14, 20) == 0);
    CHECK((f[36] << 8 | f[37]) == 6666);
    CHECK(got[0].payload() == "6,5,99,-;hello\n");
    std::string body;
    for (size_t i = 1; i < 4; ++i) {
        const std::string p = got[i].payload();
        CHECK(p.size() <= kNetlogPayloadMax);
        CHECK(p.rfind("6,6,99,-,ncfrag=" + std::to_string(body.size()) + "/2201;", 0) == 0);
        body += p.substr(p.find(';') + 1);
    }
    CHECK(body == long_text + "\n");
    CHECK(rig.stat("records") == 2);
    CHECK(rig.stat("datagrams") == 4);
    CHECK(rig.stat("dropped") == 0);
    CHECK(rig.stat("latency_count") == 4);  // each datagram's send is timed
    CHECK(rig.stat("latency_p50_ns") > 0);
    CHECK(rig.ch->latency().sum > 0);
}

namespace {

// The record a netconsole receiver puts together from the datagrams of one
// sequence number: the head and every fragment's text in offset order. Each
// fragment must name the same total, and the text must be that long.
std::string reassembled(const std::vector<Datagram>& got, uint64_t seq) {
    const std::string head = "6," + std::to_string(seq) + ",99,-";
    std::string text;
    std::string total;
    for (const auto& d : got) {
        const std::string p = d.payload();
        if (p.rfind(head + ";", 0) == 0) return p;  // one datagram
        if (p.rfind(head + ",ncfrag=", 0) != 0) continue;
        const size_t semi = p.find(';');
        const std::string field = p.substr(head.size() + 8, semi - head.size() - 8);
        CHECK(std::stoul(field.substr(0, field.find('/'))) == text.size());
        if (total.empty()) total = field.substr(field.find('/') + 1);
        CHECK(field.substr(field.find('/') + 1) == total);
        text += p.substr(semi + 1);
    }
    CHECK(std::to_string(text.size()) == total);
    return head + ";" + text;
}

}  // namespace

TEST_CASE(
    "netlog channel: a record longer than netconsole's 8192 bytes arrives cut, marked, "
    "counted",
    "[netlog]") {
    ChannelRig rig;
    rig.open();
    // "6,<seq>,99,-;" is 9 bytes at seq 1 and 2; then the text and its newline.
    const std::string fits(kNetlogRecordMax - 9 - 1, 'f');
    REQUIRE(rig.ch->send(rec(fits, 1)) == 9);
    std::string text;
    for (int i = 0; text.size() < 16384; ++i) text += std::to_string(i) + " ";
    REQUIRE(rig.ch->send(rec(text, 2)) == 9);
    const auto got = rig.drain();
    REQUIRE(got.size() == 18);
    for (const auto& d : got) CHECK(d.payload().size() <= kNetlogPayloadMax);
    const std::string whole = reassembled(got, 1);
    CHECK(whole == "6,1,99,-;" + fits + "\n");
    CHECK(whole.size() == 8191);
    const std::string cut = reassembled(got, 2);
    CHECK(cut.size() == 8191);
    const std::string tail = std::string(kNetlogCutMark) + "\n";
    REQUIRE(cut.size() > tail.size());
    CHECK(cut.substr(cut.size() - tail.size()) == tail);
    CHECK(cut.substr(9, cut.size() - 9 - tail.size()) ==
          text.substr(0, cut.size() - 9 - tail.size()));
    CHECK(rig.stat("truncated") == 1);
    CHECK(rig.stat("records") == 2);
    // The crash path cuts and counts alike.
    CHECK(rig.ch->send_emergency(rec(text, 3)) == 9);
    CHECK(rig.stat("truncated") == 2);
    CHECK(rig.drain().size() == 9);
}

TEST_CASE(
    "netlog in the appliance: with a data pool exhausted by traffic held in flight, "
    "the exhaustion warning and other records still go out",
    "[netlog]") {
    const std::string tag = "nla" + std::to_string(++g_nl);
    RingPort a = RingPort::create(tag + "a", 4096, 2);  // queue 1: the log channel's
    RingPort b = RingPort::create(tag + "b", 16384);    // holds what is forwarded
    REQUIRE(a.port_id != 0xffff);
    REQUIRE(b.port_id != 0xffff);
    Config cfg = two_port_config(a, b, ForwardMode::patch);
    cfg.pool.mbufs = 1024;
    cfg.pool.cache = 32;
    for (auto& p : cfg.ports) p.rx_desc = p.tx_desc = 128;
    enable_netlog(cfg, "a");
    netlog_install_sink("info");
    {
        auto started = Appliance::start(cfg, plan_of(cfg), tag);
        if (!started) FAIL(started.error().message);
        Appliance& app = *started.value();
        CHECK(app.resolved_plan().ports[0].netlog_queue == 1);
        // Fill worker 0's pool into b's TX ring, which nobody drains.
        rte_mempool* pool = app.worker_pool(0);
        size_t injected = 0;
        while (rte_mbuf* m = rte_pktmbuf_alloc(pool)) {
            std::memcpy(rte_pktmbuf_append(m, 64), make_frame(uint32_t(injected)).data(), 64);
            REQUIRE(rte_ring_enqueue(a.rx, m) == 0);
            ++injected;
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (rte_ring_count(b.tx) < injected && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        REQUIRE(rte_ring_count(b.tx) == injected);
        CHECK(rte_mempool_avail_count(pool) == 0);
        app.housekeeping();
        app.log_test(1500, 1);
        // Every record went out on the channel's own queue: a's second ring.
        std::string seen;
        void* objs[64];
        while (const unsigned n = rte_ring_dequeue_burst(a.tx2, objs, 64, nullptr))
            for (unsigned i = 0; i < n; ++i) {
                auto* m = static_cast<rte_mbuf*>(objs[i]);
                const auto bytes = bytes_of(m);
                seen.append(bytes.begin() + kUdpFrameHeaderLen, bytes.end());
                rte_pktmbuf_free(m);
            }
        CHECK(seen.find("pool '" + tag + "_w0' exhausted: 1024 of 1024 mbufs in use") !=
              std::string::npos);
        CHECK(seen.find("netlog test record of 1500 bytes") != std::string::npos);
        CHECK(rte_ring_count(a.tx) == 0);  // nothing on worker 1's queue
        // Let the traffic go; the audit then finds every data pool full. The
        // channel's last records (final stats) sit in a's second ring, which
        // only this test reads: exactly those are out of the reserve.
        while (const unsigned n = rte_ring_dequeue_burst(b.tx, objs, 64, nullptr))
            rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(objs), n);
        const auto report = app.shutdown();
        for (const auto& audit : report.audits)
            CHECK(audit.missing() ==
                  (audit.name == tag + "_netlog" ? int64_t(rte_ring_count(a.tx2)) : 0));
        CHECK(rte_ring_count(a.tx2) >= 4);  // final worker, totals, ports, channel stats
    }
    a.destroy();
    b.destroy();
}

TEST_CASE("netlog channel: records still go out when every data pool is exhausted", "[netlog]") {
    ChannelRig rig;
    rig.open();
    // A data pool with every buffer held in flight.
    rte_mempool* data = rte_pktmbuf_pool_create("nl_data", 512, 0, 0, 2048, SOCKET_ID_ANY);
    REQUIRE(data);
    std::vector<rte_mbuf*> held(512);
    REQUIRE(rte_pktmbuf_alloc_bulk(data, held.data(), 512) == 0);
    CHECK(rte_pktmbuf_alloc(data) == nullptr);
    for (int i = 0; i < 50; ++i) CHECK(rig.ch->send(rec("data pools are empty", uint64_t(i))) == 1);
    CHECK(rig.drain().size() == 50);
    rte_pktmbuf_free_bulk(held.data(), 512);
    rte_mempool_free(data);
}

TEST_CASE("netlog channel: the rate limit drops and counts; the crash path ignores it",
          "[netlog]") {
    ChannelRig rig;
    rig.cfg.rate_limit = 1;  // a token a second: none comes back during the test
    rig.cfg.rate_burst = 5;
    rig.open();
    size_t sent = 0;
    for (int i = 0; i < 5; ++i) sent += rig.ch->send(rec("storm", uint64_t(i)));
    const uint64_t timed = rig.ch->latency().sum;
    CHECK(timed > 0);
    for (int i = 5; i < 20; ++i) sent += rig.ch->send(rec("storm", uint64_t(i)));
    CHECK(sent == 5);
    CHECK(rig.stat("drop_rate_limited") == 15);
    CHECK(rig.ch->latency().sum == timed);  // a refused datagram never started
    CHECK(rig.ch->send_emergency(rec("dying", 20)) == 1);
    CHECK(rig.stat("emergency_sends") == 1);
    CHECK(rig.drain().size() == 6);
    CHECK(rig.stat("latency_count") == 6);  // a datagram the bucket refused was never sent
}

TEST_CASE("netlog channel: a long record goes out whole or not at all under the rate limit",
          "[netlog]") {
    ChannelRig rig;
    rig.cfg.rate_limit = 10;
    rig.cfg.rate_burst = 5;
    rig.open();
    const std::string text(2200, 'r');  // three datagrams
    CHECK(rig.ch->send(rec(text, 1)) == 3);
    CHECK(rig.ch->send(rec(text, 2)) == 0);  // two tokens left: none of its fragments go
    CHECK(rig.stat("drop_rate_limited") == 3);
    CHECK(rig.stat("records") == 1);
    CHECK(rig.drain().size() == 3);
}

TEST_CASE("netlog channel: a full TX queue drops tx_full and never blocks", "[netlog]") {
    ChannelRig rig(32);  // 31 datagrams fit, nobody drains
    rig.open();
    size_t sent = 0;
    for (int i = 0; i < 40; ++i) sent += rig.ch->send(rec("x", uint64_t(i)));
    CHECK(sent == 31);
    CHECK(rig.stat("drop_tx_full") == 9);
    // The crash path waits a bounded time, then gives up too.
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(rig.ch->send_emergency(rec("y", 40)) == 0);
    // Its own wait is 10 ms; the margin is for a host that preempts the test.
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    CHECK(rig.stat("drop_tx_full") == 10);
    // A datagram the queue refused was still a send, and the crash path's
    // includes its bounded wait (10 ms).
    CHECK(rig.stat("latency_count") == 41);
    CHECK(rig.stat("latency_max_ns") >= 10000000 - 1);  // less only by the ns rounding
    // Every buffer is back or on the wire: reserve + ring + pre-filled = reserve size.
    CHECK(rte_mempool_avail_count(rig.reserve) + rte_ring_count(rig.port.tx) +
              rig.stat("prefilled") ==
          256);
}

namespace {

struct Concurrent {
    NetlogChannel* ch;
    std::atomic<uint64_t> sent{0};
};

int send_many(void* arg) {
    auto& c = *static_cast<Concurrent*>(arg);
    for (int i = 0; i < 3000; ++i) c.sent += c.ch->send(rec("concurrent", uint64_t(i)));
    return 0;
}

}  // namespace

TEST_CASE("netlog channel: concurrent senders never wait; every record is counted", "[netlog]") {
    ChannelRig rig;
    rig.cfg.prefill = 64;
    rig.open();
    Concurrent c{rig.ch.get()};
    std::atomic<bool> draining{true};
    size_t received = 0;
    std::thread drainer([&] {
        while (draining) received += rig.drain().size();
    });
    REQUIRE(rte_eal_remote_launch(send_many, &c, 1) == 0);
    REQUIRE(rte_eal_remote_launch(send_many, &c, 2) == 0);
    send_many(&c);
    rte_eal_wait_lcore(1);
    rte_eal_wait_lcore(2);
    draining = false;
    drainer.join();
    received += rig.drain().size();
    CHECK(received == c.sent);
    CHECK(rig.stat("datagrams") == c.sent);
    CHECK(c.sent + rig.stat("dropped") == 9000);
    INFO("busy drops " << rig.stat("drop_busy") << ", no_buffer " << rig.stat("drop_no_buffer"));
    CHECK(rig.stat("drop_busy") + rig.stat("drop_no_buffer") + rig.stat("drop_tx_full") ==
          rig.stat("dropped"));
}

TEST_CASE("netlog channel: pool-first refills in the background, alloc-first inline", "[netlog]") {
    SECTION("pool-first") {
        ChannelRig rig;
        rig.open();
        CHECK(rig.stat("prefilled") == 8);
        for (int i = 0; i < 20; ++i) rig.ch->send(rec("p", uint64_t(i)));
        CHECK(rig.stat("prefilled") == 0);
        CHECK(rig.stat("reserve_allocs") == 12);  // the stack ran dry: from the reserve
        CHECK(rig.stat("inline_refills") == 0);
        rig.ch->refill();
        CHECK(rig.stat("prefilled") == 8);
        CHECK(rig.stat("refilled") == 16);
        CHECK(rig.drain().size() == 20);
    }
    SECTION("alloc-first") {
        ChannelRig rig;
        rig.cfg.send_path = NetlogSendPath::alloc_first;
        rig.open();
        for (int i = 0; i < 20; ++i) rig.ch->send(rec("a", uint64_t(i)));
        CHECK(rig.stat("reserve_allocs") == 20);
        CHECK(rig.stat("inline_refills") == 8);
        CHECK(rig.stat("refilled") == 0);
        CHECK(rig.stat("prefilled") == 8);
        CHECK(rig.drain().size() == 20);
    }
}

TEST_CASE("netlog channel: a datagram without a buffer is a send that failed, and is timed",
          "[netlog]") {
    ChannelRig rig;  // nothing drains: every buffer stays in the TX ring
    rig.open();
    for (uint64_t i = 0; i < 256; ++i) REQUIRE(rig.ch->send(rec("hold", i)) == 1);
    CHECK(rig.ch->send(rec("none left", 256)) == 0);
    CHECK(rig.stat("drop_no_buffer") == 1);
    CHECK(rig.stat("latency_count") == 257);
    CHECK(rig.drain().size() == 256);
}

TEST_CASE("netlog channel: the buffer the last send prefetched stays next through a refill",
          "[netlog]") {
    ChannelRig rig;
    rig.open();
    CHECK(rig.ch->prefetches_frames());
    REQUIRE(rig.ch->send(rec("one", 1)) == 1);
    const void* next = rig.ch->next_prefilled();
    REQUIRE(next != nullptr);
    rig.ch->refill();  // adds one buffer from the reserve, under the top
    CHECK(rig.stat("prefilled") == 8);
    CHECK(rig.ch->next_prefilled() == next);
    REQUIRE(rig.ch->send(rec("two", 2)) == 1);
    const auto got = rig.drain();
    REQUIRE(got.size() == 2);
    CHECK(got[1].mbuf == next);
}

namespace {

// One record through a channel on `reserve` (the caller's): whether the
// channel prefetches its frames, and the datagram that arrived.
struct ThroughReserve {
    bool prefetches = false;
    std::vector<Datagram> got;
};

ThroughReserve send_through(rte_mempool* reserve, std::string_view text) {
    ThroughReserve out;
    ChannelRig rig(16384, reserve);
    rig.open();
    out.prefetches = rig.ch->prefetches_frames();
    CHECK(rig.ch->send(rec(text, 1)) == 1);
    out.got = rig.drain();
    return out;
}

}  // namespace

TEST_CASE(
    "netlog channel: the prefetch finds the frames of the appliance's coloured reserve "
    "and after a private area, and leaves external buffers alone",
    "[netlog]") {
    SECTION("the appliance's coloured reserve") {
        auto pool = Pool::create("nl_colour_res", 256, 0, 128 + 1088, SOCKET_ID_ANY);
        REQUIRE(pool);
        const auto r = send_through(pool.value()->mempool(), "coloured");
        CHECK(r.prefetches);
        REQUIRE(r.got.size() == 1);
        CHECK(r.got[0].payload() == "6,1,99,-;coloured\n");
    }
    SECTION("64 bytes of private area between the mbuf and its buffer") {
        rte_mempool* priv =
            rte_pktmbuf_pool_create("nl_priv_res", 256, 0, 64, 128 + 1088, SOCKET_ID_ANY);
        REQUIRE(priv);
        const auto r = send_through(priv, "private");
        rte_mempool_free(priv);
        CHECK(r.prefetches);
        REQUIRE(r.got.size() == 1);
        CHECK(r.got[0].payload() == "6,1,99,-;private\n");
    }
    SECTION("buffers in memory of their own") {
        const rte_memzone* mz = rte_memzone_reserve("nl_ext_mem", 256 * 2048, SOCKET_ID_ANY, 0);
        REQUIRE(mz);
        rte_pktmbuf_extmem ext{mz->addr, mz->iova, mz->len, 2048};
        rte_mempool* extpool =
            rte_pktmbuf_pool_create_extbuf("nl_ext_res", 256, 0, 0, 2048, SOCKET_ID_ANY, &ext, 1);
        REQUIRE(extpool);
        const auto r = send_through(extpool, "external");
        rte_mempool_free(extpool);
        rte_memzone_free(mz);
        CHECK_FALSE(r.prefetches);
        REQUIRE(r.got.size() == 1);
        CHECK(r.got[0].payload() == "6,1,99,-;external\n");
        CHECK(ipv4_header_checksum(r.got[0].frame.data() + 14, 20) == 0);
    }
}

TEST_CASE("netlog channel: every buffer keeps its headers through many trips", "[netlog]") {
    // The headers are written once per buffer, when the channel is created:
    // buffers that went out from the stack, from the reserve and back again
    // must still carry them, whichever path took them.
    for (const auto path : {NetlogSendPath::pool_first, NetlogSendPath::alloc_first}) {
        ChannelRig rig;
        rig.cfg.send_path = path;
        rig.open();
        uint64_t seq = 0;
        for (int trip = 0; trip < 6; ++trip) {  // 6 x 100 sends through a reserve of 256
            for (int i = 0; i < 100; ++i) REQUIRE(rig.ch->send(rec("trip", seq++)) == 1);
            if (trip % 2) rig.ch->refill();  // the stack: full again, or left dry
            for (const auto& d : rig.drain()) {
                const auto& f = d.frame;
                REQUIRE(f.size() == kUdpFrameHeaderLen + d.payload().size());
                CHECK(std::vector<uint8_t>(f.begin(), f.begin() + 14) ==
                      std::vector<uint8_t>{0x02, 0, 0, 0, 0x09, 0x02, 0x02, 0, 0, 0, 0x09, 0x01,
                                           0x08, 0x00});
                CHECK(ipv4_header_checksum(f.data() + 14, 20) == 0);
                CHECK((f[16] << 8 | f[17]) == int(f.size() - 14));  // IP total length
                CHECK((f[38] << 8 | f[39]) == int(f.size() - 34));  // UDP length
                CHECK(std::vector<uint8_t>(f.begin() + 26, f.begin() + 34) ==
                      std::vector<uint8_t>{10, 9, 0, 1, 10, 9, 0, 2});
                CHECK(d.payload().find(";trip\n") != std::string::npos);
            }
        }
        CHECK(rig.stat("datagrams") == 600);
        if (path == NetlogSendPath::pool_first) CHECK(rig.stat("reserve_allocs") > 0);
    }
}

TEST_CASE("netlog channel: a reserve with buffers out is refused", "[netlog]") {
    ChannelRig rig;
    rte_mbuf* out = rte_pktmbuf_alloc(rig.reserve);
    REQUIRE(out);
    NetlogSetup s;
    s.config = rig.cfg;
    s.port_id = rig.port.port_id;
    s.reserve = rig.reserve;
    auto made = NetlogChannel::create(s);
    REQUIRE_FALSE(made);
    CHECK(made.error().message ==
          "netlog: the reserve pool must be the channel's alone; 1 of its 256 buffers are in use");
    rte_pktmbuf_free(out);
    rig.open();  // and accepted once the buffer is back
    CHECK(rig.ch->send(rec("ok", 1)) == 1);
}

TEST_CASE("netlog channel: stopped, it sends nothing and gives its buffers back", "[netlog]") {
    ChannelRig rig;
    rig.open();
    rig.ch->stop();
    CHECK(rig.ch->send(rec("late", 0)) == 0);
    CHECK(rig.stat("drop_stopped") == 1);
    CHECK(rig.stat("latency_count") == 0);
    rig.ch.reset();
    CHECK(rte_mempool_avail_count(rig.reserve) == 256);
}

TEST_CASE("netlog sink: spdlog records are numbered without gaps and sent", "[netlog]") {
    ChannelRig rig;
    rig.open();
    netlog_install_sink("info");
    netlog_attach(rig.ch.get());
    spdlog::info("first {}", 1);
    spdlog::debug("below the level: neither numbered nor sent");
    spdlog::warn("second");
    spdlog::error("third");
    netlog_detach();
    spdlog::info("after detach: not sent");
    const auto got = rig.drain();
    REQUIRE(got.size() == 3);
    std::vector<uint64_t> seqs;
    for (const auto& d : got) seqs.push_back(std::stoull(d.payload().substr(2)));
    CHECK(seqs[1] == seqs[0] + 1);
    CHECK(seqs[2] == seqs[1] + 1);
    CHECK(got[0].payload().rfind("6,", 0) == 0);
    CHECK(got[0].payload().find(";first 1\n") != std::string::npos);
    CHECK(got[1].payload().rfind("4,", 0) == 0);
    CHECK(got[2].payload().rfind("3,", 0) == 0);
}
