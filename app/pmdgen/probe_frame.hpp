// The frames pmdgen sends: Ethernet/IPv4/UDP with a probe payload (a magic
// number, a sequence number and the TSC when it left). Flow f differs from
// flow 0 only in its UDP source port, so a device's RSS spreads them. Every
// flow's 42 header bytes are built once; a send copies them and writes 18
// payload bytes. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "udp_frame.hpp"

namespace pmdfwd {

constexpr uint16_t kProbeMagic = 0x7064;  // "pd"
constexpr uint16_t kProbePayloadLen = 2 + 8 + 8;
constexpr uint16_t kFcsLen = 4;
// The smallest Ethernet frame (FCS included) holds header and probe exactly.
constexpr uint16_t kMinProbeFrame = 64;
constexpr uint16_t kMaxProbeFrame = 9018;

struct ProbeFields {
    uint64_t seq = 0;
    uint64_t tsc = 0;
    uint16_t src_port = 0;  // which flow
};

class ProbeFrames {
  public:
    // frame_size counts the FCS, as frame sizes in rate tables do: 64 puts
    // 60 bytes in an mbuf.
    ProbeFrames(const UdpEndpoints& base, uint32_t flows, uint16_t frame_size);

    uint16_t data_len() const { return data_len_; }
    uint32_t flows() const { return uint32_t(headers_.size()); }
    // Writes data_len() bytes' worth of header and probe (padding beyond the
    // probe is left as it is: the IPv4 length covers it).
    void write(uint8_t* frame, uint32_t flow, uint64_t seq, uint64_t tsc) const;

  private:
    std::vector<std::array<uint8_t, kUdpFrameHeaderLen>> headers_;
    uint16_t data_len_ = 0;
};

// The probe in a received frame, or nullopt for anything else (short, not
// IPv4/UDP, no magic).
std::optional<ProbeFields> parse_probe(const uint8_t* frame, uint32_t len);

}  // namespace pmdfwd
