// pmdgen's report (report.hpp): the line and the JSON, the latency
// histogram in pmdfwd's wire format.
#include <catch2/catch.hpp>
#include <string>

#include "report.hpp"

using namespace pmdfwd;

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
