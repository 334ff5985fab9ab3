// Router mode's side of the control protocol, declared once: its records
// (the control path's counters, a route, a neighbour) and its endpoints.
// pmdctl and the docs read these; lib/router serves them
// (router_endpoints.cpp). Pure: no DPDK.
#pragma once

#include <cstdint>

#include "endpoint.hpp"
#include "fields.hpp"
#include "neighbour_table.hpp"
#include "record.hpp"
#include "router_counters.hpp"

namespace pmdfwd {

namespace fields {

inline constexpr Field kRouterFields[] = {
    {"routes", Unit::none, Kind::gauge,
     "routes in the table: connected, local, neighbours' host routes, static and added"},
    {"neighbours", Unit::none, Kind::gauge, "neighbours known or being resolved"},
    {"next_hops", Unit::none, Kind::gauge,
     "next-hop entries in use, those waiting for the workers' quiescent state included"},
    {"ecmp_groups", Unit::none, Kind::gauge,
     "equal-cost groups in use (one per set of paths), at most l3.max_ecmp_groups"},
    {"neighbours_resolving", Unit::none, Kind::gauge,
     "neighbours being resolved (incomplete), at most l3.max_resolving"},
    {"waiting", Unit::packets, Kind::gauge,
     "packets held for neighbours being resolved, at most l3.max_waiting_packets"},
    {"waiting_peak", Unit::packets, Kind::gauge,
     "the most packets held for neighbours at once since start"},
// Each reason of a list is a field of its labelled group: one metric, by
// reason (as the workers' drops).
#define PMDFWD_PUNT_FIELD(name, unit, kind, help) \
    group_field("punts_" #name, Unit::unit, Tally::kind, help, "punts", #name, "reason"),
    PMDFWD_ROUTER_COUNTERS(PMDFWD_LIST_FIELD, PMDFWD_PUNT_FIELD)
#undef PMDFWD_PUNT_FIELD
// What the control path turned away, by reason (router_counters.hpp).
#define PMDFWD_ARP_REJECT_FIELD(name, unit, kind, help)                                      \
    group_field("arp_rejected_" #name, Unit::unit, Tally::kind, help, "arp_rejected", #name, \
                "reason"),
#define PMDFWD_ND_REJECT_FIELD(name, unit, kind, help)                                     \
    group_field("nd_rejected_" #name, Unit::unit, Tally::kind, help, "nd_rejected", #name, \
                "reason"),
#define PMDFWD_ECHO_REJECT_FIELD(name, unit, kind, help)                                       \
    group_field("echo_rejected_" #name, Unit::unit, Tally::kind, help, "echo_rejected", #name, \
                "reason"),
#define PMDFWD_VETO_FIELD(name, unit, kind, help)                           \
    group_field("icmp_errors_vetoed_" #name, Unit::unit, Tally::kind, help, \
                "icmp_errors_vetoed_by", #name, "reason"),
#define PMDFWD_KERNEL_SKIP_FIELD(name, unit, kind, help)                       \
    group_field("kernel_routes_skipped_" #name, Unit::unit, Tally::kind, help, \
                "kernel_routes_skipped", #name, "reason"),
        PMDFWD_ARP_REJECTS(PMDFWD_ARP_REJECT_FIELD)  //
    PMDFWD_ND_REJECTS(PMDFWD_ND_REJECT_FIELD)        //
    PMDFWD_ECHO_REJECTS(PMDFWD_ECHO_REJECT_FIELD)    //
    PMDFWD_ICMP_ERROR_VETOES(PMDFWD_VETO_FIELD)      //
    PMDFWD_KERNEL_ROUTE_SKIPS(PMDFWD_KERNEL_SKIP_FIELD)
#undef PMDFWD_KERNEL_SKIP_FIELD
#undef PMDFWD_ARP_REJECT_FIELD
#undef PMDFWD_ND_REJECT_FIELD
#undef PMDFWD_ECHO_REJECT_FIELD
#undef PMDFWD_VETO_FIELD
#define PMDFWD_NEIGHBOUR_FIELD(name, unit, kind, help) \
    list_field("neighbour_" #name, Unit::unit, Tally::kind, help),
#define PMDFWD_NEIGHBOUR_DROP_FIELD(name, unit, kind, help)                                    \
    group_field("neighbour_" #name "_drops", Unit::unit, Tally::kind, help, "neighbour_drops", \
                #name, "reason"),
        PMDFWD_NEIGHBOUR_COUNTERS(PMDFWD_NEIGHBOUR_FIELD, PMDFWD_NEIGHBOUR_DROP_FIELD)
#undef PMDFWD_NEIGHBOUR_FIELD
#undef PMDFWD_NEIGHBOUR_DROP_FIELD
};

inline constexpr Field kRouteFields[] = {
    {.key = "prefix", .kind = Kind::label, .help = "the destination prefix"},
    {"origin", Unit::none, Kind::info,
     "connected: the subnet of a port address; local: one of the router's own addresses (to the "
     "control path); neighbour: the host route of a resolved neighbour; static: a [[route]] of "
     "the config; runtime: added with route add; kernel: from the kernel table of "
     "l3.kernel_routes"},
    {"port", Unit::none, Kind::info, "the port it leaves by; - for none"},
    {"via", Unit::none, Kind::info,
     "its next hop; - for an on-link route (each destination is resolved on the port)"},
    {"state", Unit::none, Kind::info,
     "forward: the workers send it on with the next hop's MAC; resolving: its next hop has no MAC "
     "yet, so packets go to the control path, which resolves it and holds them meanwhile; local: "
     "for the router itself"},
};

inline constexpr Field kNeighbourFields[] = {
    {.key = "port", .kind = Kind::label, .help = "the port it was resolved on"},
    {.key = "address", .kind = Kind::label, .help = "its IPv4 or IPv6 address"},
    {"state", Unit::none, Kind::info,
     "incomplete (being asked), reachable (its MAC confirmed within l3.reachable_s), probe (older, "
     "asked again by unicast, still used), stale (learned from a request for one of our "
     "addresses: used, never probed, evicted first) or permanent (a [[neighbour]] of the config)"},
    {"mac", Unit::none, Kind::info, "its MAC address; - while incomplete"},
    {"age_ms", Unit::none, Kind::gauge,
     "milliseconds since it was made (incomplete), last confirmed (reachable, probe), last heard "
     "(stale) or added (permanent)",
     "age_ms"},
    {"waiting", Unit::packets, Kind::gauge, "packets held for it while it is incomplete"},
    {"requests", Unit::requests, Kind::gauge,
     "ARP requests or neighbour solicitations sent for it since it was made or last confirmed"},
};

}  // namespace fields

inline constexpr RecordSchema kRouterRecord{
    "router",
    "Router mode (l3) only: its tables' sizes and the control path's counters since start.",
    fields::kRouterFields};
// Every reason a counter, each group standing together: one metric each.
static_assert(kRouterRecord.group("punts").size() == kPuntReasonCount);
static_assert(kRouterRecord.group("neighbour_drops").size() == kNeighbourDropCount);
// The records index these groups by position: a reason's field is its
// list's entry.
static_assert(kRouterRecord.group("arp_rejected").size() == kArpRejectCount - 1);
static_assert(kRouterRecord.group("nd_rejected").size() == kNdRejectCount - 1);
static_assert(kRouterRecord.group("echo_rejected").size() == kEchoRejectCount - 1);
static_assert(kRouterRecord.group("icmp_errors_vetoed_by").size() == kIcmpErrorVetoCount - 1);
static_assert(kRouterRecord.group("kernel_routes_skipped").size() == kKernelRouteSkipCount - 1);

namespace fields {
inline constexpr Field kRouteBatchFields[] = {
    {"added", Unit::none, Kind::gauge, "routes this batch added or replaced"},
    {"deleted", Unit::none, Kind::gauge, "routes this batch deleted"},
    {"refused", Unit::none, Kind::gauge,
     "changes of this batch refused; every other change was applied"},
    {"first_refused", Unit::none, Kind::gauge,
     "the position of the first item refused, 0 up among the batch's items; 0 when none was"},
    {"refusal", Unit::none, Kind::info, "why the first refused item was refused; - when none was"},
};
}  // namespace fields

inline constexpr RecordSchema kRouteBatchRecord{
    "route_batch", "Router mode (l3) only: what one batch of route changes did.",
    fields::kRouteBatchFields};
inline constexpr RecordSchema kRouteRecord{
    "route", "Router mode (l3) only: one route of the routing table.", fields::kRouteFields};
inline constexpr RecordSchema kNeighbourRecord{
    "neighbour", "Router mode (l3) only: one neighbour, resolved or being resolved.",
    fields::kNeighbourFields};

// Router mode's record: its tables' sizes, then the control path's and the
// neighbour table's counters.
struct RouterTableSizes {
    uint64_t routes = 0, neighbours = 0, next_hops = 0, ecmp_groups = 0;
    uint64_t neighbours_resolving = 0, waiting = 0, waiting_peak = 0;
};
Record router_record(const RouterTableSizes& sizes, const RouterCounters& c,
                     const NeighbourCounters& n);

namespace endpoints {

inline constexpr std::string_view kNotRouter = "not in router mode: forward.mode is not \"l3\"";

inline constexpr Endpoint kRoutes{
    .path = "/pmdfwd/routes",
    .help = "Router mode: 60 routes from <first> in prefix order. Parameters: [int first]",
    .shape = Shape::page,
    .schema = &kRouteRecord,
    .parameter = "first row (optional, default 0)",
    .returns =
        "router mode: up to 60 rows of the routing table from row `first`, in prefix order; ask "
        "again "
        "from `first + 60` while rows remain. Other modes: `{\"error\": \"not in router "
        "mode: ...\"}`",
    .unserved = kNotRouter};
inline constexpr Endpoint kNeighbours{
    .path = "/pmdfwd/neighbours",
    .help = "Router mode: 60 neighbours from <first>. Parameters: [int first]",
    .shape = Shape::page,
    .schema = &kNeighbourRecord,
    .parameter = "first row (optional)",
    .returns = "router mode: up to 60 neighbours from row `first`, by port and address",
    .unserved = kNotRouter};
inline constexpr Endpoint kRouter{
    .path = "/pmdfwd/router",
    .help = "Router mode: the control path's counters (ARP, ND, ICMP, neighbours).",
    .shape = Shape::record,
    .schema = &kRouterRecord,
    .returns = "router mode: table sizes and the control path's counters since start",
    .unserved = kNotRouter};
inline constexpr Endpoint kRouteAdd{
    .path = "/pmdfwd/route_add",
    .help =
        "Router mode: add or replace a route, workers never stopped. Parameters: "
        "prefix[,via or -[,port or -]]..., a pair per path",
    .shape = Shape::action,
    .schema = &kResultRecord,
    .parameter = "`prefix[,via[,port]]...` (`-` for none), a pair per path of an equal-cost route",
    .returns =
        "router mode: `{\"result\": \"route P added\"}`, or `{\"error\": \"...\"}` saying why not: "
        "`/pmdfwd/route_add,10.53.0.0/24,10.52.2.2`",
    .unserved = kNotRouter};
inline constexpr Endpoint kRouteDel{
    .path = "/pmdfwd/route_del",
    .help = "Router mode: delete a static or added route. Parameters: prefix",
    .shape = Shape::action,
    .schema = &kResultRecord,
    .parameter = "`prefix`",
    .returns = "router mode: `{\"result\": \"route P deleted\"}` or `{\"error\": \"...\"}`",
    .unserved = kNotRouter};

inline constexpr Endpoint kRouteBatch{
    .path = "/pmdfwd/route_batch",
    .help =
        "Router mode: many route changes under one hold of the lock (pmdctl route load). "
        "Parameters: items separated by ';'",
    .shape = Shape::record,
    .schema = &kRouteBatchRecord,
    .parameter =
        "items separated by `;`: `=via[,port]` (or `=-,port`, on-link) sets the path of the "
        "adds after it, `+prefix` adds or replaces a route over that path, `-prefix` deletes a "
        "static or added route",
    .returns =
        "router mode: how many were added, deleted and refused, and the first refusal: "
        "`/pmdfwd/route_batch,=10.52.2.2;+10.53.0.0/24;+10.54.0.0/24;-10.55.0.0/24`",
    .unserved = kNotRouter};

inline constexpr const Endpoint* kRouterEndpoints[] = {&kRoutes,   &kNeighbours, &kRouter,
                                                       &kRouteAdd, &kRouteDel,   &kRouteBatch};

}  // namespace endpoints

}  // namespace pmdfwd
