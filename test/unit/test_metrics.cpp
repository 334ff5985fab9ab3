// The Prometheus metrics made of the field tables (metric_names.hpp,
// metric_families.hpp): valid and unique names with their unit, every field
// exported exactly once, histograms as exact cumulative buckets, the text a
// scrape serves, and docs/operations.md in step. No EAL.
#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "metric_families.hpp"
#include "metric_names.hpp"
#include "record_schemas.hpp"
#include "router_api.hpp"
#include "source_file.hpp"
#include "stats_records.hpp"

using namespace pmdfwd;

namespace {

const RecordMetrics& metrics_of(const RecordSchema& s) {
    for (const auto& m : exported_metrics())
        if (m.schema == &s) return m;
    FAIL("not exported: " << s.name);
    throw;
}

const MetricFamilySpec* family_named(const RecordMetrics& m, const std::string& name) {
    for (const auto& f : m.families)
        if (f.name == name) return &f;
    return nullptr;
}

std::string serialize(const std::vector<prometheus::MetricFamily>& f) {
    return prometheus::TextSerializer().Serialize(f);
}

}  // namespace

// Router mode's reason lists (punts, the neighbour table's drops): every
// reason a counter of its labelled group, one family each, whose sum ("punts")
// is not a second family of the same name.
TEST_CASE("metrics: the router's reasons are one family each, labelled by reason", "[metrics]") {
    const auto& router = metrics_of(kRouterRecord);
    const auto* punts = family_named(router, "pmdfwd_router_punts_packets_total");
    REQUIRE(punts);
    CHECK(punts->label == "reason");
    CHECK(punts->fields.size() == kPuntReasonCount);
    CHECK(kRouterRecord.fields[punts->fields[0].index].member == "neighbour");
    const auto* drops = family_named(router, "pmdfwd_router_neighbour_drops_packets_total");
    REQUIRE(drops);
    CHECK(drops->label == "reason");
    CHECK(drops->fields.size() == kNeighbourDropCount);
    size_t named_punts = 0;
    for (const auto& f : router.families) named_punts += f.name == punts->name;
    CHECK(named_punts == 1);
    // The record keeps a field per reason under its old key.
    CHECK(kRouterRecord.find("punts_neighbour"));
    CHECK(kRouterRecord.find("punts_local"));
    CHECK(kRouterRecord.find("neighbour_queue_drops"));
    CHECK(kRouterRecord.find("punts"));
}

TEST_CASE("metrics: names carry their unit, counters end in _total, labels come from the table",
          "[metrics]") {
    const auto& worker = metrics_of(kWorkerRecord);
    CHECK(worker.label_names == std::vector<std::string>{"worker", "port", "queue"});
    const auto* rx = family_named(worker, "pmdfwd_worker_rx_packets_total");
    REQUIRE(rx);
    CHECK(rx->type == MetricType::counter);
    CHECK(rx->help == kWorkerRecord.fields[kWorkerRecord.at("rx_pkts").index].help);
    REQUIRE(family_named(worker, "pmdfwd_worker_rx_bytes_total"));
    const auto* cpu = family_named(worker, "pmdfwd_worker_cpu_seconds_total");
    REQUIRE(cpu);
    CHECK(cpu->scale == 1e-9);
    const auto* busy = family_named(worker, "pmdfwd_worker_busy_ratio");
    REQUIRE(busy);
    CHECK(busy->type == MetricType::gauge);
    CHECK(busy->scale == 1e-3);
    // The drop reasons are one family labelled by reason; their sum is not
    // a second family of the same name.
    const auto* drops = family_named(worker, "pmdfwd_worker_drops_packets_total");
    REQUIRE(drops);
    CHECK(drops->label == "reason");
    CHECK(drops->fields.size() == kDropReasonCount);
    size_t named_drops = 0;
    for (const auto& f : worker.families) named_drops += f.name == drops->name;
    CHECK(named_drops == 1);
    CHECK(metrics_of(kPortRecord).label_names == std::vector<std::string>{"port"});
    CHECK(metrics_of(kPoolRecord).label_names == std::vector<std::string>{"pool"});
    CHECK(family_named(metrics_of(kInfoRecord), "pmdfwd_uptime_seconds"));
    CHECK(metrics_of(kInfoRecord).info.name == "pmdfwd_info");
    const auto* residence =
        family_named(metrics_of(kLatencyRecord), "pmdfwd_latency_residence_seconds");
    REQUIRE(residence);
    CHECK(residence->type == MetricType::histogram);
}

TEST_CASE("metrics: every name is valid and unique, every field exported exactly once",
          "[metrics]") {
    const std::regex valid("[a-zA-Z_:][a-zA-Z0-9_:]*");
    std::set<std::string> names{kUpMetric};
    for (const auto& m : exported_metrics()) {
        INFO(m.schema->name);
        std::vector<int> uses(m.schema->fields.size(), 0);
        for (const auto id : m.labels) uses[id.index]++;
        for (const auto id : m.info.fields) uses[id.index]++;
        for (const auto& l : m.label_names) CHECK(std::regex_match(l, valid));
        CHECK(names.insert(m.info.name).second);
        for (const auto& f : m.families) {
            INFO(f.name);
            CHECK(std::regex_match(f.name, valid));
            CHECK(names.insert(f.name).second);
            CHECK(f.name.ends_with("_total") == (f.type == MetricType::counter));
            CHECK_FALSE(f.help.empty());
            for (const auto id : f.fields) uses[id.index]++;
        }
        for (size_t i = 0; i < uses.size(); ++i) {
            const Field& field = m.schema->fields[i];
            INFO(field.key);
            // A sum of a labelled group ("drops") is the one field left out.
            const bool group_sum = !m.schema->group(field.key).empty();
            CHECK(uses[i] == (group_sum ? 0 : 1));
        }
    }
}

