// The emergency log channel's wire formats: Linux netconsole's, so that its
// receivers (nc -u -l, socat, netconsd) work as they are, and syslog's, so
// that rsyslog, syslog-ng and log shippers read it without configuration.
// Pure: no DPDK, no allocation; safe in a signal handler.
//   extended: "<level>,<sequence>,<timestamp_us>,<flags>;<message>\n", and when
//             that is longer than one datagram's 1000 bytes, fragments with
//             ",ncfrag=<offset>/<total>" before the ';' (netconsole's rule)
//   plain:    the bare line, cut into 1000-byte datagrams
//   rfc5424:  one RFC 5424 message per datagram (RFC 5426), "<PRI>1 TIMESTAMP
//             HOSTNAME pmdfwd PROCID MSGID [pmdfwd@32473 seq=".." worker=".."]
//             MSG", at most 1000 bytes with its header, without a newline
// An extended or plain record is at most 8191 bytes, header and newline
// included, an rfc5424 one 1000: longer text is cut and ends in kNetlogCutMark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pmdfwd {

enum class NetlogFormat { extended, plain, rfc5424 };

// RFC 5424's facility codes (the PRI is facility * 8 + severity).
enum class SyslogFacility : uint8_t {
    kern = 0,
    user,
    mail,
    daemon,
    auth,
    syslog,
    lpr,
    news,
    uucp,
    cron,
    authpriv,
    ftp,
    local0 = 16,
    local1,
    local2,
    local3,
    local4,
    local5,
    local6,
    local7
};

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
// An rfc5424 record is one datagram: its header and text within this.
constexpr size_t kSyslogMessageMax = kNetlogPayloadMax;
// The SD-ID of the structured data: a private name under the enterprise
// number RFC 5612 sets aside for examples, as pmdfwd has none registered.
constexpr std::string_view kSyslogSdId = "pmdfwd@32473";
constexpr std::string_view kSyslogAppName = "pmdfwd";
// The longest hostname sent (Linux's HOST_NAME_MAX), and the longest worker
// label (a thread's name is at most 15 bytes).
constexpr size_t kSyslogHostnameMax = 64;
constexpr size_t kNetlogWorkerMax = 16;

struct NetlogRecord {
    uint8_t level = 6;  // syslog severity: 0 emerg ... 7 debug
    uint64_t seq = 0;
    uint64_t timestamp_us = 0;
    bool continuation = false;  // flags 'c' instead of '-'
    bool crash = false;         // part of a crash report (rfc5424: MSGID "crash")
    std::string_view worker;    // who logged it: a worker's id, or a thread's name
    std::string_view text;      // without the trailing newline
};

// What every rfc5424 header of one process says about its origin.
struct SyslogOrigin {
    SyslogFacility facility = SyslogFacility::daemon;
    std::string_view hostname;  // printable ASCII, at most kSyslogHostnameMax; "-" when empty
    uint32_t pid = 0;
};

// spdlog's levels (trace = 0 ... critical = 5) as syslog severities.
uint8_t syslog_severity(int spdlog_level);

// Calls emit(head, head_len, body, body_len) once per datagram, in order: the
// datagram is the head followed by the body slice, handed over as two pieces
// so the caller copies each byte once, straight into its buffer.
// Control characters are escaped as \xNN, and in the extended format also
// '\\' and bytes >= 0x7f (as the kernel's extended format does), so a record
// is always one line; the newline that ends it is added here (rfc5424: none).
// Text that would make the record longer than its format's limit is cut
// and marked. `origin` is needed by rfc5424 only. Returns the number of datagrams.
template <class Emit>
size_t for_each_datagram(const NetlogRecord& rec, NetlogFormat fmt, Emit&& emit,
                         const SyslogOrigin* origin = nullptr);

// The most bytes the escaped text, with its newline, may take in this record
// so that the whole record stays within its format's limit (rfc5424: the
// newline is counted here but not sent).
size_t netlog_text_room(const NetlogRecord& rec, NetlogFormat fmt,
                        const SyslogOrigin* origin = nullptr);

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
// The RFC 5424 header up to MSG, its trailing space included, into out;
// returns the length (at most kSyslogHeadMax).
size_t format_syslog_header(const NetlogRecord& rec, const SyslogOrigin& origin, char* out,
                            size_t cap);
// What format_syslog_header writes, counted without writing it: the room
// for the text is known before the channel's lock is taken.
size_t syslog_header_length(const NetlogRecord& rec, const SyslogOrigin& origin);
// "2026-12-04T22:22:56.123456Z" (27 bytes) for microseconds since the epoch.
size_t format_rfc3339_utc(uint64_t timestamp_us, char* out, size_t cap);
// "<191>1 " + time + host + app + pid + "crash " + SD with a 20-digit seq
// and a worker of kNetlogWorkerMax bytes, each escaped.
constexpr size_t kSyslogHeadMax = 7 + 28 + kSyslogHostnameMax + 1 + 7 + 11 + 6 + 1 +
                                  kSyslogSdId.size() + 6 + 20 + 10 + 2 * kNetlogWorkerMax + 3;

// The datagrams of one record over text escape_text has already produced
// (the log channel escapes before it takes its lock). The extended head is
// formatted once, for counting and for sending alike.
class RecordDatagrams {
  public:
    RecordDatagrams(const NetlogRecord& rec, NetlogFormat fmt, const char* body, size_t body_len,
                    const SyslogOrigin* origin = nullptr);
    // Without formatting anything when the record fits one datagram.
    size_t count() const;
    // Calls emit(head, head_len, body, body_len) per datagram; returns their number.
    template <class Emit>
    size_t for_each(Emit&& emit);

  private:
    NetlogFormat fmt_;
    const char* body_;
    size_t body_len_;
    size_t head_len_ = 0;  // extended: the head without ';' or a fragment field
    char head_[kSyslogHeadMax > 96 ? kSyslogHeadMax : 96];
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
    if (fmt_ == NetlogFormat::rfc5424) {  // one datagram, the text's newline left off
        emit(head_, head_len_, body_, body_len_ - 1);
        return 1;
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
size_t for_each_datagram(const NetlogRecord& rec, NetlogFormat fmt, Emit&& emit,
                         const SyslogOrigin* origin) {
    char body[kNetlogRecordMax];
    const EscapedLength e = escape_text(rec.text, body, netlog_text_room(rec, fmt, origin), fmt);
    return RecordDatagrams(rec, fmt, body, e.len, origin).for_each(emit);
}

}  // namespace pmdfwd
