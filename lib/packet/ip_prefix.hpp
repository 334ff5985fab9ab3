// IPv4 and IPv6 addresses and prefixes as the config writes them:
// "10.0.0.0/24" for a route, "10.0.0.1/24" for an interface address (the
// address with its subnet's length), "2001:db8::/32", "::/0". Numeric only
// (inet_pton). Pure; read at start, never by a worker.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
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

// The address, or nullopt with *why set to what is wrong with the text.
std::optional<IpAddress> parse_ip_address(std::string_view text, std::string* why);

// "address/length", or nullopt with *why set to what is wrong with the text.
// Host bits are allowed here: whether they may be set is the caller's to say.
std::optional<IpPrefix> parse_ip_prefix(std::string_view text, std::string* why);

// Whether address lies in prefix, comparing the first prefix.length bits
// only (so an interface address contains its neighbours); false across families.
bool contains(const IpPrefix& prefix, const IpAddress& address);

}  // namespace pmdfwd
