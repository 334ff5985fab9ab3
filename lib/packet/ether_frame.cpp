// The Ethernet header of built frames (see ether_frame.hpp). Pure.
#include "ether_frame.hpp"

#include <cstring>

#include "l3_header.hpp"
#include "wire_bytes.hpp"

namespace pmdfwd {

size_t write_ether_header(uint8_t* out, const MacAddr& dst, const EtherPort& port,
                          uint16_t ethertype) {
    std::memcpy(out, dst.bytes.data(), 6);
    std::memcpy(out + 6, port.mac.bytes.data(), 6);
    size_t at = 12;
    if (port.vlan_tci) {
        store_be16(out + at, kEtherTypeVlan);
        store_be16(out + at + 2, *port.vlan_tci);
        at += kVlanTagLen;
    }
    store_be16(out + at, ethertype);
    return at + 2;
}

}  // namespace pmdfwd
