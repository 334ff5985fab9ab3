// A frame's headers in one line, as `pmdctl trace show` prints them beside
// a packet's path: Ethernet, 802.1Q/802.1ad tags, ARP, IPv4 (options and
// fragments said), IPv6 (extension headers walked), UDP, TCP and ICMP/ICMPv6.
// What is cut short or malformed is said where it stops, never read past:
// the frames it is given are the ones pmdfwd dropped as malformed.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace pmdfwd {

// e.g. "02:00:00:00:00:01 > 02:00:00:00:00:02, vlan 10, IPv4 10.0.0.1 >
// 10.0.1.2 ttl 64 len 46, UDP 40000 > 9 len 26"
std::string header_text(std::span<const uint8_t> frame);

}  // namespace pmdfwd
