// The 12 bytes l2 mode writes at the start of every frame: next-hop MAC as
// destination, output port MAC as source (the DPDK l2fwd rewrite). Pure bytes.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "ether_frame.hpp"  // kEtherHeaderLen, kVlanTagLen
#include "mac_addr.hpp"

namespace pmdfwd {

// The longest frame a port of this mtu sends: an mtu-sized payload behind an
// Ethernet header and one 802.1Q tag (no FCS: mbufs do not carry it).
constexpr uint32_t max_frame_bytes(uint16_t mtu) {
    return uint32_t(mtu + kEtherHeaderLen + kVlanTagLen);
}

// The longest frame router mode sends on a port of this mtu: routed frames
// leave untagged, so an mtu-sized IP packet behind an Ethernet header.
constexpr uint32_t max_routed_frame_bytes(uint16_t mtu) { return uint32_t(mtu + kEtherHeaderLen); }

struct L2Header {
    std::array<uint8_t, 12> dst_src{};

    static L2Header make(const MacAddr& dst, const MacAddr& src) {
        L2Header h;
        std::memcpy(h.dst_src.data(), dst.bytes.data(), 6);
        std::memcpy(h.dst_src.data() + 6, src.bytes.data(), 6);
        return h;
    }
    // frame must hold at least kEtherHeaderLen bytes.
    void apply(uint8_t* frame) const { std::memcpy(frame, dst_src.data(), dst_src.size()); }
};

}  // namespace pmdfwd
