// Field access and unit formatting (see record_view.hpp).
#include "record_view.hpp"

#include <algorithm>

#include "units.hpp"

namespace pmdctl {

using pmdfwd::Unit;

bool has(const Json& rec, std::string_view key) {
    return rec.is_object() && rec.contains(std::string(key));
}

uint64_t u64(const Json& rec, std::string_view key) {
    return has(rec, key) ? number(rec.at(std::string(key))) : 0;
}

uint64_t number(const Json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer()) return v.get<int64_t>() < 0 ? 0 : uint64_t(v.get<int64_t>());
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (!(d > 0)) return 0;
        return d >= 18446744073709551615.0 ? UINT64_MAX : uint64_t(d);
    }
    return 0;
}

std::string scalar_text(const Json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    if (v.is_number_float()) return pmdfwd::format_double("%g", v.get<double>());
    return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string text(const Json& rec, std::string_view key) {
    return has(rec, key) ? scalar_text(rec.at(std::string(key))) : "-";
}

std::string count_cell(const Json& rec, std::string_view key) {
    return has(rec, key) ? pmdfwd::human_count(u64(rec, key)) : "-";
}

std::string unit_text(Unit unit, uint64_t v) {
    switch (unit) {
        case Unit::none:
        case Unit::hertz:
        case Unit::seconds:
            return std::to_string(v);
        case Unit::bytes:
            return pmdfwd::human_bytes(v);
        case Unit::nanoseconds:
            return pmdfwd::human_ns(v);
        case Unit::permille:
            return pmdfwd::permille_text(v);
        default:
            return pmdfwd::human_count(v);  // packets, mbufs, polls, cycles, ...
    }
}

std::string unit_cell(const Json& rec, const pmdfwd::Field& f) {
    if (!has(rec, f.key)) return "-";
    const Json& v = rec.at(std::string(f.key));
    if (!v.is_number()) return scalar_text(v);
    return unit_text(f.unit, u64(rec, f.key));
}

std::string details_line(const std::string& label, const Json& rec, const Shown& shown) {
    std::string line;
    if (rec.is_object())
        for (const auto& [key, value] : rec.items()) {
            if (shown.count(key)) continue;
            line += ' ' + key + '=' + scalar_text(value);
        }
    return line.empty() ? "" : "  " + label + ':' + line + '\n';
}

namespace {

std::vector<uint64_t> numbers(const Json& rec, const std::string& key) {
    std::vector<uint64_t> out;
    if (!has(rec, key) || !rec.at(key).is_array()) return out;
    for (const auto& v : rec.at(key)) out.push_back(number(v));
    return out;
}

}  // namespace

pmdfwd::HistogramView histogram_from(const Json& rec, std::string_view key) {
    const std::string k(key);
    pmdfwd::HistogramView v;
    v.count = u64(rec, k + "_count");
    v.sum_ns = u64(rec, k + "_sum_ns");
    v.min_ns = u64(rec, k + "_min_ns");
    v.max_ns = u64(rec, k + "_max_ns");
    v.le_ns = numbers(rec, k + "_le_ns");
    v.counts = numbers(rec, k + "_buckets");
    // A malformed pair (lengths differ) draws as far as both go.
    const size_t n = std::min(v.le_ns.size(), v.counts.size());
    v.le_ns.resize(n);
    v.counts.resize(n);
    return v;
}

void show_histogram(Shown& shown, std::string_view key) {
    for (const auto& w : pmdfwd::kHistogramWire)
        shown.insert(std::string(key) + std::string(w.suffix));
}

std::string worker_path(const Json& w) {
    std::string s = text(w, "rx_port") + '/' + text(w, "rx_queue") + " -> ";
    const std::string tx = text(w, "tx_port");
    return tx == "-" ? s + "-" : s + tx + '/' + text(w, "tx_queue");
}

bool any_has(const std::vector<Json>& records, std::string_view key) {
    return std::any_of(records.begin(), records.end(), [&](const Json& r) { return has(r, key); });
}

bool any_nonzero(const std::vector<Json>& records, std::string_view key) {
    return std::any_of(records.begin(), records.end(), [&](const Json& r) { return u64(r, key); });
}

}  // namespace pmdctl
