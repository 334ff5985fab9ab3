// The packet trace's and drop capture's endpoints (trace_api.hpp), served
// from a TraceControl. Bound while it lives: the appliance makes one once
// the workers and the control plane run, and destroys it first at shutdown.
#pragma once

#include <string_view>
#include <vector>

#include "endpoint_binding.hpp"
#include "trace_control.hpp"
#include "trace_text.hpp"

namespace pmdfwd {

class TraceEndpoints {
  public:
    // route_of: router mode's route names (empty in other modes).
    TraceEndpoints(TraceControl& control, TracePortNames ports, RouteNamer route_of = {});
    TraceEndpoints(const TraceEndpoints&) = delete;
    TraceEndpoints& operator=(const TraceEndpoints&) = delete;

  private:
    int trace_start(std::string_view params, Reply& reply);
    int trace_page(std::string_view params, Reply& reply);
    int drops_start(std::string_view params, Reply& reply);
    int drops_page(std::string_view params, Reply& reply);
    Record trace_state() const;
    Record drop_state();

    TraceControl& control_;
    const TracePortNames ports_;
    const RouteNamer route_of_;
    std::vector<Record> trace_rows_;  // the snapshot `trace,0` took
    std::vector<EndpointBinding> bindings_;
};

}  // namespace pmdfwd
