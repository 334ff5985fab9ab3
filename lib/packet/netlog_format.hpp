// The emergency log channel's wire format, compatible with Linux netconsole
// so that its receivers (nc -u -l, socat, netconsd) work as they are.
// Pure: no DPDK, no allocation; safe in a signal handler.
//   extended: "<level>,<sequence>,<timestamp_us>,<flags>;<message>\n", and when
//             that is longer than one datagram's 1000 bytes, fragments with
//             ",ncfrag=<offset>/<total>" before the ';' (netconsole's rule)
//   plain:    the bare line, cut into 1000-byte datagrams
// A record is at most 8191 bytes, header and newline included: longer text
// is cut and ends in kNetlogCutMark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pmdfwd {

enum class NetlogFormat { extended, plain };

// netconsole's MAX_PRINT_CHUNK: the most payload one datagram carries.
constexpr size_t kNetlogPayloadMax = 1000;
// The kernel's CONSOLE_EXT_LOG_MAX: an extended record, header included, is
// shorter than this, and netconsd refuses a fragmented record whose ncfrag
// total is this or more. A record longer than a receiver accepts is lost
// whole, so pmdfwd cuts its text instead.
constexpr size_t kNetconsoleRecordLimit = 8192;
// The longest record sent: extended, the head, ';', the text and the
// newline; plain (no head), the text and the newline. 9 datagrams at most.
constexpr size_t kNetlogRecordMax = kNetconsoleRecordLimit - 1;
// Ends the text of a record that was cut, before its newline.
constexpr std::string_view kNetlogCutMark = "...[truncated]";

struct NetlogRecord {
    uint8_t level = 6;  // syslog severity: 0 emerg ... 7 debug
    uint64_t seq = 0;
    uint64_t timestamp_us = 0;
    bool continuation = false;  // flags 'c' instead of '-'
    std::string_view text;      // without the trailing newline
};

// spdlog's levels (trace = 0 ... critical = 5) as syslog severities.
uint8_t syslog_severity(int spdlog_level);

// Calls emit(head, head_len, body, body_len) once per datagram, in order: the
// datagram is the head followed by the body slice, handed over as two pieces
// so the caller copies each byte once, straight into its buffer.
// Control characters are escaped as \xNN, and in the extended format also
// '\\' and bytes >= 0x7f (as the kernel's extended format does), so a record
// is always one line; the newline that ends it is added here.
// Text that would make the record longer than kNetlogRecordMax is cut
// and marked. Returns the number of datagrams.
template <class Emit>
size_t for_each_datagram(const NetlogRecord& rec, NetlogFormat fmt, Emit&& emit);

// The most bytes the escaped text, with its newline, may take in this record
// so that the whole record stays within kNetlogRecordMax.
size_t netlog_text_room(const NetlogRecord& rec, NetlogFormat fmt);

struct EscapedLength {
    size_t len = 0;    // the newline included
    bool cut = false;  // the text did not fit: it ends in kNetlogCutMark
};
// Escapes `text` into out (capacity `cap`) and adds '\n'; never writes past
// cap. Text that does not fit is cut between bytes, never inside an escape
// or a UTF-8 character (a lead byte never loses the bytes that follow it),
// where kNetlogCutMark and the newline still fit after it.
EscapedLength escape_text(std::string_view text, char* out, size_t cap, NetlogFormat fmt);
// "<level>,<seq>,<ts>,<flag>" into out; returns the length.
size_t format_ext_header(const NetlogRecord& rec, char* out, size_t cap);
// ",ncfrag=<offset>/<total>;" into out; returns the length.
size_t format_frag_field(size_t offset, size_t total, char* out, size_t cap);

// The datagrams of one record over text escape_text has already produced
// (the log channel escapes before it takes its lock). The extended head is
// formatted once, for counting and for sending alike.
class RecordDatagrams {
  public:
    RecordDatagrams(const NetlogRecord& rec, NetlogFormat fmt, const char* body, size_t body_len);
    // Without formatting anything when the record fits one datagram.
    size_t count() const;
    // Calls emit(head, head_len, body, body_len) per datagram; returns their number.
    template <class Emit>
    size_t for_each(Emit&& emit);

  private:
    NetlogFormat fmt_;
    const char* body_;
    size_t body_len_;
    size_t head_len_ = 0;  // the extended head without ';' or a fragment field
    char head_[96];
};

template <class Emit>
size_t RecordDatagrams::for_each(Emit&& emit) {
    size_t sent = 0;
    if (fmt_ == NetlogFormat::plain) {
        for (size_t off = 0; off < body_len_; off += kNetlogPayloadMax, ++sent) {
            const size_t n =
                body_len_ - off < kNetlogPayloadMax ? body_len_ - off : kNetlogPayloadMax;
            emit(head_, size_t(0), body_ + off, n);
        }
        return sent;
    }
    if (head_len_ + 1 + body_len_ <= kNetlogPayloadMax) {
        head_[head_len_] = ';';
        emit(head_, head_len_ + 1, body_, body_len_);
        return 1;
    }
    for (size_t off = 0; off < body_len_; ++sent) {
        const size_t h = head_len_ + format_frag_field(off, body_len_, head_ + head_len_,
                                                       sizeof(head_) - head_len_);
        const size_t room = kNetlogPayloadMax - h;
        const size_t n = body_len_ - off < room ? body_len_ - off : room;
        emit(head_, h, body_ + off, n);
        off += n;
    }
    return sent;
}

template <class Emit>
size_t for_each_datagram(const NetlogRecord& rec, NetlogFormat fmt, Emit&& emit) {
    char body[kNetlogRecordMax];
    const EscapedLength e = escape_text(rec.text, body, netlog_text_room(rec, fmt), fmt);
    return RecordDatagrams(rec, fmt, body, e.len).for_each(emit);
}

}  // namespace pmdfwd
