// MAC address value type with text parsing; no DPDK headers so config code stays testable.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmdfwd {

struct MacAddr {
    std::array<uint8_t, 6> bytes{};

    static std::optional<MacAddr> parse(std::string_view text);
    std::string to_string() const;
    bool operator==(const MacAddr&) const = default;
};

}  // namespace pmdfwd
