// lib/core's header layouts (wire_headers.hpp) against DPDK's structs, at
// compile time: lib/core builds without DPDK, so the check lives here. No
// code; a layout that drifts from DPDK's does not build.
#include <rte_ether.h>
#include <rte_ip.h>

#include <cstddef>

#include "wire_headers.hpp"

namespace pmdfwd {

#define PMDFWD_SAME_FIELD(ours, theirs, field) \
    static_assert(offsetof(ours, field) == offsetof(theirs, field), #ours "::" #field);

static_assert(sizeof(EtherHeaderLayout) == sizeof(rte_ether_hdr));
PMDFWD_SAME_FIELD(EtherHeaderLayout, rte_ether_hdr, dst_addr)
PMDFWD_SAME_FIELD(EtherHeaderLayout, rte_ether_hdr, src_addr)
PMDFWD_SAME_FIELD(EtherHeaderLayout, rte_ether_hdr, ether_type)

static_assert(sizeof(Ipv4HeaderLayout) == sizeof(rte_ipv4_hdr));
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, version_ihl)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, type_of_service)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, total_length)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, packet_id)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, fragment_offset)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, time_to_live)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, next_proto_id)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, hdr_checksum)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, src_addr)
PMDFWD_SAME_FIELD(Ipv4HeaderLayout, rte_ipv4_hdr, dst_addr)

static_assert(sizeof(Ipv6HeaderLayout) == sizeof(rte_ipv6_hdr));
PMDFWD_SAME_FIELD(Ipv6HeaderLayout, rte_ipv6_hdr, vtc_flow)
PMDFWD_SAME_FIELD(Ipv6HeaderLayout, rte_ipv6_hdr, payload_len)
PMDFWD_SAME_FIELD(Ipv6HeaderLayout, rte_ipv6_hdr, proto)
PMDFWD_SAME_FIELD(Ipv6HeaderLayout, rte_ipv6_hdr, hop_limits)
PMDFWD_SAME_FIELD(Ipv6HeaderLayout, rte_ipv6_hdr, src_addr)
PMDFWD_SAME_FIELD(Ipv6HeaderLayout, rte_ipv6_hdr, dst_addr)

#undef PMDFWD_SAME_FIELD

}  // namespace pmdfwd
