// `pmdctl trace show|start|stop` and the drop capture's state (see
// renderers.hpp): a packet's headers, then its path a step a line.
#include <chrono>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"

namespace pmdctl {

namespace {

// "19:45:02.123456789" in UTC: a trace spans seconds, not days.
std::string clock_text(uint64_t ns) {
    const std::time_t s = std::time_t(ns / 1000000000);
    std::tm tm{};
    gmtime_r(&s, &tm);
    std::ostringstream out;
    out << std::put_time(&tm, "%H:%M:%S") << '.' << std::setw(9) << std::setfill('0')
        << ns % 1000000000;
    return out.str();
}

std::string key_values(const pmdfwd::RecordSchema& schema, const Json& rec) {
    std::string out;
    for (const auto f : field_refs(schema))
        if (has(rec, f))
            out += (out.empty() ? "" : ", ") + std::string(f.key()) + " " + text(rec, f);
    return out + "\n";
}

}  // namespace

std::string render_trace(const Json& rows) {
    using pmdfwd::kTraceRecord;
    constexpr FieldRef kPacket = kTraceRecord.ref("packet");
    constexpr FieldRef kTime = kTraceRecord.ref("time_ns");
    constexpr FieldRef kPort = kTraceRecord.ref("port");
    constexpr FieldRef kLength = kTraceRecord.ref("length");
    constexpr FieldRef kStep = kTraceRecord.ref("step");
    constexpr FieldRef kDetail = kTraceRecord.ref("detail");
    if (!rows.is_array() || rows.empty()) return "no packet traced\n";
    std::string out;
    uint64_t packet = 0;
    std::string headers;
    const auto flush_headers = [&] {
        if (!headers.empty()) out += "  " + headers + "\n";
        headers.clear();
    };
    for (const auto& row : rows) {
        const uint64_t p = u64(row, kPacket);
        if (p != packet) {
            flush_headers();
            out += (packet ? "\n" : "") + std::string("packet ") + std::to_string(p) + " at " +
                   clock_text(u64(row, kTime)) + ", " + text(row, kLength) + " bytes in on " +
                   text(row, kPort) + "\n";
            packet = p;
        }
        const std::string step = text(row, kStep);
        if (step == "headers") {
            headers += (headers.empty() ? "" : ", ") + text(row, kDetail);
            continue;
        }
        flush_headers();
        std::string name = step;
        name.resize(std::max<size_t>(name.size(), 12), ' ');
        out += "    " + name + " " + text(row, kDetail) + "\n";
    }
    flush_headers();
    return out;
}

std::string render_trace_state(const Json& state) {
    return "trace: " + key_values(pmdfwd::kTraceStateRecord, state);
}

std::string render_drop_state(const Json& state) {
    return "drop capture: " + key_values(pmdfwd::kDropCaptureRecord, state);
}

}  // namespace pmdctl
