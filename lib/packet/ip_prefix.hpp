// IPv4 and IPv6 addresses and prefixes as the config writes them:
// "10.0.0.0/24" for a route, "10.0.0.1/24" for an interface address (the
// address with its subnet's length), "2001:db8::/32", "::/0". Numeric only
// (inet_pton). Pure; read at start, never by a worker.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace pmdfwd {

enum class IpFamily : uint8_t { v4, v6 };

struct IpAddress {
    IpFamily family = IpFamily::v4;
    std::array<uint8_t, 16> bytes{};  // network order; IPv4 in the first 4, the rest 0

    unsigned bits() const { return family == IpFamily::v4 ? 32 : 128; }
    uint32_t v4_host_order() const;  // what the IPv4 table takes; IPv4 only
    std::string to_string() const;   // inet_ntop's form
    // By family, then the address's bytes: all IPv4 before IPv6, each in
    // numeric order.
    auto operator<=>(const IpAddress&) const = default;
};

struct IpPrefix {
    IpAddress address;  // as written: host bits kept
    uint8_t length = 0;

    // A route's prefix must not have them; an interface address must.
    bool host_bits_set() const;
    IpPrefix network() const;  // the same prefix with its host bits cleared
    std::string to_string() const;
    // By address, then length: a shorter prefix before a longer one of the
    // same network, so that tables keyed by prefix list as `show routes`
    // does. Host bits count: compare network()s to compare routes.
    auto operator<=>(const IpPrefix&) const = default;
};

// For hash tables of prefixes (the router's kernel table, its routes by
// gateway): a million of them, where a tree's O(log n) cache misses cost
// microseconds a change.
struct IpPrefixHash {
    size_t operator()(const IpPrefix& p) const noexcept {
        uint64_t hi, lo;
        std::memcpy(&hi, p.address.bytes.data(), 8);
        std::memcpy(&lo, p.address.bytes.data() + 8, 8);
        // Two odd multipliers (splitmix64's), folded: every byte reaches the
        // top bits, which an unordered_map's modulo keeps.
        uint64_t h =
            (hi ^ (uint64_t(p.length) << 56 | uint64_t(p.address.family))) * 0x9e3779b97f4a7c15ULL;
        h ^= (lo + (h >> 29)) * 0xbf58476d1ce4e5b9ULL;
        return size_t(h ^ (h >> 32));
    }
};

// The address, or nullopt with *why set to what is wrong with the text.
std::optional<IpAddress> parse_ip_address(std::string_view text, std::string* why);

// "address/length", or nullopt with *why set to what is wrong with the text.
// Host bits are allowed here: whether they may be set is the caller's to say.
std::optional<IpPrefix> parse_ip_prefix(std::string_view text, std::string* why);

// Whether address lies in prefix, comparing the first prefix.length bits
// only (so an interface address contains its neighbours); false across families.
bool contains(const IpPrefix& prefix, const IpAddress& address);

}  // namespace pmdfwd
