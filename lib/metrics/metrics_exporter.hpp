// The Prometheus endpoint ([control] metrics): an HTTP listener of
// prometheus-cpp on its own thread that, at each scrape, reads the records
// the telemetry commands read (from the appliance's start, so counters never
// go back) through control_read, and serves them as metric_families.hpp
// makes them. Nothing is counted for it on the fast path: a scrape costs the
// workers what a telemetry request does. Several threads serve it, each
// connection with a short read deadline, so that one client that sends half
// a request holds one thread for a moment, never every scrape.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "error.hpp"
#include "ip_prefix.hpp"

namespace prometheus {
class Exposer;
}

namespace pmdfwd {

class MetricsCollector;

class MetricsExporter {
  public:
    // Listens on `address` ("127.0.0.1:9469", "[::1]:9469"); an error naming
    // it when it cannot (in use, not an address of this host). A client
    // outside `allow` (when not empty) is answered 403 and nothing else.
    static Result<std::unique_ptr<MetricsExporter>> start(const std::string& address,
                                                          std::vector<IpPrefix> allow = {});
    // A reload's new list of who may scrape, at once.
    void set_allow(std::vector<IpPrefix> allow);
    // Stops listening; a scrape in progress finishes first.
    ~MetricsExporter();
    // The port it listens on (the one asked for, or the kernel's pick for 0).
    int port() const;

  private:
    MetricsExporter() = default;
    std::vector<IpPrefix> allow_;
    std::shared_ptr<MetricsCollector> collector_;
    std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace pmdfwd
