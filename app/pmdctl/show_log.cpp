// `pmdctl show log` (see renderers.hpp): the log channel's settings, what it
// sent and dropped, its buffers, and its send-latency histogram.
#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

consteval FieldRef log_field(std::string_view key) { return pmdfwd::kLogRecord.ref(key); }

constexpr FieldRef kEnabled = log_field("enabled");
constexpr FieldRef kLatency = log_field("latency");

// "false" as a string or a boolean: both read as the text false.
bool is_off(const Json& log) { return text(log, kEnabled) == "false"; }

}  // namespace

std::string render_log(const Json& log) {
    if (is_off(log)) return "log channel: off (set [netlog] enabled = true)\n";

    // Every field read here is marked shown; the rest go to "other fields".
    Shown shown = {kEnabled};
    const auto str = [&](FieldRef f) {
        shown.insert(f);
        return text(log, f);
    };
    const auto num = [&](FieldRef f) {
        shown.insert(f);
        return unit_cell(log, f);
    };
    constexpr FieldRef kRateLimit = log_field("rate_limit");

    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value", Align::kLeft}};
    t.rows.push_back({"destination", str(log_field("dst")) + " (" + str(log_field("dst_mac")) +
                                         ") from " + str(log_field("src")) + " via " +
                                         str(log_field("port")) + " txq " +
                                         str(log_field("queue"))});
    t.rows.push_back({"format", str(log_field("format"))});
    t.rows.push_back({"level", str(log_field("level"))});
    t.rows.push_back({"send path", str(log_field("send_path"))});
    std::string rate = str(kRateLimit);
    if (has(log, kRateLimit)) rate = u64(log, kRateLimit) ? rate + " datagrams/s" : "none";
    t.rows.push_back({"rate limit", rate});
    t.rows.push_back({"sent", num(log_field("records")) + " records, " +
                                  num(log_field("datagrams")) + " datagrams, " +
                                  num(log_field("bytes"))});
    t.rows.push_back({"truncated", num(log_field("truncated")) + " records cut to fit 8191 bytes"});
    // Drop reasons: only the ones that happened, in the table's order.
    std::string dropped = num(log_field("dropped"));
    std::string sep = ": ";
    for (const auto f : group_refs(field_group(pmdfwd::kLogRecord, "drops"))) {
        const std::string n = num(f);
        if (!u64(log, f)) continue;
        dropped += sep + std::string(f.field().member) + ' ' + n;
        sep = ", ";
    }
    t.rows.push_back({"dropped", dropped});
    t.rows.push_back({"reserve", str(log_field("reserve_free")) + '/' +
                                     str(log_field("reserve_size")) + " free"});
    t.rows.push_back({"pre-filled", str(log_field("prefilled")) + '/' +
                                        str(log_field("prefill_target")) + ", refilled " +
                                        num(log_field("refilled")) + ", inline refills " +
                                        num(log_field("inline_refills")) + ", reserve allocs " +
                                        num(log_field("reserve_allocs"))});
    t.rows.push_back({"emergency", num(log_field("emergency_sends")) + " sends"});
    std::string out = t.render();

    const pmdfwd::HistogramView sends = histogram_from(log, kLatency);
    show_histogram(shown, kLatency);
    if (sends.count == 0 && sends.counts.empty()) {
        out += "\nsend latency: no sends yet\n";
    } else {
        const auto ns = [&](WireKey k) {
            return unit_text(pmdfwd::Unit::nanoseconds, u64(log, k));
        };
        out += "\nsend latency (" + pmdfwd::human_count(sends.count) +
               " datagrams, each from taking its buffer to the TX queue):\n";
        for (const auto& line : pmdfwd::histogram_bars(sends)) out += line + '\n';
        out += "p50 <= " + ns(wire_key(kLatency, "_p50_ns")) +
               "  p90 <= " + ns(wire_key(kLatency, "_p90_ns")) +
               "  p99 <= " + ns(wire_key(kLatency, "_p99_ns")) + "  max " +
               ns(wire_key(kLatency, "_max_ns")) + "  avg " + ns(wire_key(kLatency, "_avg_ns")) +
               '\n' +
               "(p50/p90/p99: the upper edge of the bucket the percentile falls in, within 25%)\n";
    }

    const std::string details = details_line("log", log, shown);
    if (!details.empty()) out += "\nother fields:\n" + details;
    return out;
}

}  // namespace pmdctl
