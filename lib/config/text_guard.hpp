// Screens raw config bytes before the TOML parser sees them: size, NUL and
// control bytes, UTF-8 validity, non-ASCII outside strings and comments, key
// depth. toml++ 3.3.0 hits undefined behaviour or overflows its stack on
// some of these, so they never reach it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config_error.hpp"

namespace pmdfwd {

constexpr size_t kMaxConfigBytes = 1 << 20;

// Returns the first problem found, with line and column (1-based), or nothing.
std::optional<ConfigError> screen_config_text(std::string_view text, std::string_view file);

// Offset of the first control character (below 0x20, or 0x7f) in a string
// value after TOML has processed its escapes, or npos. Such a character in a
// value that reaches a log line or the plan could forge a line there.
size_t find_control_char(std::string_view s);

// Best-effort dotted key on a given line ("forward.burst"), for errors that the
// parser reports without one.
std::string key_at_line(std::string_view text, uint32_t line);

}  // namespace pmdfwd
