// UDP datagram template (see udp_frame.hpp). Pure.
#include "udp_frame.hpp"

#include <cstring>

namespace pmdfwd {

namespace {

constexpr size_t kIp = 14, kUdp = 34;

void put16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v >> 8);
    p[1] = uint8_t(v);
}

void put32(uint8_t* p, uint32_t v) {
    put16(p, uint16_t(v >> 16));
    put16(p + 2, uint16_t(v));
}

uint32_t sum16(const uint8_t* p, size_t len) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2) sum += uint32_t(p[i] << 8 | p[i + 1]);
    return sum;
}

uint16_t fold(uint32_t sum) {
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(~sum);
}

}  // namespace

std::optional<Ipv4Addr> Ipv4Addr::parse(std::string_view text) {
    uint32_t addr = 0;
    size_t pos = 0;
    for (int part = 0; part < 4; ++part) {
        if (part > 0) {
            if (pos >= text.size() || text[pos] != '.') return std::nullopt;
            ++pos;
        }
        const size_t start = pos;
        uint32_t v = 0;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - start < 3)
            v = v * 10 + uint32_t(text[pos++] - '0');
        if (pos == start || v > 255 || (pos - start > 1 && text[start] == '0')) return std::nullopt;
        addr = addr << 8 | v;
    }
    if (pos != text.size()) return std::nullopt;
    return Ipv4Addr{addr};
}

std::string Ipv4Addr::to_string() const {
    return std::to_string(host_order >> 24) + "." + std::to_string(host_order >> 16 & 255) + "." +
           std::to_string(host_order >> 8 & 255) + "." + std::to_string(host_order & 255);
}

UdpFrameTemplate::UdpFrameTemplate(const UdpEndpoints& ep) {
    uint8_t* b = bytes_.data();
    std::memcpy(b, ep.dst_mac.bytes.data(), 6);
    std::memcpy(b + 6, ep.src_mac.bytes.data(), 6);
    put16(b + 12, 0x0800);
    b[kIp] = 0x45;      // IPv4, 20-byte header
    b[kIp + 6] = 0x40;  // don't fragment
    b[kIp + 8] = 64;    // TTL
    b[kIp + 9] = 17;    // UDP
    put32(b + kIp + 12, ep.src_ip.host_order);
    put32(b + kIp + 16, ep.dst_ip.host_order);
    put16(b + kUdp, ep.src_port);
    put16(b + kUdp + 2, ep.dst_port);
    partial_sum_ = sum16(b + kIp, 20);  // length, id and checksum are 0 here
}

void UdpFrameTemplate::finish(uint8_t* frame, uint16_t payload_len, uint16_t ip_id) const {
    const auto ip_len = uint16_t(20 + 8 + payload_len);
    put16(frame + kIp + 2, ip_len);
    put16(frame + kIp + 4, ip_id);
    put16(frame + kIp + 10, fold(partial_sum_ + ip_len + ip_id));
    put16(frame + kUdp + 4, uint16_t(8 + payload_len));
}

}  // namespace pmdfwd
