// pmdgen's report lines (see report.hpp).
#include "report.hpp"

#include <cstdio>

namespace pmdgen {

namespace {

std::string us(double ns) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f", ns / 1000);
    return buf;
}

std::string rate(uint64_t pkts, double span_s) {
    char buf[32];
    const double pps = span_s > 0 ? double(pkts) / span_s : 0;
    if (pps >= 1e6)
        std::snprintf(buf, sizeof(buf), "%.3f Mpps", pps / 1e6);
    else
        std::snprintf(buf, sizeof(buf), "%.1f kpps", pps / 1e3);
    return buf;
}

}  // namespace

uint64_t missing(const Report& r) {
    return r.counters.sent > r.unique ? r.counters.sent - r.unique : 0;
}

std::string report_line(const Report& r) {
    char head[64];
    std::snprintf(head, sizeof(head), "%s%7.1fs", r.final ? "total " : "", r.t_s);
    std::string line = std::string(head) + "  tx " + rate(r.sent_in_span, r.span_s) + "  rx " +
                       rate(r.received_in_span, r.span_s) + "  sent " +
                       std::to_string(r.counters.sent) + "  received " +
                       std::to_string(r.received) + (r.final ? "  lost " : "  missing ") +
                       std::to_string(missing(r)) + "  reordered " + std::to_string(r.reordered) +
                       "  duplicates " + std::to_string(r.duplicates);
    if (r.latency.count)
        line += "  latency us min/avg/p50/p99/max " + us(r.latency.min_ns) + "/" +
                us(r.latency.avg_ns) + "/" + us(r.latency.p50_ns) + "/" + us(r.latency.p99_ns) +
                "/" + us(r.latency.max_ns) + "  jitter " + us(r.jitter_ns) + " us";
    else
        line += "  latency -";
    if (r.counters.tx_full) line += "  tx_full " + std::to_string(r.counters.tx_full);
    if (r.counters.alloc_fail) line += "  alloc_fail " + std::to_string(r.counters.alloc_fail);
    if (r.counters.rx_other) line += "  rx_other " + std::to_string(r.counters.rx_other);
    return line;
}

nlohmann::json report_json(const Report& r) {
    const auto& l = r.latency;
    nlohmann::json lat = {{"count", l.count},
                          {"min_ns", l.min_ns},
                          {"avg_ns", l.avg_ns},
                          {"p50_ns", l.p50_ns},
                          {"p90_ns", l.p90_ns},
                          {"p99_ns", l.p99_ns},
                          {"p999_ns", l.p999_ns},
                          {"max_ns", l.max_ns},
                          {"delay_variation_ns", l.count ? l.max_ns - l.min_ns : 0.0}};
    // The summary carries the histogram in the wire format pmdfwd's
    // records use (le_ns: inclusive upper edges; buckets: counts).
    if (r.final) {
        lat["le_ns"] = r.histogram.le_ns;
        lat["buckets"] = r.histogram.counts;
    }
    return {{"type", r.final ? "summary" : "interval"},
            {"t_s", r.t_s},
            {"span_s", r.span_s},
            {"sent", r.counters.sent},
            {"received", r.received},
            {"unique", r.unique},
            {r.final ? "lost" : "missing", missing(r)},
            {"reordered", r.reordered},
            {"duplicates", r.duplicates},
            {"late", r.late},
            {"tx_full", r.counters.tx_full},
            {"alloc_fail", r.counters.alloc_fail},
            {"rx_other", r.counters.rx_other},
            {"tx_pps", r.span_s > 0 ? double(r.sent_in_span) / r.span_s : 0},
            {"rx_pps", r.span_s > 0 ? double(r.received_in_span) / r.span_s : 0},
            {"latency", lat},
            {"jitter_ns", r.jitter_ns}};
}

}  // namespace pmdgen
