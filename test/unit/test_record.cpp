// The Record mechanics (record.hpp), on a record kind of the test's own:
// fields in table order, unset ones left out, the log line, and a
// histogram field spread over its wire keys.
#include <catch2/catch.hpp>
#include <string>
#include <variant>
#include <vector>

#include "record.hpp"
#include "record_values.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

namespace {

// A record kind of the test's own: the Record mechanics, apart from any
// real table.
constexpr Field kTestFields[] = {
    {"name", Unit::none, Kind::label, "its name"},
    {"rx", Unit::packets, Kind::counter, "packets in"},
    {"big", Unit::bytes, Kind::counter, "a large number"},
    {"state", Unit::none, Kind::info, "up or down"},
    {"lat", Unit::nanoseconds, Kind::histogram, "a distribution"},
};
constexpr RecordSchema kTestRecord{"test", "A record of the tests.", kTestFields};

}  // namespace

TEST_CASE("record: fields in table order, unset ones left out, the log line", "[small][record]") {
    Record r(kTestRecord);
    CHECK(r.to_line() == "");
    r.set(kTestRecord.at("state"), std::string("up"));
    r.set(kTestRecord.at("big"), UINT64_MAX);
    r.set(kTestRecord.at("name"), "p0");
    CHECK(r.to_line() == "name=p0 big=18446744073709551615 state=up");
    CHECK(names(r) == std::vector<std::string>{"name", "big", "state"});
    CHECK(std::holds_alternative<std::string>(*r.get("name")));
    CHECK(std::holds_alternative<uint64_t>(*r.get("big")));
    CHECK_FALSE(r.get("rx"));  // never set
    r.set(kTestRecord.at("rx"), uint64_t(0));
    CHECK(names(r) == std::vector<std::string>{"name", "rx", "big", "state"});
}

TEST_CASE("record: a histogram field on the wire", "[small][record][histogram]") {
    Record r(kTestRecord);
    HistogramView h;
    h.count = 3;
    h.sum_ns = 600;
    h.min_ns = 100;
    h.max_ns = 300;
    h.le_ns = {127, 255, 319};
    h.counts = {1, 1, 1};
    r.set(kTestRecord.at("lat"), h);
    std::vector<std::string> expected;
    for (const auto& w : kHistogramWire) expected.push_back("lat" + std::string(w.suffix));
    CHECK(names(r) == expected);
    CHECK(field(r, "lat_count") == "3");
    CHECK(field(r, "lat_sum_ns") == "600");
    CHECK(field(r, "lat_min_ns") == "100");
    CHECK(field(r, "lat_avg_ns") == "200");
    CHECK(field(r, "lat_p50_ns") == "255");
    CHECK(field(r, "lat_p90_ns") == "300");  // the bucket's edge, never above max
    CHECK(field(r, "lat_max_ns") == "300");
    CHECK(std::get<std::vector<uint64_t>>(*r.get("lat_le_ns")) == h.le_ns);
    CHECK(std::get<std::vector<uint64_t>>(*r.get("lat_buckets")) == h.counts);
    CHECK(r.to_line().ends_with("lat_le_ns=127,255,319 lat_buckets=1,1,1"));
}
