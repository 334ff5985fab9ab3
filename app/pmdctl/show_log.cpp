// `pmdctl show log` (see renderers.hpp): the log channel's settings, what it
// sent and dropped, its buffers, and its send-latency histogram.
#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

bool is_off(const Json& log) {
    if (!log.is_object() || !log.contains("enabled")) return false;
    const Json& e = log.at("enabled");
    return (e.is_string() && e.get<std::string>() == "false") || (e.is_boolean() && !e.get<bool>());
}

}  // namespace

std::string render_log(const Json& log) {
    if (is_off(log)) return "log channel: off (set [netlog] enabled = true)\n";

    // Every field read here is marked shown; the rest go to "other fields".
    Shown shown = {"enabled"};
    const auto str = [&](const std::string& key) {
        shown.insert(key);
        return text(log, key);
    };
    const auto num = [&](std::string_view key) {
        shown.insert(std::string(key));
        return unit_cell(log, *pmdfwd::kLogRecord.find(key));
    };

    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value", Align::kLeft}};
    t.rows.push_back({"destination", str("dst") + " (" + str("dst_mac") + ") from " + str("src") +
                                         " via " + str("port") + " txq " + str("queue")});
    t.rows.push_back({"format", str("format")});
    t.rows.push_back({"level", str("level")});
    t.rows.push_back({"send path", str("send_path")});
    std::string rate = str("rate_limit");
    if (has(log, "rate_limit")) rate = u64(log, "rate_limit") ? rate + " datagrams/s" : "none";
    t.rows.push_back({"rate limit", rate});
    t.rows.push_back(
        {"sent", num("records") + " records, " + num("datagrams") + " datagrams, " + num("bytes")});
    t.rows.push_back({"truncated", num("truncated") + " records cut to fit 8191 bytes"});
    // Drop reasons: only the ones that happened, in the table's order.
    std::string dropped = num("dropped");
    std::string sep = ": ";
    for (const auto& f : pmdfwd::kLogRecord.group("drops")) {
        const std::string n = num(f.key);
        if (!u64(log, f.key)) continue;
        dropped += sep + std::string(f.member) + ' ' + n;
        sep = ", ";
    }
    t.rows.push_back({"dropped", dropped});
    t.rows.push_back({"reserve", str("reserve_free") + '/' + str("reserve_size") + " free"});
    t.rows.push_back({"pre-filled", str("prefilled") + '/' + str("prefill_target") + ", refilled " +
                                        num("refilled") + ", inline refills " +
                                        num("inline_refills") + ", reserve allocs " +
                                        num("reserve_allocs")});
    t.rows.push_back({"emergency", num("emergency_sends") + " sends"});
    std::string out = t.render();

    const pmdfwd::HistogramView sends = histogram_from(log, "latency");
    show_histogram(shown, "latency");
    if (sends.count == 0 && sends.counts.empty()) {
        out += "\nsend latency: no sends yet\n";
    } else {
        const auto ns = [&](const char* key) {
            return unit_text(pmdfwd::Unit::nanoseconds, u64(log, key));
        };
        out += "\nsend latency (" + pmdfwd::human_count(sends.count) +
               " datagrams, each from taking its buffer to the TX queue):\n";
        for (const auto& line : pmdfwd::histogram_bars(sends)) out += line + '\n';
        out += "p50 <= " + ns("latency_p50_ns") + "  p90 <= " + ns("latency_p90_ns") +
               "  p99 <= " + ns("latency_p99_ns") + "  max " + ns("latency_max_ns") + "  avg " +
               ns("latency_avg_ns") + '\n' +
               "(p50/p90/p99: the upper edge of the bucket the percentile falls in, within 25%)\n";
    }

    const std::string details = details_line("log", log, shown);
    if (!details.empty()) out += "\nother fields:\n" + details;
    return out;
}

}  // namespace pmdctl
