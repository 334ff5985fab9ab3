// Parsing of listen addresses (see listen_address.hpp).
#include "listen_address.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

namespace pmdfwd {

std::string ListenAddress::to_string() const {
    return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* why) {
    const auto refuse = [&](std::string message) -> std::optional<ListenAddress> {
        *why = std::move(message);
        return std::nullopt;
    };
    ListenAddress a;
    std::string_view port;
    if (text.starts_with('[')) {
        const size_t close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
            return refuse("expected \"[ipv6]:port\", such as \"[::1]:9469\"");
        a.host = std::string(text.substr(1, close - 1));
        a.ipv6 = true;
        port = text.substr(close + 2);
    } else {
        const size_t colon = text.rfind(':');
        if (colon == std::string_view::npos || text.find(':') != colon)
            return refuse(
                "expected \"address:port\", such as \"127.0.0.1:9469\" or \"[::1]:9469\"");
        a.host = std::string(text.substr(0, colon));
        port = text.substr(colon + 1);
    }
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535)
        return refuse("port '" + std::string(port.substr(0, 16)) +
                      "' is not a number in [1, 65535]");
    a.port = uint16_t(value);
    if (a.ipv6) {
        in6_addr v6{};
        if (inet_pton(AF_INET6, a.host.c_str(), &v6) != 1)
            return refuse("'" + a.host.substr(0, 64) + "' is not a numeric IPv6 address");
        a.loopback = IN6_IS_ADDR_LOOPBACK(&v6);
    } else {
        in_addr v4{};
        if (inet_pton(AF_INET, a.host.c_str(), &v4) != 1)
            return refuse("'" + a.host.substr(0, 64) +
                          "' is not a numeric IPv4 address (names are not looked up)");
        a.loopback = (ntohl(v4.s_addr) >> 24) == 127;
    }
    return a;
}

}  // namespace pmdfwd
