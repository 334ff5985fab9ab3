// Serving a declared endpoint (endpoint.hpp): a module binds a handler to
// each of its endpoints while the object that answers them lives. Every
// declared endpoint is registered with DPDK telemetry once per process (it
// has no unregister) to one dispatcher, which runs the bound handler under
// the control lock; an endpoint nobody serves answers in words why not.
// The bindings run on DPDK's telemetry threads, one request at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "endpoint.hpp"
#include "record.hpp"

struct rte_tel_data;

namespace pmdfwd {

// The answer to one request, in the endpoint's shape.
class Reply {
  public:
    explicit Reply(rte_tel_data* d) : d_(d) {}
    void record(const Record& r);
    void error(std::string_view message);
    void ids(size_t count);
    void lines(const std::vector<std::string>& lines);
    // Rows first .. first + rows.size() of a table of `total`, a column per
    // field of the schema.
    void page(const RecordSchema& schema, std::span<const Record> rows, size_t first, size_t total);

  private:
    rte_tel_data* d_;
};

// What serves a request: its parameters (empty when none were given) and
// the reply to fill. Returns 0, or -EINVAL for parameters it does not take
// (the client then gets null, as from any DPDK command).
using EndpointHandler = std::function<int(std::string_view params, Reply& reply)>;

// Serves one endpoint while it lives; destroying it waits for a request in
// progress. Move-only.
class EndpointBinding {
  public:
    EndpointBinding(const Endpoint& endpoint, EndpointHandler handler);
    ~EndpointBinding();
    EndpointBinding(EndpointBinding&& other) noexcept;
    EndpointBinding& operator=(EndpointBinding&&) = delete;
    EndpointBinding(const EndpointBinding&) = delete;

  private:
    const Endpoint* endpoint_;
    uint64_t id_;  // which binding of the endpoint is the live one
};

// Registers every endpoint with DPDK telemetry, once per process; call
// after rte_eal_init. `unserved` is what an endpoint answers while nobody
// serves it, with the appliance running.
void register_endpoints(std::span<const Endpoint* const> endpoints);
// Whether a handler is bound to the endpoint now.
bool endpoint_served(const Endpoint& endpoint);

// The lock every bound handler runs under, for readers that must not race
// them (the metrics exporter).
std::mutex& control_mutex();

// The comma-separated words of a request's parameters.
std::vector<std::string> split_params(std::string_view params);
// A decimal index below limit; false on anything else.
bool parse_index(std::string_view params, size_t limit, size_t& out);

}  // namespace pmdfwd
