// The appliance's endpoints served through ControlTarget (see control.hpp).
// Telemetry thread.
#include "control.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <type_traits>

#include "endpoint_binding.hpp"
#include "protocol.hpp"
#include "stats_records.hpp"
#include "token_bucket.hpp"

namespace pmdfwd {

namespace {

ControlTarget* g_target = nullptr;  // under control_mutex()
// The bindings of the attached target's endpoints.
std::vector<EndpointBinding> g_bindings;

using TargetHandler = int (*)(ControlTarget& t, std::string_view params, Reply& reply);

template <auto kGet>
int cmd_record(ControlTarget& t, std::string_view params, Reply& reply) {
    if (!params.empty()) return -EINVAL;
    if constexpr (std::is_invocable_r_v<Record, decltype(kGet), ControlTarget&, Since>)
        reply.record((t.*kGet)(Since::clear));
    else
        reply.record((t.*kGet)());
    return 0;
}

int cmd_plan(ControlTarget& t, std::string_view params, Reply& reply) {
    if (!params.empty()) return -EINVAL;
    reply.lines(t.plan_lines());
    return 0;
}

// A list command (ids, like /ethdev/list) and its per-item command
// (/pmdfwd/worker,<id>), for workers, ports and pools alike.
template <size_t (ControlTarget::*kCount)() const>
int cmd_list(ControlTarget& t, std::string_view params, Reply& reply) {
    if (!params.empty()) return -EINVAL;
    reply.ids((t.*kCount)());
    return 0;
}

template <size_t (ControlTarget::*kCount)() const,
          Record (ControlTarget::*kItem)(size_t, Since) const>
int cmd_item(ControlTarget& t, std::string_view params, Reply& reply) {
    size_t i;
    if (!parse_index(params, (t.*kCount)(), i)) return -EINVAL;
    reply.record((t.*kItem)(i, Since::clear));
    return 0;
}

// A command that acts and says what it did.
constexpr char kCleared[] = "stats cleared";
constexpr char kStopping[] = "shutdown requested";
template <void (ControlTarget::*kAct)(), const char* kResult>
int cmd_act(ControlTarget& t, std::string_view params, Reply& reply) {
    if (!params.empty()) return -EINVAL;
    (t.*kAct)();
    reply.record(result_record(kResult));
    return 0;
}

// Each test record is a warning on every log sink: a client looping on
// log_test must not flood the log or take the log channel's rate for itself.
// Counted in records and in bytes: two of the longest at once, then 4 KB a
// second (about 340 MB a day at most, where 16 KB a request was 1.4 GB an
// hour); a burst as large as the log channel's, to check a receiver with.
constexpr uint32_t kLogTestsPerSecond = 5;
constexpr uint32_t kLogTestBurst = kMaxTestRecords;
constexpr uint32_t kLogTestBytesPerSecond = 4096;
constexpr uint32_t kLogTestBytesBurst = 2 * kMaxTestRecord;

int cmd_log_test(ControlTarget& t, std::string_view params, Reply& reply) {
    size_t bytes, count = 1;
    const size_t comma = params.find(',');
    if (!parse_index(params.substr(0, comma), kMaxTestRecord + 1, bytes)) return -EINVAL;
    if (comma != std::string_view::npos &&
        (!parse_index(params.substr(comma + 1), kMaxTestRecords + 1, count) || count == 0))
        return -EINVAL;
    // More than the byte budget holds at once would never pass: refused as
    // such, before it takes any token.
    if (std::max<size_t>(bytes, 1) * count > kLogTestBytesBurst) {
        static const std::string kTooMuch = "count x bytes is more than the " +
                                            std::to_string(kLogTestBytesBurst) +
                                            " bytes of test records allowed at once";
        reply.error(kTooMuch);
        return 0;
    }
    // Under the control lock, both.
    static TokenBucket records(kLogTestsPerSecond, kLogTestBurst);
    static TokenBucket bytes_budget(kLogTestBytesPerSecond, kLogTestBytesBurst);
    const auto now_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
    if (!records.take(now_ns, count) ||
        !bytes_budget.take(now_ns, std::max<size_t>(bytes, 1) * count)) {
        static const std::string kLimited =
            "rate limited: at most " + std::to_string(kLogTestsPerSecond) + " log tests and " +
            std::to_string(kLogTestBytesPerSecond) + " bytes of them a second, " +
            std::to_string(kLogTestBurst) + " and " + std::to_string(kLogTestBytesBurst) +
            " bytes at once";
        reply.error(kLimited);
        return 0;
    }
    reply.record(t.log_test(bytes, count));
    return 0;
}

struct Served {
    const Endpoint* endpoint;
    TargetHandler handler;
};

const Served kServed[] = {
    {&endpoints::kInfo, cmd_record<&ControlTarget::info>},
    {&endpoints::kPlan, cmd_plan},
    {&endpoints::kWorkers, cmd_list<&ControlTarget::worker_count>},
    {&endpoints::kWorker, cmd_item<&ControlTarget::worker_count, &ControlTarget::worker>},
    {&endpoints::kLatency, cmd_item<&ControlTarget::worker_count, &ControlTarget::latency>},
    {&endpoints::kPorts, cmd_list<&ControlTarget::port_count>},
    {&endpoints::kPort, cmd_item<&ControlTarget::port_count, &ControlTarget::port>},
    {&endpoints::kPools, cmd_list<&ControlTarget::pool_count>},
    {&endpoints::kPool, cmd_item<&ControlTarget::pool_count, &ControlTarget::pool>},
    {&endpoints::kStats, cmd_record<&ControlTarget::totals>},
    {&endpoints::kClear, cmd_act<&ControlTarget::clear_stats, kCleared>},
    {&endpoints::kShutdown, cmd_act<&ControlTarget::request_stop, kStopping>},
    {&endpoints::kLog, cmd_record<&ControlTarget::netlog>},
    {&endpoints::kLogTest, cmd_log_test},
};

}  // namespace

void control_attach(ControlTarget* target) {
    register_endpoints(kEndpoints);
    g_bindings.clear();
    for (const auto& s : kServed)
        g_bindings.emplace_back(*s.endpoint,
                                [target, fn = s.handler](std::string_view params, Reply& reply) {
                                    return fn(*target, params, reply);
                                });
    std::lock_guard lock(control_mutex());
    g_target = target;
}

void control_detach(const ControlTarget* target) {
    {
        std::lock_guard lock(control_mutex());
        if (g_target != target) return;
    }
    g_bindings.clear();  // waits for a request in progress
    std::lock_guard lock(control_mutex());
    g_target = nullptr;
}

bool control_attached() { return g_target != nullptr; }

bool control_read(const std::function<void(const ControlTarget&)>& fn) {
    std::lock_guard lock(control_mutex());
    if (!g_target) return false;
    fn(*g_target);
    return true;
}

}  // namespace pmdfwd
