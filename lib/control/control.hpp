// The control plane: /pmdfwd/... commands registered with DPDK telemetry, so
// dpdk-telemetry.py and pmdctl both talk to the stock telemetry socket.
// Callbacks run on the telemetry thread and reach the appliance through
// ControlTarget under one mutex; detach() makes them answer "not running".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "error.hpp"
#include "ip_prefix.hpp"
#include "record.hpp"

namespace pmdfwd {

// Where a record's counters start: the last `clear stats` (what the
// telemetry commands answer), or the appliance's start (what a scraper needs,
// since its counters must never go back).
enum class Since : uint8_t { clear, start };

// Router mode's tables as telemetry lists them: one line of words per route
// or neighbour, a page at a time (a telemetry reply holds about 60 lines),
// with the table's length.
struct TextPage {
    std::vector<std::string> lines;
    size_t total = 0;
};

class ControlTarget {
  public:
    virtual ~ControlTarget() = default;
    virtual Record info() const = 0;
    virtual std::vector<std::string> plan_lines() const = 0;
    virtual size_t worker_count() const = 0;
    virtual Record worker(size_t i, Since since) const = 0;
    virtual size_t port_count() const = 0;
    virtual Record port(size_t i, Since since) const = 0;
    virtual size_t pool_count() const = 0;
    virtual Record pool(size_t i, Since since) const = 0;
    // One worker's residence-time histogram.
    virtual Record latency(size_t i, Since since) const = 0;
    virtual Record totals(Since since) const = 0;
    virtual Record netlog() const = 0;  // the log channel's counters and latency
    // Logs one warning of `bytes` characters (an end-to-end check of the log
    // channel, fragments included).
    virtual Record log_test(size_t bytes) const = 0;
    virtual void clear_stats() = 0;
    virtual void request_stop() = 0;
    // Router mode (forward.mode = "l3"); an error in the other modes.
    virtual Result<TextPage> routes(size_t first, size_t max) const = 0;
    virtual Result<TextPage> neighbours(size_t first, size_t max) const = 0;
    virtual Result<Record> router_counters() const = 0;
    virtual Status route_add(const IpPrefix& prefix, const std::optional<IpAddress>& via,
                             const std::string& port) = 0;
    virtual Status route_del(const IpPrefix& prefix) = 0;
};

struct ControlCommand {
    const char* path;
    const char* help;
};

// Every command pmdfwd registers, for docs and tests.
extern const std::vector<ControlCommand> kControlCommands;

// Registers the commands once per process (telemetry has no unregister) and
// points them at target. Call after rte_eal_init.
void control_attach(ControlTarget* target);
// Detaches target if it is the one attached (a newer appliance keeps its own).
void control_detach(const ControlTarget* target);
// Runs fn on the attached target under the lock the telemetry commands take,
// so another reader (the metrics exporter) never races them; false when none
// is attached (pmdfwd is shutting down).
bool control_read(const std::function<void(const ControlTarget&)>& fn);

}  // namespace pmdfwd
