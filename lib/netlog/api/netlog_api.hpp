// The log channel's side of the control protocol, declared once: its
// records and endpoints. pmdctl and the docs read these; lib/netlog fills
// the log record, the appliance serves both. Pure: no DPDK.
#pragma once

#include "endpoint.hpp"
#include "fields.hpp"
#include "netlog_counters.hpp"

namespace pmdfwd {

namespace fields {

inline constexpr Field kLogFields[] = {
    {"enabled", Unit::none, Kind::info,
     "true when [netlog] enabled; false: the record has no other field"},
    {"port", Unit::none, Kind::info, "the port the channel sends from"},
    {"queue", Unit::none, Kind::info, "the channel's own TX queue on that port"},
    {"src", Unit::none, Kind::info, "the source IPv4 address and UDP port"},
    {"dst", Unit::none, Kind::info, "the receiver's IPv4 address and UDP port"},
    {"dst_mac", Unit::none, Kind::info, "the next hop's MAC"},
    {"format", Unit::none, Kind::info,
     "extended (netconsole's extended format, gap-free sequence numbers), plain, or rfc5424 "
     "(syslog)"},
    {"level", Unit::none, Kind::info, "the lowest level sent"},
    {"send_path", Unit::none, Kind::info,
     "pool-first (take a pre-filled buffer, allocate only when none is left) or alloc-first"},
    {"rate_limit", Unit::datagrams, Kind::info, "the token bucket's datagrams per second; 0: none"},
    PMDFWD_NETLOG_COUNTERS(PMDFWD_LIST_FIELD)  //
    {"dropped", Unit::events, Kind::counter, "drops of all reasons"},
    PMDFWD_NETLOG_DROPS(PMDFWD_LIST_DROP_FIELD)  //
    {"reserve_size", Unit::mbufs, Kind::info, "buffers in the channel's own pool"},
    {"reserve_free", Unit::mbufs, Kind::gauge,
     "free buffers in it (the pre-filled ones and those in the TX ring are not free)"},
    {"prefill_target", Unit::mbufs, Kind::info, "pre-filled buffers kept ([netlog] prefill)"},
    {"prefilled", Unit::mbufs, Kind::gauge, "pre-filled buffers ready now"},
    {"latency", Unit::nanoseconds, Kind::histogram,
     "each datagram's send, from taking its buffer to handing it to the TX queue (or dropping "
     "it)"},
};

inline constexpr Field kLogTestFields[] = {
    {"result", Unit::none, Kind::info, "logged"},
    {"bytes", Unit::bytes, Kind::info, "the length of each warning logged"},
    {"count", Unit::none, Kind::info, "the warnings logged, one after the other"},
    {"channel", Unit::none, Kind::info, "on or off: whether the log channel sends it"},
};

}  // namespace fields

inline constexpr RecordSchema kLogRecord{
    "log",
    "The emergency log channel; its counters run from pmdfwd's start (clear stats leaves them).",
    fields::kLogFields};
inline constexpr RecordSchema kLogTestRecord{"log_test", "The answer to a test record.",
                                             fields::kLogTestFields};

static_assert(kLogRecord.group("drops").size() == kNetlogDropCount);

// The longest test record: twice the log channel's record limit
// (kNetlogRecordMax), so that the cut of a record too long for netconsole
// can be checked end to end.
inline constexpr size_t kMaxTestRecord = 16 * 1024;
// The most test records one request logs: the log channel's default burst
// (rate_burst), so a receiver can be checked at the rate the channel is sized for.
inline constexpr size_t kMaxTestRecords = 200;

namespace endpoints {

inline constexpr Endpoint kLog{
    .path = "/pmdfwd/log",
    .help = "The emergency log channel: records sent, drops by reason, reserve, send latency.",
    .shape = Shape::record,
    .schema = &kLogRecord,
    .returns =
        "the emergency log channel's settings, counters, drop reasons, buffers and "
        "send-latency histogram `latency`, since pmdfwd started (see show log). Off: "
        "`enabled` (`\"false\"`) and nothing else"};
inline constexpr Endpoint kLogTest{
    .path = "/pmdfwd/log_test",
    .help =
        "Log 1-200 warnings of a length (0-16384) to check the log channel end to end. "
        "Parameters: int bytes[,int count]",
    .shape = Shape::record,
    .schema = &kLogTestRecord,
    .parameter = "bytes (0-16384)[,count (1-200, default 1)]",
    .returns =
        "`result` (`\"logged\"`), `bytes`, `count`, `channel` (`\"on\"`/`\"off\"`). Logs "
        "`count` warnings of that many characters (\"netlog test record of N bytes: 0 1 2 "
        "...\"), so the log channel can be checked end to end, fragments included: `printf "
        "'/pmdfwd/log_test,2500\\n' \\| dpdk-telemetry.py -f PREFIX`. The channel cuts a "
        "record past 8191 bytes, head included (about 8150 bytes of text; rfc5424: 1000 "
        "bytes), marks it `...[truncated]` and counts it in `truncated`; the console and the "
        "log file keep it whole. At most 5 records a second (200 at once) and 4096 bytes of "
        "them a second (32768 at once)"};

inline constexpr const Endpoint* kNetlogEndpoints[] = {&kLog, &kLogTest};

}  // namespace endpoints

}  // namespace pmdfwd
