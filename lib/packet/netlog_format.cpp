// The log channel's wire formats (see netlog_format.hpp). Pure; integers and
// times are formatted by hand because snprintf and gmtime_r are not
// async-signal-safe.
#include "netlog_format.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace pmdfwd {

namespace {

// floor(bits * log10(2)) is the digit count or one less: no division loop.
size_t decimal_digits(uint64_t v) {
    static constexpr auto kPow10 = [] {
        std::array<uint64_t, 20> powers{};
        uint64_t p = 1;
        for (auto& x : powers) x = std::exchange(p, p * 10);  // the last product wraps, unused
        return powers;
    }();
    const unsigned bits = 64 - unsigned(__builtin_clzll(v | 1));
    const unsigned t = (bits * 1233) >> 12;
    return t + ((v | 1) >= kPow10[t]);
}

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

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
        case 1:
            return 7;  // debug
        case 2:
            return 6;  // info
        case 3:
            return 4;  // warn: warning
        case 4:
            return 3;  // err
        case 5:
            return 2;  // critical: crit
        default:
            return 6;
    }
}

namespace {

bool needs_escape(unsigned char c, NetlogFormat fmt) {
    return fmt == NetlogFormat::extended ? c < 0x20 || c >= 0x7f || c == '\\'
                                         : c < 0x20 || c == 0x7f;
}

// Eight bytes at a time: which of them need escaping? (The has-less and
// has-zero byte tricks: a flagged byte can be wrong only above a rightly
// flagged one, so the lowest flag is exact.)
constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
uint64_t any_zero(uint64_t v) { return (v - kOnes) & ~v & kHighs; }
uint64_t any_below_0x20(uint64_t v) { return (v - kOnes * 0x20) & ~v & kHighs; }

uint64_t escape_flags_8(uint64_t v, NetlogFormat fmt) {
    uint64_t hit = any_below_0x20(v) | any_zero(v ^ (kOnes * 0x7f));
    if (fmt == NetlogFormat::extended) hit |= (v & kHighs) | any_zero(v ^ (kOnes * '\\'));
    return hit;
}

#ifdef __SSE2__
// One bit per byte that needs escaping. Signed compares: in the extended
// format "below 0x20" then also takes every byte >= 0x80, which it escapes too.
unsigned escape_mask_16(__m128i v, NetlogFormat fmt) {
    __m128i hit = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                               _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
    if (fmt == NetlogFormat::extended)
        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    else
        hit = _mm_andnot_si128(_mm_cmplt_epi8(v, _mm_setzero_si128()), hit);  // >= 0x80 is plain
    return unsigned(_mm_movemask_epi8(hit));
}
#endif

// Copies the plain bytes at the start of in, a block of 16 (SSE2) or 8 bytes
// at a time, looking at each block in the same pass; returns their count.
// Stops at the first byte that needs escaping, or when less than a block of
// input or room is left. A block is stored whole before it is looked at, so
// bytes past the returned count may be written, never past avail_out.
size_t copy_plain_blocks(const char* in, size_t avail_in, char* out, size_t avail_out,
                         NetlogFormat fmt) {
    const size_t avail = std::min(avail_in, avail_out);
    size_t done = 0;
#ifdef __SSE2__
    for (; done + 16 <= avail; done += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + done));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + done), v);
        if (const unsigned mask = escape_mask_16(v, fmt))
            return done + unsigned(__builtin_ctz(mask));
    }
#endif
    for (; done + 8 <= avail; done += 8) {
        uint64_t v;
        std::memcpy(&v, in + done, 8);
        std::memcpy(out + done, &v, 8);
        if (const uint64_t hit = escape_flags_8(v, fmt))
            return done + size_t(__builtin_ctzll(hit)) / 8;
    }
    return done;
}

bool utf8_continuation(unsigned char c) { return (c & 0xc0) == 0x80; }

// Bytes of the UTF-8 character a lead byte starts (1 for anything else).
size_t utf8_length(unsigned char c) {
    if (c >= 0xf0 && c <= 0xf7) return 4;
    if (c >= 0xe0) return c <= 0xef ? 3 : 1;
    if (c >= 0xc0) return 2;
    return 1;
}

