// Parsing and matching of IP addresses and prefixes (see ip_prefix.hpp).
#include "ip_prefix.hpp"

#include <arpa/inet.h>

namespace pmdfwd {

namespace {

constexpr size_t kMaxQuoted = 64;  // of the text an error quotes

std::string quoted(std::string_view text) {
    return "'" + std::string(text.substr(0, kMaxQuoted)) + "'";
}

// The byte of a mask of `length` leading ones at byte index i.
uint8_t mask_byte(unsigned length, size_t i) {
    const size_t first_bit = i * 8;
    if (length >= first_bit + 8) return 0xff;
    if (length <= first_bit) return 0x00;
    return uint8_t(0xff << (8 - (length - first_bit)));
}

size_t byte_count(IpFamily family) { return family == IpFamily::v4 ? 4 : 16; }

}  // namespace

uint32_t IpAddress::v4_host_order() const {
    return uint32_t(bytes[0]) << 24 | uint32_t(bytes[1]) << 16 | uint32_t(bytes[2]) << 8 | bytes[3];
}

std::string IpAddress::to_string() const {
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(family == IpFamily::v4 ? AF_INET : AF_INET6, bytes.data(), text, sizeof text);
    return text;
}

bool IpPrefix::host_bits_set() const { return !(network() == *this); }

IpPrefix IpPrefix::network() const {
    IpPrefix n = *this;
    for (size_t i = 0; i < byte_count(address.family); ++i)
        n.address.bytes[i] = uint8_t(address.bytes[i] & mask_byte(length, i));
    return n;
}

std::string IpPrefix::to_string() const {
    return address.to_string() + "/" + std::to_string(length);
}

std::optional<IpAddress> parse_ip_address(std::string_view text, std::string* why) {
    IpAddress a;
    // inet_pton wants a terminated string; anything longer than the longest
    // address is wrong anyway.
    if (text.size() >= INET6_ADDRSTRLEN) {
        *why = quoted(text) + " is too long for an IP address";
        return std::nullopt;
    }
    const std::string z(text);
    if (text.find(':') != std::string_view::npos) {
        a.family = IpFamily::v6;
        if (inet_pton(AF_INET6, z.c_str(), a.bytes.data()) == 1) return a;
        *why = quoted(text) + " is not a numeric IPv6 address";
    } else {
        if (inet_pton(AF_INET, z.c_str(), a.bytes.data()) == 1) return a;
        *why = quoted(text) + " is not a numeric IPv4 address (a dotted quad such as 10.0.0.1)";
    }
    return std::nullopt;
}

std::optional<IpPrefix> parse_ip_prefix(std::string_view text, std::string* why) {
    const size_t slash = text.find('/');
    if (slash == std::string_view::npos) {
        *why = quoted(text) +
               " is not a prefix: expected \"address/length\", such as \"10.0.0.0/24\" or "
               "\"2001:db8::/32\"";
        return std::nullopt;
    }
    const auto address = parse_ip_address(text.substr(0, slash), why);
    if (!address) return std::nullopt;
    const std::string_view digits = text.substr(slash + 1);
    const unsigned max = address->bits();
    unsigned length = 0;
    // Digits only, no sign, space or leading zero, at most three of them.
    bool ok = !digits.empty() && digits.size() <= 3 && !(digits.size() > 1 && digits[0] == '0');
    for (const char c : digits) {
        if (c < '0' || c > '9') ok = false;
        if (ok) length = length * 10 + unsigned(c - '0');
    }
    if (!ok || length > max) {
        *why = "prefix length " + quoted(digits) + " is not a number in [0, " +
               std::to_string(max) + "]";
        return std::nullopt;
    }
    return IpPrefix{*address, uint8_t(length)};
}

bool contains(const IpPrefix& prefix, const IpAddress& address) {
    if (prefix.address.family != address.family) return false;
    for (size_t i = 0; i < byte_count(address.family); ++i) {
        const uint8_t mask = mask_byte(prefix.length, i);
        if ((prefix.address.bytes[i] & mask) != (address.bytes[i] & mask)) return false;
    }
    return true;
}

}  // namespace pmdfwd
