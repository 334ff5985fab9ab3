// Where in the config a check points: a port by its name, an error at a
// key's place. Shared by the plan and router mode's config check. Pure.
#pragma once

#include <string>
#include <string_view>

#include "config.hpp"
#include "config_error.hpp"

namespace pmdfwd {

inline ConfigError config_error_at(const Config& cfg, SourceLoc loc, std::string key,
                                   std::string message) {
    return ConfigError{cfg.source_name, loc.line, loc.column, std::move(key), std::move(message)};
}

// The index of the [[port]] named `name`; -1 when none is.
inline int port_index(const Config& cfg, std::string_view name) {
    for (size_t i = 0; i < cfg.ports.size(); ++i)
        if (cfg.ports[i].name == name) return int(i);
    return -1;
}

}  // namespace pmdfwd
