// Human units (see units.hpp).
#include "units.hpp"

#include <cmath>
#include <cstdio>

namespace pmdfwd {

namespace {

constexpr const char* kSiSuffixes[] = {"", "K", "M", "G", "T", "P", "E"};
constexpr size_t kSiSuffixCount = sizeof(kSiSuffixes) / sizeof(kSiSuffixes[0]);

}  // namespace

std::string format_double(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), fmt, v);
    return buf;
}

std::string human_count(uint64_t n) {
    if (n < 1000) return std::to_string(n);
    double v = double(n);
    size_t suffix = 0;
    while (v >= 1000 && suffix + 1 < kSiSuffixCount) {
        v /= 1000;
        ++suffix;
    }
    // Pick the decimals that keep 3 significant digits after rounding; 999.6K
    // rounds to 1000, so it moves up a suffix instead.
    for (;;) {
        for (int decimals = 2; decimals >= 0; --decimals) {
            const double scale = std::pow(10.0, decimals);
            const double rounded = std::round(v * scale) / scale;
            if (rounded < 1000 / scale) {
                const char* fmt = decimals == 2 ? "%.2f" : decimals == 1 ? "%.1f" : "%.0f";
                return format_double(fmt, rounded) + kSiSuffixes[suffix];
            }
        }
        if (suffix + 1 == kSiSuffixCount) return format_double("%.0f", v) + kSiSuffixes[suffix];
        v /= 1000;
        ++suffix;
    }
}

std::string human_bytes(uint64_t n) { return human_count(n) + "B"; }

std::string percent(uint64_t part, uint64_t whole) {
    if (!whole) return "-";
    return format_double("%.1f%%", double(part) * 100.0 / double(whole));
}

std::string permille_text(uint64_t permille) {
    return format_double("%.1f%%", double(permille) / 10);
}

std::string human_duration(uint64_t seconds) {
    const uint64_t h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
    char buf[48];
    if (h)
        std::snprintf(buf, sizeof(buf), "%luh%02lum%02lus", h, m, s);
    else if (m)
        std::snprintf(buf, sizeof(buf), "%lum%02lus", m, s);
    else
        std::snprintf(buf, sizeof(buf), "%lus", s);
    return buf;
}

std::string human_ns(uint64_t ns) {
    if (ns < 1000) return std::to_string(ns) + "ns";
    std::string s = human_count(ns);  // "1.02K", "16.4K", "1.05M", "2.15G"
    const char suffix = s.back();
    s.pop_back();
    if (suffix == 'K') return s + "us";
    if (suffix == 'M') return s + "ms";
    if (suffix == 'G') return s + "s";
    return format_double("%.0fs", double(ns) / 1e9);  // 1000 s and more: whole seconds
}

}  // namespace pmdfwd