// Text kept up to `end` (exclusive): how many of its last bytes are an
// unfinished multibyte character, which a cut there would leave without the
// bytes that complete it. 0 when the cut falls between characters.
size_t utf8_unfinished(std::string_view text, size_t end) {
    if (end >= text.size() || !utf8_continuation(static_cast<unsigned char>(text[end]))) return 0;
    size_t lead = end;
    while (lead > 0 && end - lead < 3 &&
           utf8_continuation(static_cast<unsigned char>(text[lead - 1])))
        --lead;
    if (lead == 0) return 0;
    --lead;
    const size_t kept = end - lead;
    return utf8_length(static_cast<unsigned char>(text[lead])) > kept ? kept : 0;
}

// The bytes a byte of the text takes once escaped.
size_t escaped_size(char c, NetlogFormat fmt) {
    return needs_escape(static_cast<unsigned char>(c), fmt) ? 4 : 1;
}

}  // namespace

EscapedLength escape_text(std::string_view text, char* out, size_t cap, NetlogFormat fmt) {
    static constexpr char kHex[] = "0123456789abcdef";
    if (cap < kNetlogCutMark.size() + 1) return {};
    const size_t limit = cap - 1;  // room for the newline
    const size_t len = text.size();
    size_t n = 0, i = 0;
    bool cut = false;
    while (i < len) {
        // The common case, a run of plain characters: whole blocks, then bytes.
        const size_t run = copy_plain_blocks(text.data() + i, len - i, out + n, limit - n, fmt);
        i += run;
        n += run;
        while (i < len && n < limit && !needs_escape(static_cast<unsigned char>(text[i]), fmt))
            out[n++] = text[i++];
        if (i == len) break;
        const auto c = static_cast<unsigned char>(text[i]);
        if (!needs_escape(c, fmt) || n + 4 > limit) {  // no room for the byte or its escape
            cut = true;
            break;
        }
        ++i;
        out[n++] = '\\';
        out[n++] = 'x';
        out[n++] = kHex[c >> 4];
        out[n++] = kHex[c & 15];
    }
    if (cut) {
        // Room for the mark: whole bytes of the text (each with its escape)
        // are given back, then the start of a character the cut would split
        // (bytes >= 0x80 are \xNN in the extended format, themselves in plain).
        const size_t keep = cap - kNetlogCutMark.size() - 1;
        while (n > keep) n -= escaped_size(text[--i], fmt);
        n -= utf8_unfinished(text, i) * (fmt == NetlogFormat::extended ? 4 : 1);
        n += put_str(kNetlogCutMark, out + n, cap - n);
    }
    out[n++] = '\n';
    return {n, cut};
}

size_t netlog_text_room(const NetlogRecord& rec, NetlogFormat fmt, const SyslogOrigin* origin) {
    if (fmt == NetlogFormat::plain) return kNetlogRecordMax;
    if (fmt == NetlogFormat::rfc5424)
        return kSyslogMessageMax + 1 - syslog_header_length(rec, origin ? *origin : SyslogOrigin{});
    // The head as format_ext_header writes it: "<level>,<seq>,<ts>,<flag>", then ';'.
    const size_t head = decimal_digits(rec.level) + 1 + decimal_digits(rec.seq) + 1 +
                        decimal_digits(rec.timestamp_us) + 2 + 1;
    return kNetlogRecordMax - head;
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
                                 size_t body_len, const SyslogOrigin* origin)
    : fmt_(fmt), body_(body), body_len_(body_len) {
    if (fmt == NetlogFormat::extended) head_len_ = format_ext_header(rec, head_, sizeof(head_));
    if (fmt == NetlogFormat::rfc5424) {
        head_len_ =
            format_syslog_header(rec, origin ? *origin : SyslogOrigin{}, head_, sizeof(head_));
        if (body_len_ == 0) body_len_ = 1;  // for_each leaves one byte, the newline, off
    }
}

