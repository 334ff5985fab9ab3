// The pure pieces of poll modes and latency: poll settings in the config and
// the plan, the log-linear TSC histogram, pmdgen's sequence accounting and
// probe frames, and its report.
#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "config_loader.hpp"
#include "histogram.hpp"
#include "plan.hpp"
#include "pmd_quirks.hpp"
#include "probe_frame.hpp"
#include "report.hpp"
#include "sequence_tracker.hpp"

using namespace pmdfwd;

namespace {

Config parse_ok(const std::string& text) {
    auto r = parse_config(text, "t.toml");
    if (auto* e = std::get_if<ConfigError>(&r)) FAIL("unexpected error: " << e->to_string());
    return std::get<Config>(r);
}

Plan plan_ok(const Config& cfg) {
    auto p = build_plan(cfg);
    if (auto* e = std::get_if<ConfigError>(&p)) FAIL("unexpected error: " << e->to_string());
    return std::get<Plan>(p);
}

}  // namespace

TEST_CASE("poll: global mode, per-port string and per-queue array", "[poll][config]") {
    const Config cfg = parse_ok(R"([eal]
lcores = "0-4"
[poll]
mode = "adaptive"
max_sleep_us = 500
[[port]]
name = "a"
devargs = "net_tap_a,iface=pa"
rx_queues = 2
poll = ["busy", "interrupt"]
[[port]]
name = "b"
devargs = "net_null0"
[[port]]
name = "c"
devargs = "net_null1"
poll = "busy"
[forward]
pairs = [["a", "b"], ["b", "c"], ["c", "a"]]
)");
    CHECK(cfg.poll.mode == PollMode::adaptive);
    CHECK(cfg.poll.max_sleep_us == 500);
    const Plan plan = plan_ok(cfg);
    REQUIRE(plan.workers.size() == 4);
    CHECK(plan.workers[0].poll == PollMode::busy);
    CHECK(plan.workers[1].poll == PollMode::interrupt);
    CHECK(plan.workers[2].poll == PollMode::adaptive);  // [poll] mode
    CHECK(plan.workers[3].poll == PollMode::busy);
    const auto lines = render_plan(cfg, plan);
    CHECK(std::find(lines.begin(), lines.end(),
                    "worker 1 on lcore 2: polls 'a' rxq 1 -> sends on 'b' txq 1; poll interrupt "
                    "(idle_polls 200)") != lines.end());
    CHECK(std::find(lines.begin(), lines.end(),
                    "worker 2 on lcore 3: polls 'b' rxq 0 -> sends on 'c' txq 0; poll adaptive "
                    "(idle_polls 50000, max_sleep_us 500)") != lines.end());
}

TEST_CASE("poll: defaults, and idle_polls per mode", "[poll][config]") {
    const Config cfg = parse_ok("[[port]]\nname = \"p\"\ndevargs = \"net_null0\"\n");
    CHECK(cfg.poll.mode == PollMode::busy);
    CHECK_FALSE(cfg.forward.latency);  // ~3% on a null device: asked for, not assumed
    CHECK(cfg.poll.idle_polls_for(PollMode::adaptive) == kAdaptiveIdlePolls);
    CHECK(cfg.poll.idle_polls_for(PollMode::interrupt) == kInterruptIdlePolls);
    const Config set = parse_ok(
        "[poll]\nidle_polls = 77\n[forward]\nlatency = true\n[[port]]\nname = \"p\"\n"
        "devargs = \"net_null0\"\n");
    CHECK(set.poll.idle_polls_for(PollMode::adaptive) == 77);
    CHECK(set.poll.idle_polls_for(PollMode::interrupt) == 77);
    CHECK(set.forward.latency);
}

TEST_CASE("poll: interrupt on a device of unknown driver is left to the start-up probe",
          "[poll][plan]") {
    const Config cfg =
        parse_ok("[[port]]\nname = \"p\"\ndevargs = \"0000:01:00.0\"\npoll = \"interrupt\"\n");
    CHECK(plan_ok(cfg).workers[0].poll == PollMode::interrupt);
    // With the probed driver known, the same config is refused.
    const std::vector<PortLimits> limits = {{"net_null", 1, 1}};
    const auto refused = build_plan(cfg, &limits);
    REQUIRE(std::holds_alternative<ConfigError>(refused));
    CHECK(std::get<ConfigError>(refused).message.find("(net_null) has no rx interrupts") !=
          std::string::npos);
}

