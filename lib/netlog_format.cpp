// netconsole wire format (see netlog_format.hpp). Pure; integers are
// formatted by hand because snprintf is not async-signal-safe.
#include "netlog_format.hpp"

namespace pmdfwd {

namespace {

// Decimal digits of v at out; returns the count (at most 20).
size_t put_uint(uint64_t v, char* out, size_t cap) {
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = char('0' + v % 10);
        v /= 10;
    } while (v != 0);
    if (n > cap) return 0;
    for (size_t i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
    return n;
}

size_t put_str(std::string_view s, char* out, size_t cap) {
    const size_t n = s.size() < cap ? s.size() : cap;
    for (size_t i = 0; i < n; ++i) out[i] = s[i];
    return n;
}

}  // namespace

uint8_t syslog_severity(int spdlog_level) {
    switch (spdlog_level) {
        case 0:  // trace
        case 1: return 7;  // debug
        case 2: return 6;  // info
        case 3: return 4;  // warn: warning
        case 4: return 3;  // err
        case 5: return 2;  // critical: crit
        default: return 6;
    }
}

size_t escape_text(std::string_view text, char* out, size_t cap, NetlogFormat fmt) {
    static constexpr char kHex[] = "0123456789abcdef";
    static constexpr std::string_view kCut = "...[cut]";
    if (cap < kCut.size() + 1) return 0;
    // Room for the cut mark and the newline is kept back from the text.
    const size_t limit = cap - kCut.size() - 1;
    size_t n = 0;
    bool cut = false;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        const bool plain = fmt == NetlogFormat::extended ? c >= 0x20 && c < 0x7f && c != '\\'
                                                         : c >= 0x20 && c != 0x7f;
        const size_t need = plain ? 1 : 4;
        if (n + need > limit || n + need > kNetlogTextMax) {
            cut = true;
            break;
        }
        if (plain) {
            out[n++] = ch;
        } else {
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = kHex[c >> 4];
            out[n++] = kHex[c & 15];
        }
    }
    if (cut) n += put_str(kCut, out + n, cap - n);
    out[n++] = '\n';
    return n;
}

size_t format_ext_header(const NetlogRecord& rec, char* out, size_t cap) {
    size_t n = put_uint(rec.level, out, cap);
    out[n++] = ',';
    n += put_uint(rec.seq, out + n, cap - n);
    out[n++] = ',';
    n += put_uint(rec.timestamp_us, out + n, cap - n);
    out[n++] = ',';
    out[n++] = rec.continuation ? 'c' : '-';
    return n;
}

size_t format_frag_field(size_t offset, size_t total, char* out, size_t cap) {
    size_t n = put_str(",ncfrag=", out, cap);
    n += put_uint(offset, out + n, cap - n);
    out[n++] = '/';
    n += put_uint(total, out + n, cap - n);
    out[n++] = ';';
    return n;
}

}  // namespace pmdfwd
