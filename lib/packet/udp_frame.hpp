// An Ethernet/IPv4/UDP header built once and stamped onto each log datagram:
// a send copies the 42 template bytes, then fixes two lengths and the IPv4
// checksum (updated from the template's, not recomputed). UDP checksum 0, as
// IPv4 allows. Pure bytes: no DPDK, no allocation; safe in a signal handler.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ip_checksum.hpp"
#include "mac_addr.hpp"

namespace pmdfwd {

struct Ipv4Addr {
    uint32_t host_order = 0;
    static std::optional<Ipv4Addr> parse(std::string_view text);  // dotted quad
    std::string to_string() const;
    bool operator==(const Ipv4Addr&) const = default;
};

struct UdpEndpoints {
    MacAddr src_mac, dst_mac;
    Ipv4Addr src_ip, dst_ip;
    uint16_t src_port = 0, dst_port = 0;
};

constexpr uint16_t kUdpFrameHeaderLen = 14 + 20 + 8;

class UdpFrameTemplate {
  public:
    explicit UdpFrameTemplate(const UdpEndpoints& ep);

    const std::array<uint8_t, kUdpFrameHeaderLen>& bytes() const { return bytes_; }

    // frame already holds the template bytes and the payload after them; sets
    // the IPv4 total length, id and checksum and the UDP length.
    void finish(uint8_t* frame, uint16_t payload_len, uint16_t ip_id) const;

  private:
    std::array<uint8_t, kUdpFrameHeaderLen> bytes_{};
    uint32_t partial_sum_ = 0;  // one's-complement sum of the header with length and id 0
};

}  // namespace pmdfwd
