// pmdctl route load FILE: a route table from a file, sent as batches of
// /pmdfwd/route_batch requests, each as long as a telemetry request may be,
// so a full Internet table loads in seconds rather than the hours one
// route_add a route takes. The file is read and checked whole before the
// first batch goes: a line that does not parse sends nothing.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "error.hpp"
#include "telemetry_client.hpp"

namespace pmdctl {

// One request's parameters and, for each of its items in order, the file
// line it came from.
struct RouteLoadBatch {
    std::string params;
    std::vector<size_t> lines;
};

// The batches of a route file, each at most max_params bytes. A line:
//   PREFIX via GATEWAY [port NAME]   add or replace, through a gateway
//   PREFIX port NAME                 add or replace, on-link on a port
//   del PREFIX                       delete
// with an optional leading `add`; blank lines and `#` comments are skipped.
// An error names file:line:column.
pmdfwd::Result<std::vector<RouteLoadBatch>> plan_route_load(std::istream& in,
                                                            const std::string& file,
                                                            size_t max_params);

// Sends the batches of `file`, prints each refusal (file:line: why) to
// stderr and a summary to stdout; a Failure when any change was refused.
void run_route_load(TelemetryClient& client, const std::string& file, bool json);

}  // namespace pmdctl
