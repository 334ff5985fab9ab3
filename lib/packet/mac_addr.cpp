// Parses and prints "aa:bb:cc:dd:ee:ff" (also accepts '-' separators, any case).
#include "mac_addr.hpp"

#include <cstdio>

namespace pmdfwd {

namespace {
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

std::optional<MacAddr> MacAddr::parse(std::string_view text) {
    if (text.size() != 17) return std::nullopt;
    MacAddr mac;
    const char sep = text[2];
    if (sep != ':' && sep != '-') return std::nullopt;
    for (size_t i = 0; i < 6; ++i) {
        const size_t at = i * 3;
        if (i < 5 && text[at + 2] != sep) return std::nullopt;
        const int hi = hex_value(text[at]);
        const int lo = hex_value(text[at + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        mac.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    return mac;
}

std::string MacAddr::to_string() const {
    char buf[18];
    std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", bytes[0], bytes[1], bytes[2],
                  bytes[3], bytes[4], bytes[5]);
    return buf;
}

}  // namespace pmdfwd
