// Loads a TOML config into Config: strict (unknown keys are errors), typed,
// range-checked, and every error carries file, line, column and key.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "config.hpp"
#include "config_error.hpp"

namespace pmdfwd {

using ConfigResult = std::variant<Config, ConfigError>;

// Parses text as if read from `file` (used only in messages).
ConfigResult parse_config(std::string_view text, std::string_view file);

// Reads and parses a file; unreadable files are errors at 0:0.
ConfigResult load_config_file(const std::string& path);

}  // namespace pmdfwd
