// pmdctl watch's rates (renderers.hpp, watch_rates.cpp): per worker and in
// total from two snapshots, across a clear, a new worker and a zero
// interval, from counters read out of a worker record by name.
#include <catch2/catch.hpp>

#include "pmdctl_records.hpp"
#include "renderers.hpp"

using namespace pmdctl;
using namespace pmdctl::test;

TEST_CASE("watch rates from two snapshots", "[pmdctl]") {
    Snapshot a{10.0, {{0, 1000, 64000, 900, 57600, 100}, {1, 0, 0, 0, 0, 0}}};
    Snapshot b{10.5,
               {{0, 3001000, 192064000, 3000900, 192057600, 600}, {1, 500000, 0, 500000, 0, 0}}};
    const auto rows = compute_rates(a, b);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].worker == 0u);
    CHECK(rows[0].rx_pkts == 3000000);
    CHECK(rows[0].rx_mpps == Approx(6.0));
    CHECK(rows[0].tx_mpps == Approx(6.0));
    CHECK(rows[0].rx_gbps == Approx(3.072));  // 192e6 bytes * 8 / 0.5 s
    CHECK(rows[0].drops_per_s == Approx(1000));
    CHECK(rows[1].rx_mpps == Approx(1.0));
    CHECK(rows[1].rx_gbps == 0);  // net_null-style: packets but no bytes
    CHECK_FALSE(rows[2].worker.has_value());
    CHECK(rows[2].rx_mpps == Approx(7.0));
    CHECK(rows[2].drops == 500);

    CHECK(render_rates(rows, 10.5, 0.5) ==
          "t=10.50s  interval 0.50s\n"
          "worker  rx Mpps  tx Mpps  rx Gbit/s  tx Gbit/s  drops/s\n"
          "0         6.000    6.000      3.072      3.072    1.00K\n"
          "1         1.000    1.000      0.000      0.000        0\n"
          "total     7.000    7.000      3.072      3.072    1.00K\n");

    const Json j = rates_json(rows, 10.5, 0.5);
    CHECK(j["workers"].size() == 2);
    CHECK(j["workers"][0]["worker"] == 0);
    CHECK(j["workers"][0]["rx_pkts"] == 3000000);
    CHECK(j["total"]["rx_mpps"].get<double>() == Approx(7.0));
    CHECK_FALSE(j["total"].contains("worker"));
}

TEST_CASE("watch rates across a clear, a new worker and a zero interval", "[pmdctl]") {
    Snapshot a{1.0, {{0, 5000, 0, 5000, 0, 10}}};
    // Counters went down: cleared in between, so the new values are the deltas.
    Snapshot b{2.0, {{0, 300, 0, 300, 0, 0}, {7, 100, 0, 100, 0, 0}}};
    auto rows = compute_rates(a, b);
    REQUIRE(rows.size() == 2);  // worker 7 has no baseline yet
    CHECK(rows[0].rx_pkts == 300);
    CHECK(rows[0].drops == 0);
    CHECK(rows[1].rx_pkts == 300);

    rows = compute_rates(b, b);
    CHECK(rows.back().rx_mpps == 0);
}

TEST_CASE("worker counters come from the record by name", "[pmdctl]") {
    const auto c = worker_counters(worker_record(1, 500, 20));
    CHECK(c.worker == 1);
    CHECK(c.rx_pkts == 500);
    CHECK(c.tx_bytes == 480 * 64);
    CHECK(c.drops == 20);
    CHECK(worker_counters(Json::object()).rx_pkts == 0);
}