TEST_CASE("quirks: vdev driver names from devargs", "[poll][quirks]") {
    CHECK(vdev_driver("net_tap0,iface=x") == "net_tap");
    CHECK(vdev_driver("net_tap_left,iface=x") == "net_tap");
    CHECK(vdev_driver("net_memif1,role=server") == "net_memif");
    CHECK(vdev_driver("net_ring_fr3a") == "net_ring");
    CHECK(vdev_driver("net_af_packet0,iface=eth0") == "net_af_packet");
    CHECK(vdev_driver("0000:01:00.0") == "");
    CHECK(vdev_driver("net_unknown0") == "");
    CHECK(lacks_rx_interrupts("net_memif"));
    CHECK_FALSE(lacks_rx_interrupts("net_tap"));
    CHECK(configured_queue_counts("net_memif", 0, 1).rx == 1);
}

TEST_CASE("tsc histogram: buckets tile the line, within 25%", "[latency]") {
    for (size_t i = 0; i + 1 < kHistogramBuckets; ++i) {
        INFO(i);
        CHECK(histogram_bucket_high(i) == histogram_bucket_low(i + 1));
        CHECK(histogram_bucket(histogram_bucket_low(i)) == i);
        CHECK(histogram_bucket(histogram_bucket_high(i) - 1) == i);
        if (histogram_bucket_low(i) >= 4)
            CHECK(double(histogram_bucket_high(i)) / double(histogram_bucket_low(i)) <= 1.25);
    }
    CHECK(histogram_bucket(UINT64_MAX) == kHistogramBuckets - 1);
}

TEST_CASE("tsc histogram: percentiles, weights and differences", "[latency]") {
    Histogram h;
    for (uint64_t v = 1; v <= 1000; ++v) h.record(v);
    h.record(100000, 10);  // one burst of 10 packets
    const HistogramSnapshot s = h.read();
    CHECK(s.count == 1010);
    CHECK(s.min == 1);
    CHECK(s.max == 100000);
    CHECK(s.mean() == (500500 + 1000000) / 1010);
    const uint64_t p50 = s.percentile(0.5);
    CHECK(p50 >= 505);
    CHECK(p50 <= 505 * 5 / 4);
    CHECK(s.percentile(0.995) == 100000);  // clamped to max
    CHECK(s.percentile(1e-9) == 1);

    // Since a base: only what came after, min and max from its buckets.
    h.record(3000);
    h.record(5000);
    const HistogramSnapshot d = h.read().minus(s);
    CHECK(d.count == 2);
    CHECK(d.min >= histogram_bucket_low(histogram_bucket(3000)));
    CHECK(d.min <= 3000);
    CHECK(d.max >= 5000);
    CHECK(d.max < histogram_bucket_high(histogram_bucket(5000)));
    CHECK(HistogramSnapshot{}.percentile(0.5) == 0);

    const LatencySummary l = summarize(s, 1000000000);  // 1 GHz: cycles are ns
    CHECK(l.min_ns == 1);
    CHECK(l.max_ns == 100000);
    CHECK(l.p50_ns == double(p50));
}

TEST_CASE("sequence tracker: loss, reordering, duplicates, late arrivals", "[pmdgen]") {
    SequenceTracker t;
    for (const uint64_t s : {0, 1, 3, 2, 4, 4, 6, 7, 5, 9})  // 8 lost; 2 and 5 late; 4 twice
        t.receive(s);
    CHECK(t.received() == 10);
    CHECK(t.unique() == 9);
    CHECK(t.duplicates() == 1);
    CHECK(t.reordered() == 2);
    CHECK(t.lost(10) == 1);
    CHECK(t.late() == 0);

    // A number older than the window: counted late and reordered, not a copy.
    t.receive(SequenceTracker::kWindow + 100);
    t.receive(20);
    CHECK(t.late() == 1);
    CHECK(t.reordered() == 3);
    // A new number far ahead must not inherit stale "seen" bits.
    SequenceTracker u;
    u.receive(5);
    u.receive(5 + SequenceTracker::kWindow);
    u.receive(5 + 2 * SequenceTracker::kWindow - 1);
    u.receive(5 + SequenceTracker::kWindow + 1);
    CHECK(u.duplicates() == 0);
    CHECK(u.unique() == 4);
}

