// The Ethernet header (with at most one 802.1Q tag) that the control path's
// packet builders put in front of ARP, neighbour discovery and ICMP. Pure
// bytes, no DPDK, no allocation; run on the main lcore.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "mac_addr.hpp"

namespace pmdfwd {

constexpr size_t kEtherHeaderLen = 14;
constexpr size_t kVlanTagLen = 4;
// Without the FCS. Builders pad shorter frames to it: a PMD that does not
// pad would send a runt, which the switch drops.
constexpr size_t kMinFrameLen = 60;

// The port a built frame leaves by: its MAC is the frame's source, and its
// frames carry the tag if it has one.
struct EtherPort {
    MacAddr mac;
    std::optional<uint16_t> vlan_tci;  // PCP, DEI and VID of the 802.1Q tag; none: untagged
};

inline size_t ether_header_len(const EtherPort& port) {
    return kEtherHeaderLen + (port.vlan_tci ? kVlanTagLen : 0);
}

// Writes dst, the port's MAC, the tag if any and the ethertype; returns the
// header's length (ether_header_len). out has room for it.
size_t write_ether_header(uint8_t* out, const MacAddr& dst, const EtherPort& port,
                          uint16_t ethertype);

// The I/G bit: broadcast and multicast destinations have it.
inline bool is_group_mac(const MacAddr& mac) { return (mac.bytes[0] & 1) != 0; }

}  // namespace pmdfwd
