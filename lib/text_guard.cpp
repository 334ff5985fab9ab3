// Byte-level screening of config text (see text_guard.hpp). Pure, no DPDK.
#include "text_guard.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

namespace pmdfwd {

namespace {

// Length of the valid UTF-8 sequence starting at s[0], or 0 if invalid
// (overlongs, surrogates and code points above U+10FFFF are invalid).
size_t utf8_sequence_length(std::string_view s) {
    const auto b0 = static_cast<uint8_t>(s[0]);
    if (b0 < 0x80) return 1;
    size_t len;
    uint32_t cp;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2;
        cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4;
        cp = b0 & 0x07;
    } else {
        return 0;
    }
    if (s.size() < len) return 0;
    for (size_t i = 1; i < len; ++i) {
        const auto b = static_cast<uint8_t>(s[i]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (b & 0x3F);
    }
    static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
    return std::string(s.substr(b, e - b));
}

}  // namespace

std::optional<ConfigError> screen_config_text(std::string_view text, std::string_view file) {
    ConfigError err{std::string(file), 1, 1, "(document)", ""};
    if (text.size() > kMaxConfigBytes) {
        err.message = "file is larger than " + std::to_string(kMaxConfigBytes) + " bytes";
        return err;
    }
    uint32_t line = 1, column = 1;
    for (size_t i = 0; i < text.size();) {
        const auto b = static_cast<uint8_t>(text[i]);
        const bool control = (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7F;
        if (control) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "control byte 0x%02x is not allowed in a config", b);
            err = {std::string(file), line, column, key_at_line(text, line), buf};
            return err;
        }
        const size_t len = utf8_sequence_length(text.substr(i));
        if (len == 0) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "invalid UTF-8 byte 0x%02x", b);
            err = {std::string(file), line, column, key_at_line(text, line), buf};
            return err;
        }
        if (b == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
        i += len;
    }
    return std::nullopt;
}

std::string key_at_line(std::string_view text, uint32_t line) {
    std::string table;
    uint32_t current = 1;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string content = trim(text.substr(pos, end - pos));
        if (!content.empty() && content[0] == '[') {
            const size_t close = content.rfind(']');
            const bool array = content.size() > 1 && content[1] == '[';
            const size_t from = array ? 2 : 1;
            if (close != std::string::npos && close > from)
                table = trim(std::string_view(content).substr(from, close - from));
            if (current == line) return table.empty() ? "(document)" : table;
        } else if (current == line) {
            const size_t eq = content.find('=');
            if (eq != std::string::npos && content[0] != '#') {
                std::string key = trim(std::string_view(content).substr(0, eq));
                bool printable = !key.empty();
                for (const unsigned char c : key)
                    if (c < 0x20 || c >= 0x7F) printable = false;
                if (printable) return table.empty() ? key : table + "." + key;
            }
            return table.empty() ? "(document)" : table;
        }
        if (end == text.size()) break;
        pos = end + 1;
        ++current;
    }
    return table.empty() ? "(document)" : table;
}

}  // namespace pmdfwd
