// The whole control protocol: every module's endpoints and records, gathered
// from the declarations each module makes of its own (appliance_api.hpp,
// netlog_api.hpp, router_api.hpp). What walks them all reads these: pmdctl's
// field and metric references, docs/cli.md's tables, the metrics exporter,
// the tests that hold handlers, pmdctl and the docs to the declarations.
// Pure: no DPDK.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "appliance_api.hpp"
#include "endpoint.hpp"
#include "join.hpp"
#include "metric_names.hpp"
#include "netlog_api.hpp"
#include "record_schemas.hpp"
#include "router_api.hpp"
#include "trace_api.hpp"

namespace pmdfwd {

// Every endpoint pmdfwd serves, module by module.
inline constexpr auto kEndpoints =
    join<const Endpoint*>(endpoints::kApplianceEndpoints, endpoints::kNetlogEndpoints,
                          endpoints::kRouterEndpoints, endpoints::kTraceEndpoints);

// Every record kind, in docs/cli.md's order.
inline constexpr const RecordSchema* kRecordSchemas[] = {
    &kInfoRecord,      &kWorkerRecord,     &kStatsRecord,      &kLatencyRecord, &kPortRecord,
    &kPoolRecord,      &kLogRecord,        &kLogTestRecord,    &kRouterRecord,  &kRouteRecord,
    &kNeighbourRecord, &kRouteBatchRecord, &kTraceStateRecord, &kTraceRecord,   &kDropCaptureRecord,
    &kDropRecord,      &kConfigLineRecord, &kResultRecord,
};

// The records a scrape turns into metrics, in the order the exporter reads
// them.
inline constexpr const RecordSchema* kScrapedSchemas[] = {
    &kInfoRecord, &kStatsRecord, &kWorkerRecord, &kLatencyRecord,
    &kPortRecord, &kPoolRecord,  &kLogRecord,    &kRouterRecord,
};

// The endpoints answering with a record of s, as docs name them:
// "/pmdfwd/clear, /pmdfwd/shutdown".
std::string endpoint_paths(const RecordSchema& s);

// The metric families of every scraped record.
const std::vector<RecordMetrics>& exported_metrics();

// docs/operations.md's metrics reference.
std::string metrics_markdown();

}  // namespace pmdfwd
