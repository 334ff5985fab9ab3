// The scrape-time collector and its HTTP listener (see metrics_exporter.hpp).
// Runs on prometheus-cpp's listener thread, which inherits the main lcore's
// CPU set: a scrape never runs on a worker's core.
#include "metrics_exporter.hpp"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <exception>

#include "control.hpp"
#include "metric_families.hpp"
#include "record_schemas.hpp"

namespace pmdfwd {

class MetricsCollector final : public prometheus::Collectable {
  public:
    std::vector<prometheus::MetricFamily> Collect() const override {
        std::vector<Record> records;
        uint64_t tsc_hz = 1000000000;
        const bool up = control_read([&](const ControlTarget& t) {
            records.push_back(t.info());
            if (const auto* hz = records.back().number(kInfoRecord.at("tsc_hz"))) tsc_hz = *hz;
            records.push_back(t.totals(Since::start));
            for (size_t i = 0; i < t.worker_count(); ++i)
                records.push_back(t.worker(i, Since::start));
            for (size_t i = 0; i < t.worker_count(); ++i)
                records.push_back(t.latency(i, Since::start));
            for (size_t i = 0; i < t.port_count(); ++i) records.push_back(t.port(i, Since::start));
            for (size_t i = 0; i < t.pool_count(); ++i) records.push_back(t.pool(i, Since::start));
            records.push_back(t.netlog());
            if (auto router = t.router_counters()) records.push_back(std::move(router.value()));
        });
        MetricFamilies families(tsc_hz);
        for (const auto& r : records) families.add(r);
        return families.take(up);
    }
};

Result<std::unique_ptr<MetricsExporter>> MetricsExporter::start(const std::string& address) {
    std::unique_ptr<MetricsExporter> e(new MetricsExporter());
    e->collector_ = std::make_shared<MetricsCollector>();
    try {
        // One thread: scrapes are serialised, and each holds the control
        // lock while it reads anyway.
        e->exposer_ = std::make_unique<prometheus::Exposer>(address, 1);
    } catch (const std::exception& ex) {
        return make_error("[control] metrics: cannot listen on " + address + ": " + ex.what());
    }
    e->exposer_->RegisterCollectable(e->collector_);
    return e;
}

MetricsExporter::~MetricsExporter() = default;

int MetricsExporter::port() const {
    const auto ports = exposer_->GetListeningPorts();
    return ports.empty() ? 0 : ports.front();
}

}  // namespace pmdfwd
