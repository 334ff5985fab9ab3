// What router mode's control path counts, declared once: X(name, unit,
// help). The l3 record shows each; the metrics export them. Pure.
#pragma once

#include <cstdint>

namespace pmdfwd {

#define PMDFWD_ROUTER_COUNTERS(X)                                                                \
    X(punts, packets, "packets the workers handed to the control path, all reasons")             \
    X(punts_neighbour, packets, "punted as ARP or neighbour discovery")                          \
    X(punts_local, packets, "punted as addressed to one of the router's addresses")              \
    X(punts_no_neighbour, packets, "punted to wait for a neighbour without a MAC yet")           \
    X(punts_icmp_error, packets,                                                                 \
      "dropped by a worker (ttl_expired, no_route, bad_option) and passed on for an ICMP error") \
    X(arp_requests_answered, packets, "ARP requests for one of our addresses, answered")         \
    X(arp_ignored, packets, "ARP packets neither for our addresses nor answering our requests")  \
    X(nd_solicitations_answered, packets, "neighbour solicitations for our addresses, answered") \
    X(nd_ignored, packets, "neighbour discovery packets not for us or malformed")                \
    X(echo_replies, packets, "ICMP and ICMPv6 echo requests to our addresses, answered")         \
    X(local_dropped, packets,                                                                    \
      "packets to our addresses that are no echo request (UDP gets port unreachable)")           \
    X(icmp_errors_sent, packets,                                                                 \
      "ICMP time exceeded, unreachable and parameter problem messages sent")                     \
    X(icmp_errors_vetoed, packets,                                                               \
      "ICMP errors not sent because RFC 1812 / RFC 4443 forbid one about that packet")           \
    X(icmp_errors_rate_limited, packets,                                                         \
      "ICMP errors not sent for l3.icmp_rate_limit (a bucket per port and family)")              \
    X(icmp_errors_unsendable, packets,                                                           \
      "ICMP errors not sent: the packet came in by a port that is not routed or has no address " \
      "of its family to send from")                                                              \
    X(icmp_errors_no_buffer, packets, "ICMP errors not sent: the control path had no buffer")    \
    X(resolved_sent, packets, "packets that waited for a neighbour and were then sent")          \
    X(resolved_oversize, packets,                                                                \
      "packets that waited for a neighbour, dropped for being over the output port's mtu")       \
    X(control_tx_failed, packets, "frames of the control path its TX queue did not take")        \
    X(control_alloc_failed, packets, "frames of the control path without a buffer")

struct RouterCounters {
#define PMDFWD_ROUTER_COUNTER_FIELD(name, unit, help) uint64_t name = 0;
    PMDFWD_ROUTER_COUNTERS(PMDFWD_ROUTER_COUNTER_FIELD)
#undef PMDFWD_ROUTER_COUNTER_FIELD
};

}  // namespace pmdfwd
