// Screening of config text before toml++ sees it (see text_guard.hpp): bytes,
// UTF-8, and a small TOML lexer that refuses what toml++ 3.3.0 mishandles
// (non-ASCII outside string values, very deep keys). Pure, no DPDK.
#include "text_guard.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace pmdfwd {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

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

bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool is_bare_key_char(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// Keys go into one-line messages: only printable ASCII ones are quoted back,
// and a runaway one is cut.
constexpr size_t kMaxQuotedKey = 64;

std::string printable_or_empty(std::string s) {
    for (const unsigned char c : s)
        if (c < 0x20 || c >= 0x7F) return {};
    if (s.size() > kMaxQuotedKey) s = s.substr(0, kMaxQuotedKey) + "...";
    return s;
}

// toml++ 3.3.0 tests code points for Unicode whitespace with a generated
// table that hits TOML_UNREACHABLE (undefined behaviour: a trap under UBSan,
// anything in a release build) for most of U+00A1-U+049D, U+2D6E-U+3167 and
// U+FB06-U+FEFE. It makes that test on every code point outside strings and
// comments, on quoted keys (while recording them) and after a backslash in a
// """ string. Valid TOML has no non-ASCII text in the first place and our
// keys are ASCII, so those places are refused here; text in string values
// and comments is never tested and may be any UTF-8.
constexpr const char* kNonAsciiBare = "non-ASCII character outside a string or comment";
constexpr const char* kNonAsciiKey = "non-ASCII character in a quoted key (keys are ASCII)";
constexpr const char* kNonAsciiEscape =
    "non-ASCII character after a backslash in a \"\"\" string (use a \\u escape)";
constexpr const char* kNonAsciiContinuation =
    "non-ASCII character right after a line-ending backslash in a \"\"\" string";

// toml++ nests one table per dotted key part and frees them recursively, so a
// key of a few hundred thousand parts overflows the stack (found with a 1 MiB
// "a.b.b.b... = 1"). Our deepest key has three parts.
constexpr unsigned kMaxKeyParts = 16;
constexpr const char* kKeyTooDeep = "a key has more than 16 dotted parts";

// toml++ 3.3.0 assumes (TOML_ASSERT_ASSUME) that a table header's '[' or '[['
// is followed by a key; "[=" or a lone "[" ending a line breaks that. The
// loader turns toml++'s assumptions off; this keeps the guard sufficient on
// its own and says what is wrong in plain words.
constexpr const char* kNoTableName = "expected a table name after '['";

// A TOML lexer just deep enough to know, for each byte, whether it is bare
// structure, a comment, a quoted key or a string value, and whether a line
// starts inside a value that spans lines. It follows the TOML grammar on valid
// text; on invalid text it only has to stay no more permissive than toml++.
class Scanner {
  public:
    explicit Scanner(std::string_view text) : text_(text) {}

    // Feeds text[i]; call for every i in order. Returns why the byte must not
    // reach toml++, or nullptr.
    const char* feed(size_t i) {
        if (skip_ > 0) {
            --skip_;
            return nullptr;
        }
        const auto c = static_cast<uint8_t>(text_[i]);
        switch (lex_) {
            case Lex::bare:
                return bare(i, c);
            case Lex::comment:
                if (c == '\n') end_line();
                return nullptr;
            case Lex::basic:
            case Lex::literal:
                if (c == '\n') {  // unterminated; toml++ reports it
                    end_line();
                    return nullptr;
                }
                if (escape_) {
                    escape_ = false;
                } else if (lex_ == Lex::basic && c == '\\') {
                    escape_ = true;
                    return nullptr;
                } else if (c == (lex_ == Lex::basic ? '"' : '\'')) {
                    end_string();
                    return nullptr;
                }
                return in_key(c);
            case Lex::ml_basic:
                if (escape_) {
                    escape_ = false;
                    if (is_space(c)) {
                        continuation_ = true;
                        return nullptr;
                    }
                    return c >= 0x80 ? kNonAsciiEscape : nullptr;
                }
                if (continuation_) {
                    if (is_space(c)) return nullptr;
                    continuation_ = false;
                    if (c >= 0x80) return kNonAsciiContinuation;
                }
                if (c == '\\') {
                    escape_ = true;
                    return nullptr;
                }
                if (c == '"') close_run(i, '"');
                return in_key(c);
            case Lex::ml_literal:
                if (c == '\'') close_run(i, '\'');
                return in_key(c);
        }
        return nullptr;
    }

    // True between a value's first and last line: in an array or a """/'''
    // string that a newline has not closed.
    bool inside_value() const {
        if (lex_ == Lex::ml_basic || lex_ == Lex::ml_literal) return true;
        for (const Nest n : nest_)
            if (n == Nest::array) return true;
        return false;
    }

  private:
    enum class Lex : uint8_t { bare, comment, basic, ml_basic, literal, ml_literal };
    enum class Nest : uint8_t { header, array, inline_table };
    // Where bare structure is: reading a key, expecting a value, inside a
    // bare value (number, date, boolean), or after a value.
    enum class Pos : uint8_t { key, value, bare_value, after_value };

    const char* bare(size_t i, uint8_t c) {
        if (c >= 0x80) return kNonAsciiBare;
        if (header_brackets_ > 0) {  // between a header's '[' and its name
            if (c == ' ' || c == '\t') return nullptr;
            if (c == '[' && header_brackets_ == 1) {
                header_brackets_ = 2;
                nest_.push_back(Nest::header);
                return nullptr;
            }
            header_brackets_ = 0;
            if (!is_bare_key_char(c) && c != '"' && c != '\'' && c != ']') return kNoTableName;
        }
        if (pos_ == Pos::bare_value) {
            // toml++ reads a bare value up to a value terminator, quotes and
            // all, testing each code point for whitespace on the way.
            const bool terminator = c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ']' ||
                                    c == '}' || c == ',' || c == '#';
            if (!terminator) return nullptr;
            pos_ = Pos::after_value;
        }
        switch (c) {
            case '#':
                lex_ = Lex::comment;
                return nullptr;
            case '"':
            case '\'': {
                const bool triple = text_.substr(i, 3) == std::string(3, char(c));
                lex_ = c == '"' ? (triple ? Lex::ml_basic : Lex::basic)
                                : (triple ? Lex::ml_literal : Lex::literal);
                skip_ = triple ? 2 : 0;
                key_string_ = pos_ != Pos::value;
                escape_ = continuation_ = false;
                return nullptr;
            }
            case '=':
                return structure(Pos::value);
            case '[':  // an array where a value is expected, else a table header
                if (pos_ == Pos::value) {
                    nest_.push_back(Nest::array);
                    return structure(Pos::value);
                }
                nest_.push_back(Nest::header);
                header_brackets_ = 1;
                return structure(Pos::key);
            case '{':
                nest_.push_back(Nest::inline_table);
                return structure(Pos::key);
            case ']':
            case '}':
                if (!nest_.empty()) nest_.pop_back();
                return structure(Pos::after_value);
            case ',':
                return structure(!nest_.empty() && nest_.back() == Nest::array ? Pos::value
                                                                               : Pos::key);
            case '\n':
                end_line();
                return nullptr;
            case ' ':
            case '\t':
            case '\r':
                return nullptr;
            default:
                if (pos_ == Pos::value || pos_ == Pos::after_value) pos_ = Pos::bare_value;
                if (pos_ == Pos::key && c == '.' && ++key_dots_ >= kMaxKeyParts) return kKeyTooDeep;
                return nullptr;
        }
    }

    // A delimiter moved the position; a new key starts counting its dots.
    const char* structure(Pos next) {
        pos_ = next;
        key_dots_ = 0;
        return nullptr;
    }

    const char* in_key(uint8_t c) const {
        return c >= 0x80 && key_string_ ? kNonAsciiKey : nullptr;
    }

    // A run of 3 to 5 quotes closes a multi-line string (the extra ones are
    // content), as in toml++; a shorter run is content.
    void close_run(size_t i, char quote) {
        size_t run = 1;
        while (run < 5 && i + run < text_.size() && text_[i + run] == quote) ++run;
        skip_ = run - 1;
        if (run >= 3) end_string();
    }

    void end_string() {
        lex_ = Lex::bare;
        pos_ = Pos::after_value;
    }

    // Only arrays and multi-line strings continue past a newline.
    void end_line() {
        lex_ = Lex::bare;
        key_dots_ = 0;
        while (!nest_.empty() && nest_.back() != Nest::array) nest_.pop_back();
        if (nest_.empty())
            pos_ = Pos::key;
        else if (pos_ == Pos::bare_value)
            pos_ = Pos::after_value;
    }

    std::string_view text_;
    Lex lex_ = Lex::bare;
    std::vector<Nest> nest_;
    Pos pos_ = Pos::key;
    bool key_string_ = false;       // the string being read is a key
    unsigned key_dots_ = 0;         // dots in the key being read
    unsigned header_brackets_ = 0;  // '[' of a header read, its name not yet begun
    bool escape_ = false;           // the previous byte was an unescaped backslash
    bool continuation_ = false;     // after a line-ending backslash in a """ string
    size_t skip_ = 0;               // bytes of a delimiter already classified
};

// The table a header line names, in the loader's spelling: "forward", or
// "port[1]" for the second [[port]]. nullopt when the line is no header.
std::optional<std::string> header_name(const std::string& content,
                                       std::map<std::string, unsigned>& array_counts) {
    if (content.empty() || content[0] != '[') return std::nullopt;
    const bool array = content.size() > 1 && content[1] == '[';
    const size_t from = array ? 2 : 1;
    const size_t close = content.find(array ? "]]" : "]", from);
    std::string name = printable_or_empty(trim(std::string_view(content).substr(
        from, close == std::string::npos ? std::string::npos : close - from)));
    const auto first = static_cast<uint8_t>(name.empty() ? ' ' : name[0]);
    if (!is_bare_key_char(first) && first != '"' && first != '\'') return std::string();
    if (array) {
        const unsigned index = array_counts[name]++;
        if (close != std::string::npos) return name + "[" + std::to_string(index) + "]";
        return name;  // a cut-off header: no index yet
    }
    // [port.sub] after [[port]] belongs to the latest port.
    for (const auto& [arr, count] : array_counts)
        if (name.size() > arr.size() && name.compare(0, arr.size(), arr) == 0 &&
            name[arr.size()] == '.')
            return arr + "[" + std::to_string(count - 1) + "]" + name.substr(arr.size());
    return name;
}

std::string dotted(const std::string& table, const std::string& key) {
    if (table.empty()) return key.empty() ? "(document)" : key;
    return key.empty() ? table : table + "." + key;
}

}  // namespace

