// Reading the fields of one pmdfwd record (a JSON object) for display:
// a missing field prints as "-" and reads as 0, never throws.
#pragma once

#include <cstdint>
#include <string>

#include "telemetry_client.hpp"

namespace pmdctl {

std::string format(const char* fmt, double v);  // snprintf of one double
bool has(const Json& rec, const std::string& key);
// A counter field; missing, negative or non-numeric reads as 0.
uint64_t u64(const Json& rec, const std::string& key);
std::string text(const Json& rec, const std::string& key);        // the value as text, or "-"
std::string count_cell(const Json& rec, const std::string& key);  // human_count, or "-"

}  // namespace pmdctl
