// ICMP and ICMPv6 a router sends from its control path: echo replies made in
// place of the request, and time exceeded and destination unreachable about
// a packet it could not deliver, with the RFC 1812 / RFC 4443 rules on when
// not to. Pure bytes: no DPDK, no allocation, no throw; main lcore only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "enum_names.hpp"
#include "ether_frame.hpp"
#include "ip_prefix.hpp"
#include "mac_addr.hpp"

namespace pmdfwd {

// Why an echo request is not answered, X(name, unit, kind, help): each a
// counter of the router's (echo_rejected_<reason>); none when it was.
#define PMDFWD_ECHO_REJECTS(X)                                                                     \
    X(bad_ip_header, packets, counter,                                                             \
      "an Ethernet or IP header a router does not accept (see parse_l3_header)")                   \
    X(not_echo_request, packets, counter,                                                          \
      "not an ICMP echo request (type 8) or ICMPv6 echo request (128) right behind the IP header") \
    X(fragment, packets, counter,                                                                  \
      "an IPv4 fragment: a router does not reassemble, so it cannot check or answer it")           \
    X(truncated, packets, counter, "an ICMP message shorter than its 8-byte header")               \
    X(bad_checksum, packets, counter, "the ICMP or ICMPv6 checksum is wrong")                      \
    X(source_not_unicast, packets, counter,                                                        \
      "from an address that names no single host: no one to answer")                               \
    X(destination_not_unicast, packets, counter,                                                   \
      "to a multicast or broadcast address: the reply's source would not be one of ours")

enum class EchoReject : uint8_t { none, PMDFWD_ECHO_REJECTS(PMDFWD_LIST_ENUM) count };

constexpr size_t kEchoRejectCount = size_t(EchoReject::count);

inline constexpr std::string_view kEchoRejectNames[] = {"none",
                                                        PMDFWD_ECHO_REJECTS(PMDFWD_LIST_NAME)};
constexpr std::string_view echo_reject_name(EchoReject reject) {
    return enum_name(kEchoRejectNames, reject);
}

// The reply's Ethernet addresses when it does not go straight back to the
// hop the request came from (the route lookup chose another).
struct EchoReplyMacs {
    MacAddr dst, src;
};

struct EchoReply {
    EchoReject reject = EchoReject::none;
    size_t frame_len = 0;  // of the reply; 0 unless reject is none
};

// frame: a whole received frame (Ethernet, at most one tag, then IPv4 or
// IPv6) holding an echo request to one of our addresses; that the address is
// ours is the caller's to check first. On none the frame is the reply: MACs
// swapped (or macs), addresses swapped, TTL or hop limit 64, type 0 or 129,
// both checksums recomputed. IPv4 options are dropped (the message moves up
// over them) rather than echoed: a source route must not be sent back
// unreversed. frame_len is the reply's length, padded with zeros to
// kMinFrameLen where the frame had that room. On any reject the frame is
// untouched.
EchoReply make_echo_reply_in_place(std::span<uint8_t> frame,
                                   std::optional<EchoReplyMacs> macs = std::nullopt);

// The errors a router sends: name, IPv4 type and code, ICMPv6 type and code,
// and what it says.
#define PMDFWD_ICMP_ERRORS(X)                                                                \
    X(time_exceeded, 11, 0, 3, 0, "the TTL or hop limit ran out in transit")                 \
    X(net_unreachable, 3, 0, 1, 0, "no route to the destination")                            \
    X(host_unreachable, 3, 1, 1, 3,                                                          \
      "the destination's neighbour did not answer (ICMPv6: address unreachable)")            \
    X(port_unreachable, 3, 3, 1, 4, "to one of our addresses, on a port nothing listens on") \
    X(parameter_problem, 12, 0, 4, 0, "a malformed header field (the pointer says where)")

enum class IcmpError : uint8_t {
#define PMDFWD_ICMP_ENUM(name, type4, code4, type6, code6, help) name,
    PMDFWD_ICMP_ERRORS(PMDFWD_ICMP_ENUM)
#undef PMDFWD_ICMP_ENUM
        count
};

// Why no ICMP error may be sent about a packet (RFC 1812 4.3.2.7, RFC 4443
// 2.4(e)), the first that applies, X(name, unit, kind, help): each a counter
// of the router's (icmp_errors_vetoed_<reason>); none when one may.
#define PMDFWD_ICMP_ERROR_VETOES(X)                                                                \
    X(bad_header, packets, counter,                                                                \
      "not a whole IPv4 or IPv6 header, or its ICMP type or fragment header cut off")              \
    X(non_first_fragment, packets, counter,                                                        \
      "a fragment other than the first: its upper-layer header is not in it")                      \
    X(about_icmp_error, packets, counter,                                                          \
      "an ICMP or ICMPv6 error itself (or an ICMPv6 redirect)")                                    \
    X(link_layer_group, packets, counter, "it came to an Ethernet broadcast or multicast address") \
    X(multicast_destination, packets, counter, "to an IP multicast address")                       \
    X(broadcast_destination, packets, counter,                                                     \
      "to 255.255.255.255 or, as the caller says, a subnet's broadcast")                           \
    X(source_not_unicast, packets, counter,                                                        \
      "from an address that names no single host (0/8, 127/8, 224/3; ::, ::1, ff00::/8)")

enum class IcmpErrorVeto : uint8_t { none, PMDFWD_ICMP_ERROR_VETOES(PMDFWD_LIST_ENUM) count };

constexpr size_t kIcmpErrorVetoCount = size_t(IcmpErrorVeto::count);

inline constexpr std::string_view kIcmpErrorVetoNames[] = {
    "none", PMDFWD_ICMP_ERROR_VETOES(PMDFWD_LIST_NAME)};
constexpr std::string_view icmp_error_veto_name(IcmpErrorVeto veto) {
    return enum_name(kIcmpErrorVetoNames, veto);
}

// The longest error datagrams: RFC 1812 4.3.2.3 (576) and RFC 4443 2.4(c)
// (the IPv6 minimum MTU, 1280). A buffer of kIcmpErrorMaxFrameLen always
// holds the frame.
constexpr size_t kIcmpv4ErrorMaxLen = 576;
constexpr size_t kIcmpv6ErrorMaxLen = 1280;
constexpr size_t kIcmpErrorMaxFrameLen = kEtherHeaderLen + kVlanTagLen + kIcmpv6ErrorMaxLen;

// invoking_frame: the whole frame as it was received. to_subnet_broadcast:
// the route lookup found its IPv4 destination to be the broadcast address of
// one of our subnets, which the bytes alone cannot show.
IcmpErrorVeto may_send_icmp_error(std::span<const uint8_t> invoking_frame,
                                  bool to_subnet_broadcast = false);

// The error about invoking_frame's packet, in its family, into out (which
// must not overlap it): from router_ip (one of ours, same family), to the
// invoking packet's source, by port to next_hop_mac. It quotes as much of the
// invoking packet (without Ethernet padding) as keeps the datagram within
// kIcmpv4ErrorMaxLen or kIcmpv6ErrorMaxLen. Returns the frame's length, or 0
// (nothing written) when out is too short, router_ip's family is not the
// packet's, or may_send_icmp_error vetoes it: the caller asks that first, to
// count why and to say whether it was to a subnet broadcast. pointer:
// parameter_problem's, the offending octet's offset from the start of the
// invoking IP header (ipv4_option_problem); 0 for the other errors.
size_t build_icmp_error(std::span<uint8_t> out, IcmpError error,
                        std::span<const uint8_t> invoking_frame, const IpAddress& router_ip,
                        const EtherPort& port, const MacAddr& next_hop_mac, uint32_t pointer = 0);

}  // namespace pmdfwd