TEST_CASE("metrics: a histogram's buckets are exact cumulative counts at fixed edges",
          "[metrics]") {
    constexpr uint64_t kHz = 2'500'000'000;
    const auto edges = metric_bucket_edges_ns(kHz);
    REQUIRE(edges.size() > 20);
    CHECK(edges.front() >= 10);
    CHECK(edges.back() <= 100'000'000'000ull);
    for (size_t i = 1; i < edges.size(); ++i) CHECK(edges[i] > edges[i - 1]);

    Histogram h;
    std::vector<uint64_t> values;
    uint64_t x = 12345;
    for (int i = 0; i < 5000; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t cycles = (x >> 33) % (1u << (i % 24 + 4));
        h.record(cycles);
        values.push_back(cycles);
    }
    WorkerIdentity who;
    who.id = 3;
    who.rx_port = "wan";
    const Record r = latency_record(who, true, h.read(), kHz);
    MetricFamilies families(kHz);
    families.add(r);
    const auto out = families.take(true);
    const prometheus::MetricFamily* fam = nullptr;
    for (const auto& f : out)
        if (f.name == "pmdfwd_latency_residence_seconds") fam = &f;
    REQUIRE(fam);
    REQUIRE(fam->metric.size() == 1);
    const auto& hist = fam->metric[0].histogram;
    CHECK(hist.sample_count == values.size());
    REQUIRE(hist.bucket.size() == edges.size() + 1);
    for (size_t i = 0; i < edges.size(); ++i) {
        // What the histogram holds at or below the edge, counted from the
        // values themselves: a value is at most the edge of its bucket.
        uint64_t expect = 0;
        for (const uint64_t v : values)
            expect += histogram_edge_ns(histogram_bucket(v), kHz) <= edges[i];
        INFO("edge " << edges[i] << " ns");
        CHECK(hist.bucket[i].cumulative_count == expect);
        CHECK(hist.bucket[i].upper_bound == Approx(double(edges[i]) * 1e-9));
    }
    CHECK(std::isinf(hist.bucket.back().upper_bound));
    CHECK(hist.bucket.back().cumulative_count == values.size());
    const std::string text = serialize(out);
    CHECK_THAT(
        text, Catch::Contains("pmdfwd_latency_residence_seconds_bucket{worker=\"3\",port=\"wan\""));
    CHECK_THAT(text, Catch::Contains("le=\"+Inf\"} 5000"));
}

TEST_CASE("metrics: a record's fields become samples with its labels; unset fields none",
          "[metrics]") {
    WorkerIdentity who;
    who.id = 1;
    who.lcore = 4;
    who.rx_port = "lan";
    who.rx_queue = 2;
    who.poll = "busy";
    WorkerSnapshot s;
    s.rx_pkts = 1000;
    s.tx_pkts = 990;
    s.drops[size_t(DropReason::tx_full)] = 10;
    MetricFamilies families(1'000'000'000);
    families.add(worker_record(who, s));
    const std::string text = serialize(families.take(false));
    CHECK_THAT(text, Catch::Contains("pmdfwd_up 0\n"));
    CHECK_THAT(text,
               Catch::Contains(
                   "pmdfwd_worker_rx_packets_total{worker=\"1\",port=\"lan\",queue=\"2\"} 1000\n"));
    CHECK_THAT(text, Catch::Contains("pmdfwd_worker_drops_packets_total{worker=\"1\",port=\"lan\","
                                     "queue=\"2\",reason=\"tx_full\"} 10\n"));
    CHECK_THAT(text, Catch::Contains("pmdfwd_worker_info{worker=\"1\",port=\"lan\",queue=\"2\","
                                     "lcore=\"4\""));
    CHECK_THAT(text, Catch::Contains("# TYPE pmdfwd_worker_rx_packets_total counter"));
    // worker_record leaves the recycle counters out: no family for them.
    CHECK_THAT(text, !Catch::Contains("recycle"));
}

TEST_CASE("docs/operations.md carries the metrics reference as the tables make it",
          "[metrics][docs]") {
    const std::string docs = read_source_file("docs/operations.md");
    std::istringstream want(metrics_markdown());
    for (std::string line; std::getline(want, line);) {
        if (line.empty()) continue;
        INFO("docs/operations.md lacks the line: " << line);
        CHECK(docs.find(line) != std::string::npos);
    }
}

// promtool's lint reads _us_, _ms_, _ns_ and the like inside a name as a
// unit that is not the base one (router mode once had "punts_to_us"): no
// exported name, in any mode, may hold one.
TEST_CASE("metrics: no name holds a word promtool reads as a non-base unit", "[metrics]") {
    const std::vector<std::string> kUnitWords = {"_us_",  "_ms_", "_ns_", "_usec", "_msec",
                                                 "_nsec", "_kb_", "_mb_", "_gb_"};
    size_t names = 0;
    for (const auto& m : exported_metrics())
        for (const auto& f : m.families) {
            ++names;
            INFO(f.name);
            for (const auto& w : kUnitWords) CHECK((f.name + "_").find(w) == std::string::npos);
        }
    CHECK(names > 100);
}
