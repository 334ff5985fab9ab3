// Router mode's record (see router_api.hpp). Pure.
#include "router_api.hpp"

namespace pmdfwd {

namespace {

// A group's fields, one per reason, from its counts in list order.
template <size_t N>
void set_group(Record& r, FieldId first, const std::array<uint64_t, N>& counts) {
    for (size_t i = 0; i < N; ++i) r.set(Record::next(first, i), counts[i]);
}

}  // namespace

Record router_record(const RouterTableSizes& sizes, const RouterCounters& c,
                     const NeighbourCounters& n) {
    Record r(kRouterRecord);
    r.set(kRouterRecord.at("routes"), sizes.routes);
    r.set(kRouterRecord.at("neighbours"), sizes.neighbours);
    r.set(kRouterRecord.at("next_hops"), sizes.next_hops);
    r.set(kRouterRecord.at("ecmp_groups"), sizes.ecmp_groups);
    r.set(kRouterRecord.at("neighbours_resolving"), sizes.neighbours_resolving);
    r.set(kRouterRecord.at("waiting"), sizes.waiting);
    r.set(kRouterRecord.at("waiting_peak"), sizes.waiting_peak);
#define PMDFWD_ROUTER_SET(name, unit, kind, help) r.set(kRouterRecord.at(#name), c.name);
#define PMDFWD_PUNT_SET(name, unit, kind, help) \
    r.set(kRouterRecord.at("punts_" #name), c.punts_##name);
    PMDFWD_ROUTER_COUNTERS(PMDFWD_ROUTER_SET, PMDFWD_PUNT_SET)
#undef PMDFWD_ROUTER_SET
#undef PMDFWD_PUNT_SET
    set_group(r, kRouterRecord.group_first("arp_rejected"), c.arp_rejected.by_reason);
    set_group(r, kRouterRecord.group_first("nd_rejected"), c.nd_rejected.by_reason);
    set_group(r, kRouterRecord.group_first("echo_rejected"), c.echo_rejected.by_reason);
    set_group(r, kRouterRecord.group_first("icmp_errors_vetoed_by"),
              c.icmp_errors_vetoed_by.by_reason);
    set_group(r, kRouterRecord.group_first("kernel_routes_skipped"),
              c.kernel_routes_skipped.by_reason);
#define PMDFWD_NEIGHBOUR_SET(name, unit, kind, help) \
    r.set(kRouterRecord.at("neighbour_" #name), n.name);
#define PMDFWD_NEIGHBOUR_DROP_SET(name, unit, kind, help) \
    r.set(kRouterRecord.at("neighbour_" #name "_drops"), n.name##_drops);
    PMDFWD_NEIGHBOUR_COUNTERS(PMDFWD_NEIGHBOUR_SET, PMDFWD_NEIGHBOUR_DROP_SET)
#undef PMDFWD_NEIGHBOUR_SET
#undef PMDFWD_NEIGHBOUR_DROP_SET
    return r;
}

}  // namespace pmdfwd
