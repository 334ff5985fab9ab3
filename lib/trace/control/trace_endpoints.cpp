// The packet trace's and drop capture's endpoints (see trace_endpoints.hpp).
// Telemetry thread, under the control lock.
#include "trace_endpoints.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>

#include "trace_api.hpp"

namespace pmdfwd {

namespace {

// The longest text a telemetry string carries, with room to spare.
constexpr size_t kMaxDetail = 120;

std::optional<std::string> from_hex(std::string_view hex) {
    if (hex.size() % 2) return std::nullopt;
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
        unsigned v = 0;
        for (size_t k = 0; k < 2; ++k) {
            const char c = hex[i + k];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= unsigned(c - 'a' + 10);
            else
                return std::nullopt;
        }
        out.push_back(char(v));
    }
    return out;
}

std::string to_hex(const uint8_t* p, size_t n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (size_t i = 0; i < n; ++i) {
        out.push_back(kDigits[p[i] >> 4]);
        out.push_back(kDigits[p[i] & 15]);
    }
    return out;
}

std::optional<DropReason> drop_reason_named(std::string_view name) {
    for (size_t i = 0; i < kDropReasonCount; ++i)
        if (kDropReasonNames[i] == name) return DropReason(i);
    return std::nullopt;
}

bool parse_count(std::string_view text, size_t max, uint32_t& out) {
    size_t v = 0;
    if (!parse_index(text, max + 1, v) || v == 0) return false;
    out = uint32_t(v);
    return true;
}

}  // namespace

TraceEndpoints::TraceEndpoints(TraceControl& control, TracePortNames ports, RouteNamer route_of)
    : control_(control), ports_(std::move(ports)), route_of_(std::move(route_of)) {
    using namespace endpoints;
    bindings_.emplace_back(kTraceStart,
                           [this](std::string_view p, Reply& r) { return trace_start(p, r); });
    bindings_.emplace_back(kTraceStop, [this](std::string_view p, Reply& r) {
        if (!p.empty()) return -EINVAL;
        control_.stop_trace();
        spdlog::info("trace stopped");
        r.record(trace_state());
        return 0;
    });
    bindings_.emplace_back(kTrace,
                           [this](std::string_view p, Reply& r) { return trace_page(p, r); });
    bindings_.emplace_back(kDropsStart,
                           [this](std::string_view p, Reply& r) { return drops_start(p, r); });
    bindings_.emplace_back(kDropsStop, [this](std::string_view p, Reply& r) {
        if (!p.empty()) return -EINVAL;
        control_.stop_drops();
        spdlog::info("drop capture stopped");
        r.record(drop_state());
        return 0;
    });
    bindings_.emplace_back(kDrops,
                           [this](std::string_view p, Reply& r) { return drops_page(p, r); });
}

Record TraceEndpoints::trace_state() const {
    const TraceStatus s = control_.trace_status();
    constexpr std::string_view kModes[] = {"count", "continuous", "drops"};
    const RecordSchema& t = kTraceStateRecord;
    Record rec(t);
    rec.set(t.at("state"), std::string(to_string(s.state)));
    rec.set(t.at("mode"), std::string(enum_name(kModes, s.options.mode)));
    rec.set(t.at("port"), s.options.port_name);
    rec.set(t.at("filter"),
            s.options.filter.empty() ? std::string("-") : s.options.filter.substr(0, 120));
    rec.set(t.at("count"), uint64_t(s.options.count));
    rec.set(t.at("traced"), uint64_t(s.traced));
    return rec;
}

Record TraceEndpoints::drop_state() {
    const DropStatus s = control_.drop_status();
    const RecordSchema& t = kDropCaptureRecord;
    Record rec(t);
    rec.set(t.at("state"), std::string(to_string(s.state)));
    rec.set(t.at("reason"), s.options.reason ? std::string(to_string(*s.options.reason)) : "-");
    rec.set(t.at("count"), uint64_t(s.options.count));
    rec.set(t.at("rate"), uint64_t(s.options.rate));
    rec.set(t.at("captured"), uint64_t(s.captured));
    rec.set(t.at("rate_limited"), s.rate_limited);
    rec.set(t.at("ring_full"), s.ring_full);
    rec.set(t.at("over_count"), s.over_count);
    return rec;
}

// /pmdfwd/trace_start,<port or ->,<count>,<mode>[,<filter in hex>]
int TraceEndpoints::trace_start(std::string_view params, Reply& reply) {
    const auto words = split_params(params);
    if (words.size() < 3 || words.size() > 4) return -EINVAL;
    TraceOptions o;
    if (words[0] != "-") {
        size_t i = 0;
        while (i < ports_.by_index.size() && ports_.by_index[i] != words[0]) ++i;
        if (i == ports_.by_index.size()) {
            reply.error("no port named '" + words[0] + "'");
            return 0;
        }
        o.port = ports_.ethdev_ids[i];
        o.port_name = words[0];
    }
    if (!parse_count(words[1], kMaxTraceCount, o.count)) {
        reply.error("the count must be 1 to " + std::to_string(kMaxTraceCount));
        return 0;
    }
    if (words[2] == "count")
        o.mode = TraceMode::count;
    else if (words[2] == "continuous")
        o.mode = TraceMode::continuous;
    else if (words[2] == "drops")
        o.mode = TraceMode::drops;
    else {
        reply.error("the mode must be count, continuous or drops");
        return 0;
    }
    if (words.size() == 4) {
        const auto filter = from_hex(words[3]);
        if (!filter) {
            reply.error("the filter must be its bytes in lower-case hex");
            return 0;
        }
        // What runs is what is shown and logged: no NUL (libpcap would stop
        // there) and no control character (it would forge a log line).
        for (const char c : *filter)
            if (uint8_t(c) < 0x20 || uint8_t(c) == 0x7f) {
                reply.error("the filter holds a control character");
                return 0;
            }
        o.filter = *filter;
    }
    if (auto st = control_.start_trace(o); !st) {
        reply.error(st.error().message);
        return 0;
    }
    trace_rows_.clear();
    spdlog::info("trace started: port {}, {} packets, mode {}, filter '{}'", o.port_name, o.count,
                 words[2], o.filter);
    reply.record(trace_state());
    return 0;
}

