// What router mode's control path counts, declared once: X(name, unit,
// kind, help) (counter_list.hpp). The router record shows each;
// the metrics export them. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "arp_packet.hpp"
#include "counter_list.hpp"
#include "icmp_packet.hpp"
#include "nd_packet.hpp"

namespace pmdfwd {

// Why a worker hands a packet to the control path. Each reason is a value
// of PuntReason and the counter punts_<reason>, of the labelled group
// "punts" (one metric, by reason): no reason goes uncounted.
#define PMDFWD_PUNT_REASONS(X)                                                             \
    X(neighbour, packets, counter, "punted as ARP or neighbour discovery")                 \
    X(local, packets, counter, "punted as addressed to one of the router's addresses")     \
    X(no_neighbour, packets, counter, "punted to wait for a neighbour without a MAC yet")  \
    X(time_exceeded, packets, counter,                                                     \
      "dropped by a worker as ttl_expired and passed on for an ICMP time exceeded")        \
    X(unreachable, packets, counter,                                                       \
      "dropped by a worker as no_route and passed on for an ICMP destination unreachable") \
    X(parameter_problem, packets, counter,                                                 \
      "dropped by a worker as bad_option and passed on for an ICMP parameter problem")

enum class PuntReason : uint32_t { PMDFWD_PUNT_REASONS(PMDFWD_LIST_ENUM) count };
constexpr size_t kPuntReasonCount = size_t(PuntReason::count);
inline constexpr std::string_view kPuntReasonNames[] = {PMDFWD_PUNT_REASONS(PMDFWD_LIST_NAME)};
constexpr std::string_view to_string(PuntReason r) { return enum_name(kPuntReasonNames, r); }

// Whether a punt is a dropped packet's ICMP error (counted as its drop).
constexpr bool punt_is_icmp_error(PuntReason why) {
    return why == PuntReason::time_exceeded || why == PuntReason::unreachable ||
           why == PuntReason::parameter_problem;
}

// Why a route of the mirrored kernel table ([l3] kernel_routes) is not in
// the router's tables: each a counter of the group "kernel_routes_skipped".
#define PMDFWD_KERNEL_ROUTE_SKIPS(X)                                                               \
    X(not_unicast, routes, counter,                                                                \
      "blackhole, unreachable, prohibit, local, broadcast, multicast or other non-unicast routes") \
    X(multicast_prefix, routes, counter, "a route to a multicast or link-local prefix")            \
    X(no_port, routes, counter, "a route none of whose next hops is on a port's kernel interface") \
    X(unknown_next_hop, routes, counter, "a route through a next-hop object not (yet) known")      \
    X(malformed, routes, counter, "a message router mode cannot read")

enum class KernelRouteSkip : uint8_t { none, PMDFWD_KERNEL_ROUTE_SKIPS(PMDFWD_LIST_ENUM) count };
constexpr size_t kKernelRouteSkipCount = size_t(KernelRouteSkip::count);

// The control path's counters in record order; PUNT is given
// PMDFWD_PUNT_REASONS' entries, where the group stands.
#define PMDFWD_ROUTER_COUNTERS(X, PUNT)                                                            \
    X(punts, packets, counter, "packets the workers handed to the control path, all reasons")      \
    PMDFWD_PUNT_REASONS(PUNT)                                                                      \
    X(arp_requests_answered, packets, counter, "ARP requests for one of our addresses, answered")  \
    X(arp_ignored, packets, counter,                                                               \
      "ARP packets neither for our addresses nor answering our requests")                          \
    X(nd_solicitations_answered, packets, counter,                                                 \
      "neighbour solicitations for our addresses, answered")                                       \
    X(nd_ignored, packets, counter, "neighbour discovery packets not for us or malformed")         \
    X(echo_replies, packets, counter, "ICMP and ICMPv6 echo requests to our addresses, answered")  \
    X(local_dropped, packets, counter,                                                             \
      "packets to our addresses that are no echo request (UDP gets port unreachable)")             \
    X(icmp_errors_sent, packets, counter,                                                          \
      "ICMP time exceeded, unreachable and parameter problem messages sent")                       \
    X(icmp_errors_vetoed, packets, counter,                                                        \
      "ICMP errors not sent because RFC 1812 / RFC 4443 forbid one about that packet")             \
    X(icmp_errors_rate_limited, packets, counter,                                                  \
      "ICMP errors not sent for l3.icmp_rate_limit (a bucket per port and family)")                \
    X(icmp_errors_unsendable, packets, counter,                                                    \
      "ICMP errors not sent: the packet came in by a port that is not routed or has no "           \
      "address of its family to send from")                                                        \
    X(icmp_errors_no_buffer, packets, counter,                                                     \
      "ICMP errors not sent: the control path had no buffer")                                      \
    X(resolved_sent, packets, counter, "packets that waited for a neighbour and were then sent")   \
    X(resolved_oversize, packets, counter,                                                         \
      "packets that waited for a neighbour, dropped for being over the output port's mtu")         \
    X(kernel_delivered, packets, counter,                                                          \
      "packets handed to the ports' kernel interfaces: to the router's addresses and not "         \
      "answered by pmdfwd, to link-scope groups, and a copy of each ARP and ND frame")             \
    X(kernel_rate_limited, packets, counter,                                                       \
      "packets not handed to a kernel interface for l3.kernel_rate_limit")                         \
    X(kernel_refused, packets, counter,                                                            \
      "packets a kernel interface did not take (its backlog full)")                                \
    X(kernel_sent, packets, counter,                                                               \
      "frames the kernel sent out of a kernel interface, sent by "                                 \
      "its port")                                                                                  \
    X(kernel_oversize, packets, counter,                                                           \
      "frames the kernel sent out of a kernel interface, dropped for being over its port's mtu")   \
    X(kernel_routes_added, routes, counter,                                                        \
      "routes of the kernel table (l3.kernel_routes) put in the router's tables or changed there") \
    X(kernel_routes_removed, routes, counter,                                                      \
      "routes of the kernel table taken out of the router's tables")                               \
    X(kernel_routes_refused, routes, counter,                                                      \
      "routes of the kernel table the router's tables could not take (full: l3.max_routes)")       \
    X(kernel_routes_overruns, events, counter,                                                     \
      "times the kernel dropped route changes because the socket's buffer was full "               \
      "(l3.kernel_routes.receive_buffer_kb)")                                                      \
    X(kernel_routes_rereads, events, counter,                                                      \
      "full reads of the kernel table: the one at start and one after each overrun")               \
    X(kernel_routes_sync_ns, nanoseconds, gauge,                                                   \
      "how long the last batch of kernel route changes (or full read) took to reach the "          \
      "workers' tables")                                                                           \
    X(ecmp_groups_full, routes, counter,                                                           \
      "equal-cost routes given their first path only: l3.max_ecmp_groups groups were in use")      \
    X(ecmp_paths_dropped, routes, counter,                                                         \
      "paths left out of equal-cost routes: past the 64 a route may have, or not a gateway")       \
    X(control_tx_failed, packets, counter, "frames of the control path its TX queue did not take") \
    X(control_alloc_failed, packets, counter, "frames of the control path without a buffer")

// What the control path turned away, by reason: each reason of a list of
// lib/packet (ARP, ND, echo, ICMP error vetoes) is a counter of its group
// in the router record; none is not a reason.
template <class Reason, size_t N>
struct ReasonCounts {
    std::array<uint64_t, N - 1> by_reason{};
    void count(Reason r) {
        if (r != Reason::none && size_t(r) < N) ++by_reason[size_t(r) - 1];
    }
};

struct RouterCounters {
#define PMDFWD_ROUTER_PUNT_FIELD(name, unit, kind, help) uint64_t punts_##name = 0;
    PMDFWD_ROUTER_COUNTERS(PMDFWD_LIST_U64, PMDFWD_ROUTER_PUNT_FIELD)
#undef PMDFWD_ROUTER_PUNT_FIELD
    ReasonCounts<ArpReject, kArpRejectCount> arp_rejected;
    ReasonCounts<NdReject, kNdRejectCount> nd_rejected;
    ReasonCounts<EchoReject, kEchoRejectCount> echo_rejected;
    ReasonCounts<IcmpErrorVeto, kIcmpErrorVetoCount> icmp_errors_vetoed_by;
    ReasonCounts<KernelRouteSkip, kKernelRouteSkipCount> kernel_routes_skipped;

    // The counter of a reason; nullptr for a value that is none.
    uint64_t* punts_for(PuntReason why) {
        switch (why) {
#define PMDFWD_ROUTER_PUNT_CASE(name, unit, kind, help) \
    case PuntReason::name:                              \
        return &punts_##name;
            PMDFWD_PUNT_REASONS(PMDFWD_ROUTER_PUNT_CASE)
#undef PMDFWD_ROUTER_PUNT_CASE
            case PuntReason::count:
                break;
        }
        return nullptr;
    }
};

}  // namespace pmdfwd
