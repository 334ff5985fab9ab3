// The appliance's endpoints (appliance_api.hpp, and the log channel's of
// netlog_api.hpp) served through ControlTarget, registered with DPDK
// telemetry so that dpdk-telemetry.py and pmdctl both talk to the stock
// telemetry socket. Other modules bind their own endpoints
// (endpoint_binding.hpp): the router's live with the router. Handlers run
// on the telemetry thread under one lock; detach() makes them answer
// "shutting down".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "record.hpp"

namespace pmdfwd {

// Where a record's counters start: the last `clear stats` (what the
// telemetry commands answer), or the appliance's start (what a scraper needs,
// since its counters must never go back).
enum class Since : uint8_t { clear, start };

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
    // Logs `count` warnings of `bytes` characters each (an end-to-end check
    // of the log channel, fragments included, and of a receiver in a burst).
    virtual Record log_test(size_t bytes, size_t count) const = 0;
    virtual void clear_stats() = 0;
    virtual void request_stop() = 0;
    // The records of the modules it runs (router mode's counters), for a
    // scrape.
    virtual void module_records(std::vector<Record>& out) const = 0;
};

// Registers every declared endpoint once per process (telemetry has no
// unregister) and serves the appliance's from target. Call after
// rte_eal_init.
void control_attach(ControlTarget* target);
// Detaches target if it is the one attached (a newer appliance keeps its own).
void control_detach(const ControlTarget* target);
// Whether an appliance is attached; the caller holds control_mutex().
bool control_attached();
// Runs fn on the attached target under the lock the telemetry commands take,
// so another reader (the metrics exporter) never races them; false when none
// is attached (pmdfwd is shutting down).
bool control_read(const std::function<void(const ControlTarget&)>& fn);

}  // namespace pmdfwd
