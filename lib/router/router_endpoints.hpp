// Router mode's endpoints (router_api.hpp) served from a Router: its routes
// and neighbours as pages of records, its counters, and route changes at
// run time, each logged at debug with a summary at info at most every 10 s.
// Bound while it lives: the appliance makes one once the router and the
// control plane run, and destroys it before the router.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "endpoint_binding.hpp"
#include "router.hpp"

namespace pmdfwd {

class RouterEndpoints {
  public:
    // port_names: by config port index, as neighbours are keyed.
    RouterEndpoints(Router& router, std::vector<std::string> port_names);
    RouterEndpoints(const RouterEndpoints&) = delete;
    RouterEndpoints& operator=(const RouterEndpoints&) = delete;

    // The info line on route changes over telemetry, at most one every 10 s;
    // the main lcore's housekeeping calls it.
    void summarize_route_changes();

  private:
    int routes(std::string_view params, Reply& reply) const;
    int neighbours(std::string_view params, Reply& reply) const;
    int route_add(std::string_view params, Reply& reply);
    int route_del(std::string_view params, Reply& reply);
    int route_batch(std::string_view params, Reply& reply);

    Router& router_;
    const std::vector<std::string> port_names_;
    std::atomic<uint64_t> added_{0};
    std::atomic<uint64_t> deleted_{0};
    uint64_t added_told_ = 0;
    uint64_t deleted_told_ = 0;
    std::chrono::steady_clock::time_point next_summary_{};
    std::vector<EndpointBinding> bindings_;  // last: unbound before the rest goes
};

}  // namespace pmdfwd
