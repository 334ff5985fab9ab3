// The full IPv4 header checksum and the ICMP sums (see ip_checksum.hpp). Pure.
#include "ip_checksum.hpp"

namespace pmdfwd {

uint16_t ipv4_header_checksum(const uint8_t* header, size_t len) {
    uint32_t sum = 0;  // 30 words of at most 0xffff: no overflow before the fold
    for (size_t i = 0; i + 1 < len; i += 2) sum += uint32_t(header[i] << 8 | header[i + 1]);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(~sum);
}

void ipv4_store_checksum(uint8_t* header, size_t len) {
    header[10] = 0;
    header[11] = 0;
    const uint16_t checksum = ipv4_header_checksum(header, len);
    header[10] = uint8_t(checksum >> 8);
    header[11] = uint8_t(checksum);
}

uint32_t checksum_add(uint32_t sum, std::span<const uint8_t> bytes) {
    // 64 bits: an ICMP message of any length sums without a fold in the loop.
    uint64_t wide = sum;
    const size_t even = bytes.size() & ~size_t(1);
    for (size_t i = 0; i < even; i += 2) wide += uint32_t(bytes[i] << 8 | bytes[i + 1]);
    if (even != bytes.size()) wide += uint32_t(bytes[even] << 8);
    while (wide >> 16) wide = (wide & 0xffff) + (wide >> 16);
    return uint32_t(wide);
}

uint16_t checksum_finish(uint32_t sum) {
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(~sum);
}

uint16_t icmp_checksum(std::span<const uint8_t> message) {
    return checksum_finish(checksum_add(0, message));
}

uint16_t icmpv6_checksum(std::span<const uint8_t, 16> src, std::span<const uint8_t, 16> dst,
                         std::span<const uint8_t> message) {
    constexpr uint8_t kNextHeaderIcmpv6 = 58;
    // The 32-bit length and the three zero bytes before the next header.
    const auto len = uint32_t(message.size());
    const uint8_t tail[8] = {
        uint8_t(len >> 24), uint8_t(len >> 16), uint8_t(len >> 8), uint8_t(len), 0, 0, 0,
        kNextHeaderIcmpv6};
    uint32_t sum = checksum_add(0, src);
    sum = checksum_add(sum, dst);
    sum = checksum_add(sum, tail);
    return checksum_finish(checksum_add(sum, message));
}

}  // namespace pmdfwd