TEST_CASE("sequence tracker: agrees with a reference on a shuffled stream", "[pmdgen]") {
    std::mt19937_64 rng(7);
    std::vector<uint64_t> stream;
    for (uint64_t s = 0; s < 50000; ++s) {
        if (rng() % 50 == 0) continue;  // lost
        stream.push_back(s);
        if (rng() % 100 == 0) stream.push_back(s);  // duplicated
    }
    for (size_t i = 0; i + 1 < stream.size(); ++i)
        if (rng() % 30 == 0) std::swap(stream[i], stream[i + 1]);  // local reordering
    SequenceTracker t;
    std::set<uint64_t> seen;
    uint64_t dups = 0, reordered = 0, highest = 0;
    bool any = false;
    for (const uint64_t s : stream) {
        t.receive(s);
        if (!seen.insert(s).second) {
            dups++;
            continue;
        }
        if (any && s < highest) reordered++;
        highest = any ? std::max(highest, s) : s;
        any = true;
    }
    CHECK(t.unique() == seen.size());
    CHECK(t.duplicates() == dups);
    CHECK(t.reordered() == reordered);
    CHECK(t.lost(50000) == 50000 - seen.size());
}

TEST_CASE("probe frames: built per flow, parsed back, foreign frames refused", "[pmdgen]") {
    UdpEndpoints ep;
    ep.src_mac = *MacAddr::parse("02:00:00:00:00:01");
    ep.dst_mac = *MacAddr::parse("02:00:00:00:00:02");
    ep.src_ip = *Ipv4Addr::parse("198.18.0.1");
    ep.dst_ip = *Ipv4Addr::parse("198.18.0.2");
    ep.src_port = 1000;
    ep.dst_port = 9;
    const ProbeFrames frames(ep, 3, 64);
    CHECK(frames.data_len() == 60);
    uint8_t buf[60] = {};
    frames.write(buf, 2, 123456789, 987654321);
    const auto p = parse_probe(buf, 60);
    REQUIRE(p);
    CHECK(p->seq == 123456789);
    CHECK(p->tsc == 987654321);
    CHECK(p->src_port == 1002);
    CHECK((buf[16] << 8 | buf[17]) == 46);           // IPv4 total length
    CHECK(ipv4_header_checksum(buf + 14, 20) == 0);  // a valid header sums to zero
    CHECK_FALSE(parse_probe(buf, 59));
    buf[42] ^= 1;
    CHECK_FALSE(parse_probe(buf, 60));
    const ProbeFrames big(ep, 1, 1518);
    CHECK(big.data_len() == 1514);
}

TEST_CASE("pmdgen report: line and JSON", "[pmdgen]") {
    pmdgen::Report r;
    r.final = true;
    r.t_s = r.span_s = 2;
    r.counters.sent = 20000;
    r.received = r.unique = 19990;
    r.sent_in_span = 20000;
    r.received_in_span = 19990;
    r.latency.count = 19990;
    r.latency.min_ns = 1000;
    r.latency.max_ns = 5000;
    r.histogram.le_ns = {1023, 5119};
    r.histogram.counts = {19000, 990};
    const auto j = pmdgen::report_json(r);
    CHECK(j["type"] == "summary");
    // The summary's histogram, in pmdfwd's wire format.
    CHECK(j["latency"]["le_ns"] == nlohmann::json({1023, 5119}));
    CHECK(j["latency"]["buckets"] == nlohmann::json({19000, 990}));
    CHECK(j["lost"] == 10);
    CHECK(j["tx_pps"] == 10000.0);
    CHECK(j["latency"]["delay_variation_ns"] == 4000.0);
    const std::string line = pmdgen::report_line(r);
    CHECK(line.find("lost 10") != std::string::npos);
    CHECK(line.find("tx 10.0 kpps") != std::string::npos);
    r.final = false;
    CHECK(pmdgen::report_json(r)["missing"] == 10);
    CHECK_FALSE(pmdgen::report_json(r)["latency"].contains("le_ns"));  // intervals: figures only
}
