// Probe frames (see probe_frame.hpp). Pure.
#include "probe_frame.hpp"

#include <cstring>

namespace pmdfwd {

namespace {
constexpr size_t kEtherType = 12, kIpProto = 14 + 9, kUdpSrcPort = 34, kPayload = 42;
}  // namespace

ProbeFrames::ProbeFrames(const UdpEndpoints& base, uint32_t flows, uint16_t frame_size)
    : data_len_(uint16_t(frame_size - kFcsLen)) {
    const auto payload_len = uint16_t(data_len_ - kUdpFrameHeaderLen);
    for (uint32_t f = 0; f < flows; ++f) {
        UdpEndpoints ep = base;
        ep.src_port = uint16_t(base.src_port + f);
        const UdpFrameTemplate t(ep);
        std::array<uint8_t, kUdpFrameHeaderLen> h = t.bytes();
        t.finish(h.data(), payload_len, 0);
        headers_.push_back(h);
    }
}

void ProbeFrames::write(uint8_t* frame, uint32_t flow, uint64_t seq, uint64_t tsc) const {
    std::memcpy(frame, headers_[flow].data(), kUdpFrameHeaderLen);
    uint8_t* p = frame + kPayload;
    const uint16_t magic = kProbeMagic;
    std::memcpy(p, &magic, 2);
    std::memcpy(p + 2, &seq, 8);
    std::memcpy(p + 10, &tsc, 8);
}

std::optional<ProbeFields> parse_probe(const uint8_t* frame, uint32_t len) {
    if (len < kPayload + kProbePayloadLen) return std::nullopt;
    if (frame[kEtherType] != 0x08 || frame[kEtherType + 1] != 0x00 || frame[kIpProto] != 17)
        return std::nullopt;
    uint16_t magic;
    std::memcpy(&magic, frame + kPayload, 2);
    if (magic != kProbeMagic) return std::nullopt;
    ProbeFields f;
    std::memcpy(&f.seq, frame + kPayload + 2, 8);
    std::memcpy(&f.tsc, frame + kPayload + 10, 8);
    f.src_port = uint16_t(frame[kUdpSrcPort] << 8 | frame[kUdpSrcPort + 1]);
    return f;
}

}  // namespace pmdfwd
