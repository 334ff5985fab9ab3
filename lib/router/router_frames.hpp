// What the control path's files share about the frames it handles: the
// clock it stamps them with, their bytes, and addresses as the neighbour
// table and the RIB key them. Control path thread only; never a worker.
#pragma once

#include <rte_mbuf.h>

#include <chrono>
#include <cstdint>
#include <span>

#include "arp_packet.hpp"
#include "ip_prefix.hpp"

namespace pmdfwd {

// The neighbour table's and the ICMP buckets' one monotonic clock.
inline uint64_t now_ms() {
    return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

inline std::span<uint8_t> frame_of(rte_mbuf* m) {
    return {rte_pktmbuf_mtod(m, uint8_t*), rte_pktmbuf_data_len(m)};
}

inline IpAddress v4_address(Ipv4Addr a) {
    IpAddress ip;
    ip.family = IpFamily::v4;
    ip.bytes[0] = uint8_t(a.host_order >> 24);
    ip.bytes[1] = uint8_t(a.host_order >> 16);
    ip.bytes[2] = uint8_t(a.host_order >> 8);
    ip.bytes[3] = uint8_t(a.host_order);
    return ip;
}

inline Ipv4Addr v4_of(const IpAddress& a) { return Ipv4Addr{a.v4_host_order()}; }

inline IpPrefix host_prefix(const IpAddress& a) { return IpPrefix{a, uint8_t(a.bits())}; }

}  // namespace pmdfwd
