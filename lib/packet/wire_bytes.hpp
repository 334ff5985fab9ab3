// Big-endian loads and stores on packet bytes, for the control path's packet
// codecs (ARP, neighbour discovery, ICMP). Header-only and pure; the caller
// has checked that the bytes are there.
#pragma once

#include <cstdint>

namespace pmdfwd {

inline uint16_t load_be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }

inline uint32_t load_be32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

inline void store_be16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v >> 8);
    p[1] = uint8_t(v);
}

inline void store_be32(uint8_t* p, uint32_t v) {
    store_be16(p, uint16_t(v >> 16));
    store_be16(p + 2, uint16_t(v));
}

}  // namespace pmdfwd
