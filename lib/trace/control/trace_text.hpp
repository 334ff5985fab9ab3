// A traced packet in words, as `pmdctl trace show` prints it: its headers
// (in pieces that fit a telemetry string), then a line for each step.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ip_prefix.hpp"
#include "trace_ring.hpp"

namespace pmdfwd {

// The ports as the steps name them: by config index (a route's next hop)
// and by ethdev id (rx, tx).
struct TracePortNames {
    std::vector<std::string> by_index;
    std::vector<uint16_t> ethdev_ids;  // by config index

    std::string of_index(size_t i) const;
    std::string of_ethdev(uint16_t id) const;
};

// Router mode: the route that covers a destination now, in words
// ("10.2.0.0/24 static via 10.2.0.2 on p1"); empty when none.
using RouteNamer = std::function<std::string(const IpAddress&)>;

struct TraceRow {
    std::string step;
    std::string detail;
};

// Each row's detail is at most max_detail bytes: longer header text is
// cut at its ", " separators into several "headers" rows.
// After a looked_up step, a `route` row names the destination and its
// route as it is when the rows are made (route_of may be empty).
std::vector<TraceRow> trace_rows(const TraceRecord& r, const TracePortNames& ports,
                                 size_t max_detail, const RouteNamer& route_of = {});

}  // namespace pmdfwd
