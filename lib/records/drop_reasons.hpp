// Every reason a worker drops a packet, declared once: X(name, unit, kind,
// help). The worker counts each; stats, telemetry, the CLI and docs/cli.md
// all read this list (VPP error tables, OVS coverage).
#pragma once

#include <cstddef>
#include <string_view>

#include "counter_list.hpp"

namespace pmdfwd {

#define PMDFWD_DROP_REASONS(X)                                                                    \
    X(tx_full, packets, counter, "the TX ring stayed full after tx_retries extra tx_burst calls") \
    X(handoff_full, packets, counter,                                                             \
      "the handoff ring to the owner of the output TX queue was full")                            \
    X(no_route, packets, counter,                                                                 \
      "patch and l2: the rx port is the source of no forwarding pair; l3: no route to the "       \
      "destination")                                                                              \
    X(runt, packets, counter, "l2 mode: the first segment is shorter than an Ethernet header")    \
    X(oversize, packets, counter,                                                                 \
      "longer than the output port's mtu allows (mtu + Ethernet header + one VLAN tag; l3: an "   \
      "IP packet over the mtu; not tested in patch mode with [forward] read_lengths = false)")    \
    X(link_down, packets, counter,                                                                \
      "the TX queue took no more while the output port's link was down or its interface gone")    \
    X(ttl_expired, packets, counter,                                                              \
      "l3: the TTL or hop limit would reach 0 (ICMP time exceeded goes back)")                    \
    X(bad_header, packets, counter,                                                               \
      "l3: an IPv4 or IPv6 header a router must not forward: cut short, wrong version, IHL or "   \
      "length, bad checksum")                                                                     \
    X(not_ip, packets, counter,                                                                   \
      "l3: neither IPv4, IPv6, ARP nor neighbour discovery (or a second VLAN tag)")               \
    X(punt_full, packets, counter,                                                                \
      "l3: the ring to the control path was full (ARP, ND), or half full for a packet to this "   \
      "router or waiting for its neighbour (the rest is kept for ARP and ND)")                    \
    X(not_our_mac, packets, counter,                                                              \
      "l3: to another host's Ethernet address, or to a broadcast or multicast one and not ARP "   \
      "or neighbour discovery (nor, on a port with a kernel interface, to a link-scope group; "   \
      "the port is promiscuous; such frames are not the router's)")                               \
    X(bad_source, packets, counter,                                                               \
      "l3: from an address no routed packet comes from: 0/8, 127/8, multicast, class E, "         \
      "255.255.255.255, a connected subnet's network or broadcast address, one of the "           \
      "router's own; IPv6 ::, ::1, IPv4-mapped, multicast, or link-local leaving its link")       \
    X(bad_destination, packets, counter,                                                          \
      "l3: to an address the router forwards nothing to and answers for no host: 0/8, 127/8, "    \
      "multicast, class E, 255.255.255.255, a connected subnet's network or broadcast address "   \
      "(no directed broadcast); IPv6 ::, ::1, multicast, or link-local off its link; never an "   \
      "ICMP error")                                                                               \
    X(bad_option, packets, counter,                                                               \
      "l3: an IPv4 option of length under 2 or running past the header (ICMP parameter "          \
      "problem goes back, RFC 1812 5.2.2)")

enum class DropReason : unsigned { PMDFWD_DROP_REASONS(PMDFWD_LIST_ENUM) count };

constexpr size_t kDropReasonCount = static_cast<size_t>(DropReason::count);

inline constexpr std::string_view kDropReasonNames[] = {PMDFWD_DROP_REASONS(PMDFWD_LIST_NAME)};
// The reason's name, as its drop_<reason> counter has it.
constexpr std::string_view to_string(DropReason r) { return enum_name(kDropReasonNames, r); }

// A reason's slot in the per-worker drop arrays.
constexpr size_t drop_index(DropReason r) { return static_cast<size_t>(r); }

}  // namespace pmdfwd
