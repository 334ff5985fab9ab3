// The full IPv4 header checksum (see ip_checksum.hpp). Pure.
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

}  // namespace pmdfwd
