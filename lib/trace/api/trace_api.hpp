// The packet trace's and the drop capture's side of the control protocol,
// declared once: their records and endpoints. pmdctl and the docs read
// these; lib/trace/control serves them. Pure: no DPDK.
#pragma once

#include <cstddef>

#include "endpoint.hpp"
#include "fields.hpp"

namespace pmdfwd {

namespace fields {

inline constexpr Field kTraceFields[] = {
    {"packet", Unit::none, Kind::gauge, "the traced packet's number, 1 up from the oldest kept"},
    {"time_ns", Unit::nanoseconds, Kind::gauge,
     "when its burst was received, in ns since the Unix epoch"},
    {"worker", Unit::none, Kind::gauge, "the worker that received it"},
    {"port", Unit::none, Kind::info, "the port it came in on"},
    {"length", Unit::bytes, Kind::gauge, "its length on the wire"},
    {"step", Unit::none, Kind::info,
     "headers (the decoded headers, in as many rows as they take), received, classified, "
     "looked_up, route (the destination's route now), rewritten, handed_off, punted, "
     "transmitted or dropped"},
    {"detail", Unit::none, Kind::info, "what the step found or did, in words"},
};

inline constexpr Field kTraceStateFields[] = {
    {"state", Unit::none, Kind::info,
     "on; done (its count is reached: it stopped by itself); off; none (no trace since start)"},
    {"mode", Unit::none, Kind::info,
     "count (the first N packets), continuous (keeps the last N) or drops (the first N dropped)"},
    {"port", Unit::none, Kind::info, "the rx port it traces; - for every port"},
    {"filter", Unit::none, Kind::info, "its filter in tcpdump syntax (cut at 120 bytes); - none"},
    {"count", Unit::packets, Kind::gauge, "the N it was started with"},
    {"traced", Unit::packets, Kind::gauge, "packets traced so far that are still kept"},
};

inline constexpr Field kDropFields[] = {
    {"packet", Unit::none, Kind::gauge, "the dropped packet's number in the capture, 1 up"},
    {"reason", Unit::none, Kind::info, "its drop reason, by the name of its counter"},
    {"worker", Unit::none, Kind::gauge, "the worker that dropped it"},
    {"port", Unit::none, Kind::info, "the port it came in on"},
    {"queue", Unit::none, Kind::gauge, "the rx queue it came in on"},
    {"time_ns", Unit::nanoseconds, Kind::gauge,
     "when its burst was received, in ns since the Unix epoch"},
    {"length", Unit::bytes, Kind::gauge, "its length on the wire"},
    {"captured", Unit::bytes, Kind::gauge, "bytes of it copied (at most 2016)"},
    {"offset", Unit::bytes, Kind::gauge, "where this row's bytes start in the frame"},
    {"data", Unit::none, Kind::info, "up to 48 of its bytes from offset, in hex"},
};

inline constexpr Field kDropCaptureFields[] = {
    {"state", Unit::none, Kind::info,
     "on; done (its count is reached); off; none (no capture since start)"},
    {"reason", Unit::none, Kind::info, "the drop reason it copies; - for every reason"},
    {"count", Unit::packets, Kind::gauge, "the most packets it keeps"},
    {"rate", Unit::packets, Kind::gauge, "the most copies a second each worker makes"},
    {"captured", Unit::packets, Kind::gauge, "dropped packets copied and kept so far"},
    {"rate_limited", Unit::packets, Kind::gauge,
     "drops of the reason not copied: over the rate (a drop storm costs no more than it)"},
    {"ring_full", Unit::packets, Kind::gauge,
     "drops not copied: the worker's ring of copies was full, not yet read"},
    {"over_count", Unit::packets, Kind::gauge, "drops not copied: the count was reached"},
};

}  // namespace fields

inline constexpr RecordSchema kTraceRecord{
    "trace", "A row of the packet trace: one step of one traced packet, or its headers.",
    fields::kTraceFields};
inline constexpr RecordSchema kTraceStateRecord{"trace_state", "The packet trace's state.",
                                                fields::kTraceStateFields};
inline constexpr RecordSchema kDropRecord{
    "drop", "A row of the drop capture: up to 48 bytes of one dropped packet.",
    fields::kDropFields};
inline constexpr RecordSchema kDropCaptureRecord{
    "drop_capture", "The drop capture's state and what it did since it started.",
    fields::kDropCaptureFields};

// The most packets a trace or a capture keeps.
inline constexpr size_t kMaxTraceCount = 16384;
inline constexpr size_t kMaxDropCount = 10000;
// Rows a page of them answers with: under the reply's 16 KB.
inline constexpr size_t kTracePageRows = 40;
inline constexpr size_t kDropPageRows = 60;
inline constexpr size_t kDropRowBytes = 48;

namespace endpoints {

inline constexpr Endpoint kTraceStart{
    .path = "/pmdfwd/trace_start",
    .help =
        "Start a packet trace. Parameters: port or -, count, count|continuous|drops[, filter "
        "in hex]",
    .schema = &kTraceStateRecord,
    .parameter =
        "`port,count,mode[,filter]`: the rx port's name or `-` for all; how many packets "
        "(1 to 16384); `count` (the first N), `continuous` (the last N) or `drops` (the "
        "first N dropped); a tcpdump filter, its bytes in hex",
    .returns = "the trace's state; a bad port, count or filter is an `error` naming it"};
inline constexpr Endpoint kTraceStop{.path = "/pmdfwd/trace_stop",
                                     .help = "Stop the packet trace; what it traced is kept.",
                                     .schema = &kTraceStateRecord,
                                     .returns = "the trace's state"};
inline constexpr Endpoint kTrace{
    .path = "/pmdfwd/trace",
    .help = "The packet trace's records, a row a step. Parameters: int first_row",
    .shape = Shape::page,
    .schema = &kTraceRecord,
    .parameter = "first row (0 takes a new snapshot of the trace)",
    .returns = "the traced packets, oldest first: their headers, then a row each step"};
inline constexpr Endpoint kDropsStart{
    .path = "/pmdfwd/drops_start",
    .help = "Start copying dropped packets. Parameters: count, rate a worker, reason or -",
    .schema = &kDropCaptureRecord,
    .parameter =
        "`count,rate,reason`: how many packets to keep (1 to 10000), copies a second a "
        "worker at most, a drop reason or `-` for all",
    .returns = "the capture's state; a bad count, rate or reason is an `error` naming it"};
inline constexpr Endpoint kDropsStop{.path = "/pmdfwd/drops_stop",
                                     .help = "Stop copying dropped packets; the copies are kept.",
                                     .schema = &kDropCaptureRecord,
                                     .returns = "the capture's state"};
inline constexpr Endpoint kDrops{
    .path = "/pmdfwd/drops",
    .help = "The dropped packets copied so far, in rows of 48 bytes. Parameters: int first_row",
    .shape = Shape::page,
    .schema = &kDropRecord,
    .parameter = "first row",
    .returns = "the copies, oldest first, each in rows of up to 48 bytes (`data`, hex)"};

inline constexpr const Endpoint* kTraceEndpoints[] = {&kTraceStart, &kTraceStop, &kTrace,
                                                      &kDropsStart, &kDropsStop, &kDrops};

}  // namespace endpoints

}  // namespace pmdfwd
