// The scrape-time collector and its HTTP listener (see metrics_exporter.hpp).
// Runs on prometheus-cpp's listener threads, which inherit the main lcore's
// CPU set: a scrape never runs on a worker's core.
#include "metrics_exporter.hpp"

#include <CivetServer.h>
#include <civetweb.h>
#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>
#include <mutex>

#include "control.hpp"
#include "log_rate_limit.hpp"
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
            t.module_records(records);
        });
        MetricFamilies families(tsc_hz);
        for (const auto& r : records) families.add(r);
        return families.take(up);
    }
};

namespace {

// Scrapes served at once: one stuck client holds one of them.
constexpr const char* kServeThreads = "4";
// How long a connection may take to send its request or read its answer
// (civetweb's default is 30 s): a scrape is a few kilobytes on a local link.
constexpr const char* kRequestTimeoutMs = "2000";

// The allow list of the one exporter a process has; civetweb's own access
// lists know no IPv6 in Debian's build, so the check is made here.
std::mutex g_allow_mutex;
const std::vector<IpPrefix>* g_allow = nullptr;
LogRateLimit g_refusal_log(60ull * 1000000000, 1);

uint64_t steady_ns() {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

// civetweb's begin_request: 0 lets the request through; a status code says
// it has been answered.
int check_client(mg_connection* conn) {
    const mg_request_info* info = mg_get_request_info(conn);
    std::string remote = info && info->remote_addr[0] ? info->remote_addr : "";
    // An IPv4 client of a dual-stack socket reads as ::ffff:a.b.c.d.
    if (remote.rfind("::ffff:", 0) == 0 && remote.find('.') != std::string::npos)
        remote = remote.substr(7);
    {
        std::lock_guard lock(g_allow_mutex);
        if (!g_allow || g_allow->empty()) return 0;
        if (const auto address = parse_ip_address(remote, nullptr))
            for (const IpPrefix& p : *g_allow)
                if (contains(p, *address)) return 0;
        uint64_t held_back = 0;
        if (g_refusal_log.allow(steady_ns(), held_back))
            spdlog::warn("metrics: refused a scrape from {}: not in [control] metrics_allow{}",
                         remote.empty() ? "an unknown address" : remote,
                         held_back ? fmt::format(" ({} more refused since)", held_back) : "");
    }
    mg_send_http_error(conn, 403, "%s", "not in metrics_allow\n");
    return 403;
}

}  // namespace

Result<std::unique_ptr<MetricsExporter>> MetricsExporter::start(const std::string& address,
                                                                std::vector<IpPrefix> allow) {
    std::unique_ptr<MetricsExporter> e(new MetricsExporter());
    e->collector_ = std::make_shared<MetricsCollector>();
    e->allow_ = std::move(allow);
    // An exporter a reload replaces keeps serving until this one listens:
    // a failure gives it its list back.
    const std::vector<IpPrefix>* before = nullptr;
    {
        std::lock_guard lock(g_allow_mutex);
        before = g_allow;
        g_allow = &e->allow_;
    }
    static CivetCallbacks callbacks = [] {
        CivetCallbacks c;
        c.begin_request = check_client;
        return c;
    }();
    try {
        e->exposer_ = std::make_unique<prometheus::Exposer>(
            std::vector<std::string>{"listening_ports", address, "num_threads", kServeThreads,
                                     "request_timeout_ms", kRequestTimeoutMs},
            &callbacks);
    } catch (const std::exception& ex) {
        std::lock_guard lock(g_allow_mutex);
        g_allow = before;
        return make_error("[control] metrics: cannot listen on " + address + ": " + ex.what());
    }
    e->exposer_->RegisterCollectable(e->collector_);
    return e;
}

void MetricsExporter::set_allow(std::vector<IpPrefix> allow) {
    std::lock_guard lock(g_allow_mutex);
    allow_ = std::move(allow);
}

MetricsExporter::~MetricsExporter() {
    exposer_.reset();  // no request in flight from here on
    std::lock_guard lock(g_allow_mutex);
    if (g_allow == &allow_) g_allow = nullptr;
}

int MetricsExporter::port() const {
    const auto ports = exposer_->GetListeningPorts();
    return ports.empty() ? 0 : ports.front();
}

}  // namespace pmdfwd