std::optional<ConfigError> screen_config_text(std::string_view text, std::string_view file) {
    ConfigError err{std::string(file), 1, 1, "(document)", ""};
    if (text.size() > kMaxConfigBytes) {
        err.message = "file is larger than " + std::to_string(kMaxConfigBytes) + " bytes";
        return err;
    }
    Scanner scanner(text);
    uint32_t line = 1, column = 1;
    // toml++ skips a leading byte order mark, so columns do not count it.
    size_t i = text.substr(0, kUtf8Bom.size()) == kUtf8Bom ? kUtf8Bom.size() : 0;
    while (i < text.size()) {
        const auto b = static_cast<uint8_t>(text[i]);
        const bool control = (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7F;
        char buf[96];
        const char* problem = nullptr;
        size_t len = 0;
        if (control) {
            std::snprintf(buf, sizeof buf, "control byte 0x%02x is not allowed in a config", b);
            problem = buf;
        } else if ((len = utf8_sequence_length(text.substr(i))) == 0) {
            std::snprintf(buf, sizeof buf, "invalid UTF-8 byte 0x%02x", b);
            problem = buf;
        } else {
            for (size_t k = 0; k < len && !problem; ++k) problem = scanner.feed(i + k);
        }
        if (problem)
            return ConfigError{std::string(file), line, column, key_at_line(text, line), problem};
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

size_t find_control_char(std::string_view s) {
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<uint8_t>(s[i]);
        if (c < 0x20 || c == 0x7F) return i;
    }
    return std::string_view::npos;
}

std::string key_at_line(std::string_view text, uint32_t line) {
    Scanner scanner(text);
    std::map<std::string, unsigned> array_counts;
    std::string table;
    std::string value_key;  // key of the last line that began outside a value
    uint32_t current = 1;
    size_t pos = text.substr(0, kUtf8Bom.size()) == kUtf8Bom ? kUtf8Bom.size() : 0;
    for (;;) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const bool continued = scanner.inside_value();
        if (!continued) {
            const std::string content = trim(text.substr(pos, end - pos));
            std::string key;
            if (auto name = header_name(content, array_counts)) {
                table = *name;
            } else if (const size_t eq = content.find('=');
                       eq != std::string::npos && content[0] != '#') {
                key = printable_or_empty(trim(std::string_view(content).substr(0, eq)));
            }
            value_key = dotted(table, key);
        }
        if (current == line || end == text.size()) return value_key;
        for (size_t i = pos; i <= end && i < text.size(); ++i) scanner.feed(i);
        pos = end + 1;
        ++current;
    }
}

}  // namespace pmdfwd
