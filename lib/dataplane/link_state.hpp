// A port's link as the main lcore last sampled it. The main lcore writes it;
// workers read it only to name a TX shortfall, the telemetry thread to show it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace pmdfwd {

enum class LinkState : uint8_t {
    up,
    down,
    gone,  // the device's interface was deleted: it never comes back
};

constexpr std::string_view to_string(LinkState s) {
    return s == LinkState::up ? "up" : s == LinkState::down ? "down" : "gone";
}

using LinkCell = std::atomic<LinkState>;
static_assert(LinkCell::is_always_lock_free);

}  // namespace pmdfwd
