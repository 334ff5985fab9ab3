// IPv6 neighbour discovery (RFC 4861) for router mode's control path:
// reading Neighbor Solicitations and Advertisements as section 7.1 checks
// them, building the solicitations and answers a router sends. Pure bytes:
// no DPDK, no allocation, no throw; run on the main lcore only.
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

// Why an NS or NA is not read, X(name, unit, kind, help): each a counter of
// the router's (nd_rejected_<reason>); none when it is read. RFC 4861 7.1 says to drop every one of
// them silently.
#define PMDFWD_ND_REJECTS(X)                                                                      \
    X(truncated, packets, counter, "shorter than an IPv6 header or than its payload length says") \
    X(not_ipv6, packets, counter, "the IP version is not 6")                                      \
    X(not_nd, packets, counter, "not ICMPv6 type 135 or 136 right behind the IPv6 header")        \
    X(bad_hop_limit, packets, counter, "hop limit not 255: it did not come from the link itself") \
    X(bad_code, packets, counter, "ICMPv6 code not 0")                                            \
    X(bad_length, packets, counter, "an ICMPv6 message shorter than the 24 bytes of an NS or NA") \
    X(bad_checksum, packets, counter, "the ICMPv6 checksum is wrong")                             \
    X(multicast_target, packets, counter, "the target address is a multicast address")            \
    X(bad_option, packets, counter,                                                               \
      "an option of length 0, one running past the message, or a link-layer address option "      \
      "not 8 bytes long (Ethernet's)")                                                            \
    X(bad_dad_solicitation, packets, counter,                                                     \
      "an NS from the unspecified address not to a solicited-node group, or with a source "       \
      "link-layer address option")                                                                \
    X(solicited_to_multicast, packets, counter,                                                   \
      "an NA to a multicast address with the solicited flag set")

enum class NdReject : uint8_t { none, PMDFWD_ND_REJECTS(PMDFWD_LIST_ENUM) count };

constexpr size_t kNdRejectCount = size_t(NdReject::count);

inline constexpr std::string_view kNdRejectNames[] = {"none", PMDFWD_ND_REJECTS(PMDFWD_LIST_NAME)};
constexpr std::string_view nd_reject_name(NdReject reject) {
    return enum_name(kNdRejectNames, reject);
}

enum class NdType : uint8_t { solicitation = 135, advertisement = 136 };

struct NdMessage {
    NdType type = NdType::solicitation;
    IpAddress src, dst;  // of the IPv6 header; family v6
    IpAddress target;
    // An NS's source link-layer address option (type 1), an NA's target
    // link-layer address option (type 2); the first if there are several.
    std::optional<MacAddr> link_layer;
    // An NA's flags; false in an NS.
    bool router_flag = false, solicited_flag = false, override_flag = false;
};

struct NdParse {
    NdReject reject = NdReject::none;
    NdMessage message;  // set when reject is none
};

// ipv6: from the IPv6 header (the frame from parse_l3_header's l3_offset) to
// the end of the frame; bytes after the payload length are Ethernet padding.
// ND behind extension headers is not looked for (parse_l3_header does not
// call it control either). Unknown options are skipped, as 7.1 says.
NdParse parse_nd(std::span<const uint8_t> ipv6);

// ff02::1:ffXX:XXXX, the group whose members share address's last 24 bits
// (RFC 4291 2.7.1). address is IPv6.
IpAddress solicited_node_multicast(const IpAddress& address);

// 33:33 and the group's last 32 bits (RFC 2464 7). group is IPv6.
MacAddr ipv6_multicast_mac(const IpAddress& group);

// The length of the frames below: the header, the tag if any, 40 bytes of
// IPv6, 24 of NS or NA and the 8-byte link-layer address option.
size_t nd_frame_len(const EtherPort& port);

// An NS for target from src_ip (one of port's addresses), hop limit 255.
// Without unicast_mac it resolves: to target's solicited-node group and its
// 33:33:ff MAC. With it, it probes reachability (RFC 4861 7.3.1): to target
// itself at that MAC. From the unspecified address (a duplicate address
// probe) it carries no source link-layer address option, as 7.2.2 says; the
// frame is then 8 bytes shorter. Returns the frame's length, or 0 (nothing
// written) when out is too short or an address is not IPv6.
size_t build_neighbor_solicitation(std::span<uint8_t> out, const EtherPort& port,
                                   const IpAddress& src_ip, const IpAddress& target,
                                   std::optional<MacAddr> unicast_mac = std::nullopt);

// The solicited NA that answers ns (7.2.4): from ns.target, which the caller
// has found to be one of port's addresses, with router, solicited and
// override flags and port's MAC as target link-layer address, to ns's source
// at its source link-layer address, or at ns_frame_src (the NS frame's
// Ethernet source) when it carried none. An NS from the unspecified address
// is answered to all-nodes ff02::1 with the solicited flag clear. Returns
// the frame's length, or 0 (nothing written) when out is shorter than
// nd_frame_len or ns is not a solicitation.
size_t build_neighbor_advertisement(std::span<uint8_t> out, const EtherPort& port,
                                    const NdMessage& ns, const MacAddr& ns_frame_src);

}  // namespace pmdfwd
