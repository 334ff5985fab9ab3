// An address a server of pmdfwd's listens on: "127.0.0.1:9469" or
// "[::1]:9469". Numeric only (no name lookup before anything starts). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmdfwd {

struct ListenAddress {
    std::string host;  // as written, without brackets
    uint16_t port = 0;
    bool ipv6 = false;
    bool loopback = false;  // 127.0.0.0/8 or ::1

    // What a civetweb-style listener takes: "127.0.0.1:9469", "[::1]:9469".
    std::string to_string() const;
};

// The address, or nullopt with *why set to what is wrong with the text.
std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* why);

}  // namespace pmdfwd
