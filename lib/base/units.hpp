// Numbers as people read them, by unit: what pmdctl's tables, the histogram
// bars and the field tables' formatting use. Pure.
#pragma once

#include <cstdint>
#include <string>

namespace pmdfwd {

// snprintf of one double.
std::string format_double(const char* fmt, double v);
// 3 significant digits and an SI suffix: 999, 1.23K, 12.3K, 123K, 1.23M.
std::string human_count(uint64_t n);
// human_count with a B: 512B, 1.50KB, 9.87GB.
std::string human_bytes(uint64_t n);
// "45.2%"; "-" when whole is 0.
std::string percent(uint64_t part, uint64_t whole);
// A permille as a percentage with one decimal: 906 -> "90.6%".
std::string permille_text(uint64_t permille);
// "1h02m03s", "4m05s", "7s".
std::string human_duration(uint64_t seconds);
// Nanoseconds as a person reads them: exact below 1us ("511ns"), then three
// significant digits in decimal units: "1.02us", "16.4us", "1.05ms", "2.15s".
std::string human_ns(uint64_t ns);

}  // namespace pmdfwd
