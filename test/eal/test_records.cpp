// The records a running appliance returns, against their field tables: every
// field of each table is set (a field added to a table and forgotten by the
// code that fills it fails here), in table order, and the counters agree with
// the traffic sent. net_ring ports, pool model recycle, the log channel on.
#include <catch2/catch.hpp>
#include <set>

#include "netlog_sink.hpp"
#include "protocol.hpp"
#include "ring_ports.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

namespace {

std::vector<std::string> wire_keys(const Record& r) {
    std::vector<std::string> out;
    r.for_each_wire([&](std::string_view key, const WireValue&) { out.emplace_back(key); });
    return out;
}

// The table's keys in order, a histogram field as its wire keys, less those
// this record may leave out.
std::vector<std::string> table_keys(const RecordSchema& s, const std::set<std::string>& absent) {
    std::vector<std::string> out;
    for (const auto& f : s.fields) {
        if (absent.count(std::string(f.key))) continue;
        if (f.kind != Kind::histogram) {
            out.emplace_back(f.key);
            continue;
        }
        for (const auto& w : kHistogramWire)
            out.push_back(std::string(f.key) + std::string(w.suffix));
    }
    return out;
}

uint64_t number(const Record& r, const std::string& key) {
    const auto v = r.get(key);
    REQUIRE(v);
    return std::get<uint64_t>(*v);
}

}  // namespace

TEST_CASE("every field of every record's table is set, in its order", "[records]") {
    RingPort a = RingPort::create("rec_a", 4096, 2);  // queue 1: the log channel's
    RingPort b = RingPort::create("rec_b");
    REQUIRE(a.port_id != 0xffff);
    REQUIRE(b.port_id != 0xffff);
    Config cfg = two_port_config(a, b, ForwardMode::patch);
    cfg.forward.latency = true;
    // A recycle pool's record has every pool field; not the default model.
    cfg.pool.model = PoolModel::recycle;
    cfg.pool.model_loc = {1, 1};
    enable_netlog(cfg, "a");
    netlog_install_sink("info");
    {
        auto started = Appliance::start(cfg, plan_of(cfg), "rec");
        if (!started) FAIL(started.error().message);
        Appliance& app = *started.value();
        constexpr uint32_t kFrames = 100;
        for (uint32_t i = 0; i < kFrames; ++i)
            REQUIRE(rte_ring_enqueue(a.rx, to_mbuf(app.worker_pool(0), make_frame(i))) == 0);
        REQUIRE(wait_rx(app, 0, kFrames));
        REQUIRE(collect(b.tx, kFrames).size() == kFrames);
        app.log_test(100, 1);

        CHECK(wire_keys(app.worker(0, Since::clear)) == table_keys(kWorkerRecord, {}));
        CHECK(wire_keys(app.latency(0, Since::clear)) == table_keys(kLatencyRecord, {}));
        CHECK(wire_keys(app.port(0, Since::clear)) == table_keys(kPortRecord, {}));
        CHECK(wire_keys(app.pool(0, Since::clear)) ==
              table_keys(kPoolRecord, {}));  // a recycle pool
        CHECK(wire_keys(app.totals(Since::clear)) == table_keys(kStatsRecord, {}));
        CHECK(wire_keys(app.netlog()) == table_keys(kLogRecord, {}));
        CHECK(wire_keys(app.log_test(10, 1)) == table_keys(kLogTestRecord, {}));
        // The EAL of the tests has no telemetry socket, so no gate to count.
        std::set<std::string> gate;
        for (const auto& f : kInfoRecord.fields)
            if (f.key.starts_with("telemetry_")) gate.emplace(f.key);
        CHECK(wire_keys(app.info()) == table_keys(kInfoRecord, gate));
        CHECK(std::get<std::string>(*app.info().get("pool_model")) == "recycle");
        CHECK(std::get<std::string>(*app.info().get("pool_model_source")) == "config");

        // The figures are the traffic's.
        const Record w = app.worker(0, Since::clear);
        CHECK(number(w, "rx_pkts") == kFrames);
        CHECK(number(w, "tx_pkts") == kFrames);
        CHECK(number(w, "rx_bytes") == kFrames * 64);
        CHECK(number(app.latency(0, Since::clear), "residence_count") == kFrames);
        CHECK(number(app.totals(Since::clear), "tx_pkts") == kFrames);
        CHECK(number(app.port(1, Since::clear), "opackets") == kFrames);
        CHECK(number(app.netlog(), "records") >= 1);

        // A clear rebases what the commands answer, never what a scraper
        // reads from the start.
        app.clear_stats();
        CHECK(number(app.worker(0, Since::clear), "rx_pkts") == 0);
        CHECK(number(app.worker(0, Since::start), "rx_pkts") == kFrames);
        CHECK(number(app.totals(Since::clear), "tx_pkts") == 0);
        CHECK(number(app.totals(Since::start), "tx_pkts") == kFrames);
        CHECK(number(app.latency(0, Since::start), "residence_count") == kFrames);
        CHECK(number(app.latency(0, Since::clear), "residence_count") == 0);
        CHECK(number(app.port(1, Since::start), "opackets") == kFrames);
        CHECK(number(app.port(1, Since::clear), "opackets") == 0);
        const Record pool_start = app.pool(0, Since::start), pool_clear = app.pool(0, Since::clear);
        for (const auto& f : kPoolRecord.group("recycle")) {
            INFO(f.key);
            CHECK(number(pool_start, std::string(f.key)) >= number(pool_clear, std::string(f.key)));
        }

        // A stock spare pool has no owner, levels or recycle counters; the
        // log channel's reserve is the last pool.
        const Record reserve = app.pool(app.pool_count() - 1, Since::clear);
        std::set<std::string> recycle_only = {"owner_lcore"};
        for (const auto& f : kPoolRecord.fields)
            if (!f.group.empty()) recycle_only.emplace(f.key);
        CHECK(wire_keys(reserve) == table_keys(kPoolRecord, recycle_only));
        // The datagrams the channel sent wait in a's second TX ring: theirs
        // to free, or the reserve's audit counts them missing.
        netlog_detach();
        void* objs[64];
        while (const unsigned n = rte_ring_dequeue_burst(a.tx2, objs, 64, nullptr))
            rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(objs), n);
        CHECK(app.shutdown().pools_full());
    }
    a.destroy();
    b.destroy();
}
