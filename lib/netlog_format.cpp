// netconsole wire format (see netlog_format.hpp). Pure; integers are
// formatted by hand because snprintf is not async-signal-safe.
#include "netlog_format.hpp"

#include <algorithm>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace pmdfwd {

namespace {

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t decimal_digits(uint64_t v) {
    size_t n = 1;
    for (; v >= 100; v /= 100) n += 2;
    return n + (v >= 10);
}

// Decimal digits of v at out, written from the end two at a time; returns
// the count (at most 20), or 0 when they do not fit in cap.
size_t put_uint(uint64_t v, char* out, size_t cap) {
    const size_t n = decimal_digits(v);
    if (n > cap) return 0;
    char* p = out + n;
    for (; v >= 100; v /= 100) {
        p -= 2;
        std::memcpy(p, kDigitPairs + 2 * (v % 100), 2);
    }
    if (v >= 10)
        std::memcpy(p - 2, kDigitPairs + 2 * v, 2);
    else
        p[-1] = char('0' + v);
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

namespace {

bool needs_escape(unsigned char c, NetlogFormat fmt) {
    return fmt == NetlogFormat::extended ? c < 0x20 || c >= 0x7f || c == '\\'
                                         : c < 0x20 || c == 0x7f;
}

// Eight bytes at a time: does any of them need escaping? (The has-less and
// has-zero byte tricks; exact, no false negatives; a hit is then looked at
// byte by byte.)
constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
uint64_t any_zero(uint64_t v) { return (v - kOnes) & ~v & kHighs; }
uint64_t any_below_0x20(uint64_t v) { return (v - kOnes * 0x20) & ~v & kHighs; }

bool word_needs_escape(const char* p, NetlogFormat fmt) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    uint64_t hit = any_below_0x20(v) | any_zero(v ^ (kOnes * 0x7f));
    if (fmt == NetlogFormat::extended) hit |= (v & kHighs) | any_zero(v ^ (kOnes * '\\'));
    return hit != 0;
}

#ifdef __SSE2__
// Sixteen bytes at a time: the offset of the first byte that needs escaping,
// or 16. Signed compares: in the extended format "below 0x20" then also takes
// every byte >= 0x80, which it escapes too.
unsigned first_escape_in_16(const char* p, NetlogFormat fmt) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                               _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
    if (fmt == NetlogFormat::extended)
        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    else
        hit = _mm_andnot_si128(_mm_cmplt_epi8(v, _mm_setzero_si128()), hit);  // >= 0x80 is plain
    const auto mask = unsigned(_mm_movemask_epi8(hit));
    return mask ? unsigned(__builtin_ctz(mask)) : 16;
}
#endif

// End of the run of plain characters that starts at i.
size_t plain_run_end(std::string_view text, size_t i, NetlogFormat fmt) {
#ifdef __SSE2__
    while (i + 16 <= text.size()) {
        const unsigned k = first_escape_in_16(text.data() + i, fmt);
        i += k;
        if (k != 16) return i;
    }
#endif
    while (i + 8 <= text.size() && !word_needs_escape(text.data() + i, fmt)) i += 8;
    while (i < text.size() && !needs_escape(static_cast<unsigned char>(text[i]), fmt)) ++i;
    return i;
}

}  // namespace

size_t escape_text(std::string_view text, char* out, size_t cap, NetlogFormat fmt) {
    static constexpr char kHex[] = "0123456789abcdef";
    static constexpr std::string_view kCut = "...[cut]";
    if (cap < kCut.size() + 1) return 0;
    // Room for the cut mark and the newline is kept back from the text.
    const size_t limit = std::min(cap - kCut.size() - 1, kNetlogTextMax);
    size_t n = 0, i = 0;
    bool cut = false;
    while (i < text.size()) {
        // The common case, a run of plain characters, is copied in one go.
        const size_t run = plain_run_end(text, i, fmt);
        const size_t take = std::min(run - i, limit - n);
        std::memcpy(out + n, text.data() + i, take);
        n += take;
        i += take;
        if (i < run) {
            cut = true;
            break;
        }
        if (i == text.size()) break;
        if (n + 4 > limit) {
            cut = true;
            break;
        }
        const auto c = static_cast<unsigned char>(text[i++]);
        out[n++] = '\\';
        out[n++] = 'x';
        out[n++] = kHex[c >> 4];
        out[n++] = kHex[c & 15];
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

RecordDatagrams::RecordDatagrams(const NetlogRecord& rec, NetlogFormat fmt, const char* body,
                                 size_t body_len)
    : fmt_(fmt), body_(body), body_len_(body_len) {
    if (fmt == NetlogFormat::extended) head_len_ = format_ext_header(rec, head_, sizeof(head_));
}

size_t RecordDatagrams::count() const {
    if (fmt_ == NetlogFormat::plain) return (body_len_ + kNetlogPayloadMax - 1) / kNetlogPayloadMax;
    if (head_len_ + 1 + body_len_ <= kNetlogPayloadMax) return 1;
    // The lengths format_frag_field will produce: ",ncfrag=" off '/' total ';'.
    const size_t fixed = head_len_ + 8 + 1 + decimal_digits(body_len_) + 1;
    size_t n = 0;
    for (size_t off = 0; off < body_len_; ++n) {
        const size_t room = kNetlogPayloadMax - (fixed + decimal_digits(off));
        off += body_len_ - off < room ? body_len_ - off : room;
    }
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
