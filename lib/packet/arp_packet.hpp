// Ethernet/IPv4 ARP (RFC 826) for router mode's control path: reading a
// request or reply, building the requests and replies a router sends. Pure
// bytes: no DPDK, no allocation, no throw; run on the main lcore only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "enum_names.hpp"
#include "ether_frame.hpp"
#include "mac_addr.hpp"
#include "udp_frame.hpp"  // Ipv4Addr

namespace pmdfwd {

// Why an ARP packet is not read, X(name, unit, kind, help): each a counter
// of the router's (arp_rejected_<reason>); none when it is read.
#define PMDFWD_ARP_REJECTS(X)                                                                  \
    X(truncated, packets, counter, "shorter than the 28 bytes of an Ethernet/IPv4 ARP packet") \
    X(not_ethernet, packets, counter,                                                          \
      "hardware type not 1 (Ethernet) or hardware address length not 6")                       \
    X(not_ipv4, packets, counter,                                                              \
      "protocol type not 0x0800 (IPv4) or protocol address length not 4")                      \
    X(bad_op, packets, counter,                                                                \
      "an operation other than 1 (request) and 2 (reply), RARP's and InARP's too")

enum class ArpReject : uint8_t { none, PMDFWD_ARP_REJECTS(PMDFWD_LIST_ENUM) count };

constexpr size_t kArpRejectCount = size_t(ArpReject::count);

inline constexpr std::string_view kArpRejectNames[] = {"none",
                                                       PMDFWD_ARP_REJECTS(PMDFWD_LIST_NAME)};
constexpr std::string_view arp_reject_name(ArpReject reject) {
    return enum_name(kArpRejectNames, reject);
}

constexpr size_t kArpLen = 28;  // the Ethernet/IPv4 packet, after the Ethernet header

enum class ArpOp : uint16_t { request = 1, reply = 2 };

struct ArpPacket {
    ArpOp op = ArpOp::request;
    MacAddr sender_mac;
    Ipv4Addr sender_ip;
    MacAddr target_mac;  // zero in a request, as a rule only: it is not looked at
    Ipv4Addr target_ip;
};

struct ArpParse {
    ArpReject reject = ArpReject::none;
    ArpPacket packet;  // set when reject is none
};

// arp: from the ARP header (the frame from parse_l3_header's l3_offset) to
// the end of the frame; bytes after the 28 are Ethernet padding. Whether the
// target is one of ours, and whether the sender may be learnt, is the
// caller's to say.
ArpParse parse_arp(std::span<const uint8_t> arp);

// The length of the frames below: the header, the tag if any, 28 bytes of
// ARP, and padding to kMinFrameLen.
size_t arp_frame_len(const EtherPort& port);

// Who-has target_ip, tell our_ip: broadcast, target MAC zero. With target_ip
// equal to our_ip it is a gratuitous ARP. Returns the frame's length, or 0
// (nothing written) when out is shorter than arp_frame_len.
size_t build_arp_request(std::span<uint8_t> out, const EtherPort& port, Ipv4Addr our_ip,
                         Ipv4Addr target_ip);

// The answer to request (its op is not looked at): request.target_ip is at
// port's MAC, sent to the requester's sender MAC and address. Whether the
// target is ours is the caller's to check first. Returns the frame's length,
// or 0 (nothing written) when out is shorter than arp_frame_len.
size_t build_arp_reply(std::span<uint8_t> out, const EtherPort& port, const ArpPacket& request);

}  // namespace pmdfwd