size_t RecordDatagrams::count() const {
    if (fmt_ == NetlogFormat::plain) return (body_len_ + kNetlogPayloadMax - 1) / kNetlogPayloadMax;
    if (fmt_ == NetlogFormat::rfc5424) return 1;
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

namespace {

// Howard Hinnant's civil_from_days: the proleptic Gregorian date of a day
// counted from 1970-01-01, without a table or a library call.
struct CivilDate {
    uint64_t year;
    unsigned month, day;
};
CivilDate civil_from_days(uint64_t days) {
    const uint64_t z = days + 719468;
    const uint64_t era = z / 146097;
    const auto doe = unsigned(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned day = doy - (153 * mp + 2) / 5 + 1;
    const unsigned month = mp < 10 ? mp + 3 : mp - 9;
    return {uint64_t(yoe) + era * 400 + (month <= 2), month, day};
}

// v in exactly `width` digits, zero-padded.
void put_fixed(uint64_t v, unsigned width, char* out) {
    for (unsigned i = width; i-- > 0; v /= 10) out[i] = char('0' + v % 10);
}

// An SD-PARAM value: '"', '\\' and ']' escaped as RFC 5424 asks, anything
// but printable ASCII as '?', so the header stays one valid line.
size_t put_param_value(std::string_view v, char* out, size_t cap) {
    size_t n = 0;
    for (const char c : v.substr(0, kNetlogWorkerMax)) {
        if (n + 2 > cap) break;
        if (c == '"' || c == '\\' || c == ']') out[n++] = '\\';
        out[n++] = c < 0x20 || c > 0x7e ? '?' : c;
    }
    return n;
}

}  // namespace

size_t format_rfc3339_utc(uint64_t timestamp_us, char* out, size_t cap) {
    constexpr size_t kLen = 27;  // YYYY-MM-DDThh:mm:ss.uuuuuuZ
    if (cap < kLen) return 0;
    const uint64_t secs = timestamp_us / 1000000;
    const uint64_t of_day = secs % 86400;
    const CivilDate d = civil_from_days(secs / 86400);
    put_fixed(d.year % 10000, 4, out);
    out[4] = '-';
    put_fixed(d.month, 2, out + 5);
    out[7] = '-';
    put_fixed(d.day, 2, out + 8);
    out[10] = 'T';
    put_fixed(of_day / 3600, 2, out + 11);
    out[13] = ':';
    put_fixed(of_day / 60 % 60, 2, out + 14);
    out[16] = ':';
    put_fixed(of_day % 60, 2, out + 17);
    out[19] = '.';
    put_fixed(timestamp_us % 1000000, 6, out + 20);
    out[26] = 'Z';
    return kLen;
}

size_t syslog_header_length(const NetlogRecord& rec, const SyslogOrigin& origin) {
    const std::string_view worker =
        (rec.worker.empty() ? "-" : rec.worker).substr(0, kNetlogWorkerMax);
    size_t escapes = 0;
    for (const char c : worker) escapes += c == '"' || c == '\\' || c == ']';
    const size_t host = std::min(origin.hostname.size(), kSyslogHostnameMax);
    // "<" PRI ">1 " TIME " " HOST " pmdfwd " PID (" - [" | " crash [") SD-ID
    // " seq=\"" SEQ "\" worker=\"" WORKER "\"] "
    return 1 + decimal_digits(uint64_t(origin.facility) * 8 + (rec.level & 7)) + 3 + 27 + 1 +
           (host ? host : 1) + 1 + kSyslogAppName.size() + 1 + decimal_digits(origin.pid) +
           (rec.crash ? 8 : 4) + kSyslogSdId.size() + 6 + decimal_digits(rec.seq) + 10 +
           worker.size() + escapes + 3;
}

size_t format_syslog_header(const NetlogRecord& rec, const SyslogOrigin& origin, char* out,
                            size_t cap) {
    if (cap < kSyslogHeadMax) return 0;
    size_t n = 0;
    out[n++] = '<';
    n += put_uint(uint64_t(origin.facility) * 8 + (rec.level & 7), out + n, cap - n);
    n += put_str(">1 ", out + n, cap - n);
    n += format_rfc3339_utc(rec.timestamp_us, out + n, cap - n);
    out[n++] = ' ';
    const std::string_view host = origin.hostname.substr(0, kSyslogHostnameMax);
    n += put_str(host.empty() ? "-" : host, out + n, cap - n);
    out[n++] = ' ';
    n += put_str(kSyslogAppName, out + n, cap - n);
    out[n++] = ' ';
    n += put_uint(origin.pid, out + n, cap - n);
    n += put_str(rec.crash ? " crash [" : " - [", out + n, cap - n);
    n += put_str(kSyslogSdId, out + n, cap - n);
    n += put_str(" seq=\"", out + n, cap - n);
    n += put_uint(rec.seq, out + n, cap - n);
    n += put_str("\" worker=\"", out + n, cap - n);
    n += put_param_value(rec.worker.empty() ? "-" : rec.worker, out + n, cap - n);
    n += put_str("\"] ", out + n, cap - n);
    return n;
}

}  // namespace pmdfwd