// /pmdfwd/trace,<first row>: row 0 takes a new snapshot, later rows read it.
int TraceEndpoints::trace_page(std::string_view params, Reply& reply) {
    size_t first = 0;
    if (!params.empty() && !parse_index(params, SIZE_MAX, first)) return -EINVAL;
    if (first == 0) {
        trace_rows_.clear();
        const RecordSchema& t = kTraceRecord;
        uint64_t number = 0;
        for (const TracedPacket& p : control_.traced()) {
            ++number;
            for (TraceRow& row : trace_rows(p.record, ports_, kMaxDetail, route_of_)) {
                Record rec(t);
                rec.set(t.at("packet"), number);
                rec.set(t.at("time_ns"), p.time_ns);
                rec.set(t.at("worker"), uint64_t(p.record.worker));
                rec.set(t.at("port"), ports_.of_ethdev(p.record.rx_port));
                rec.set(t.at("length"), uint64_t(p.record.pkt_len));
                rec.set(t.at("step"), std::move(row.step));
                rec.set(t.at("detail"), std::move(row.detail));
                trace_rows_.push_back(std::move(rec));
            }
        }
    }
    const size_t from = std::min(first, trace_rows_.size());
    const size_t n = std::min(kTracePageRows, trace_rows_.size() - from);
    reply.page(kTraceRecord, std::span<const Record>(trace_rows_.data() + from, n), first,
               trace_rows_.size());
    return 0;
}

// /pmdfwd/drops_start,<count>,<rate>,<reason or ->
int TraceEndpoints::drops_start(std::string_view params, Reply& reply) {
    const auto words = split_params(params);
    if (words.size() != 3) return -EINVAL;
    DropOptions o;
    if (!parse_count(words[0], kMaxDropCount, o.count)) {
        reply.error("the count must be 1 to " + std::to_string(kMaxDropCount));
        return 0;
    }
    if (!parse_count(words[1], 1000000, o.rate)) {
        reply.error("the rate must be 1 to 1000000 copies a second");
        return 0;
    }
    if (words[2] != "-") {
        o.reason = drop_reason_named(words[2]);
        if (!o.reason) {
            reply.error("no drop reason '" + words[2] +
                        "' (pmdctl fields lists them: drop_<reason>)");
            return 0;
        }
    }
    if (auto st = control_.start_drops(o); !st) {
        reply.error(st.error().message);
        return 0;
    }
    spdlog::info("drop capture started: {} packets, {} a second a worker, reason {}", o.count,
                 o.rate, words[2]);
    reply.record(drop_state());
    return 0;
}

// /pmdfwd/drops,<first row>: rows of kDropRowBytes, packet after packet.
int TraceEndpoints::drops_page(std::string_view params, Reply& reply) {
    size_t first = 0;
    if (!params.empty() && !parse_index(params, SIZE_MAX, first)) return -EINVAL;
    const RecordSchema& t = kDropRecord;
    std::vector<Record> rows;
    size_t row = 0;
    uint64_t number = 0;
    control_.each_dropped([&](const DroppedPacket& p) {
        ++number;
        const size_t n = p.bytes.size();
        const size_t packet_rows = n == 0 ? 1 : (n + kDropRowBytes - 1) / kDropRowBytes;
        for (size_t k = 0; k < packet_rows; ++k) {
            if (row + k < first || rows.size() == kDropPageRows) continue;
            const size_t off = k * kDropRowBytes;
            Record rec(t);
            rec.set(t.at("packet"), number);
            rec.set(t.at("reason"), std::string(to_string(p.reason)));
            rec.set(t.at("worker"), uint64_t(p.worker));
            rec.set(t.at("port"), ports_.of_ethdev(p.rx_port));
            rec.set(t.at("queue"), uint64_t(p.rx_queue));
            rec.set(t.at("time_ns"), p.time_ns);
            rec.set(t.at("length"), uint64_t(p.pkt_len));
            rec.set(t.at("captured"), uint64_t(n));
            rec.set(t.at("offset"), uint64_t(off));
            rec.set(t.at("data"), to_hex(p.bytes.data() + off, std::min(kDropRowBytes, n - off)));
            rows.push_back(std::move(rec));
        }
        row += packet_rows;
    });
    reply.page(t, rows, first, row);
    return 0;
}

}  // namespace pmdfwd
