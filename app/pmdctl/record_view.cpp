// Field access and unit formatting (see record_view.hpp).
#include "record_view.hpp"

#include <algorithm>

#include "record_schemas.hpp"
#include "units.hpp"

namespace pmdctl {

using pmdfwd::Unit;

namespace {

// The one place a record is read by its key, for a FieldRef or a WireKey.
const Json* value_at(const Json& rec, const std::string& key) {
    if (!rec.is_object()) return nullptr;
    const auto it = rec.find(key);
    return it == rec.end() ? nullptr : &*it;
}

}  // namespace

const Json* value(const Json& rec, FieldRef f) { return value_at(rec, std::string(f.key())); }

bool has(const Json& rec, FieldRef f) { return value(rec, f) != nullptr; }

uint64_t u64(const Json& rec, FieldRef f) {
    const Json* v = value(rec, f);
    return v ? number(*v) : 0;
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

std::string text(const Json& rec, FieldRef f) {
    const Json* v = value(rec, f);
    return v ? scalar_text(*v) : "-";
}

std::string count_cell(const Json& rec, FieldRef f) {
    return has(rec, f) ? pmdfwd::human_count(u64(rec, f)) : "-";
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

std::string unit_cell(const Json& rec, FieldRef f) {
    const Json* v = value(rec, f);
    if (!v) return "-";
    if (!v->is_number()) return scalar_text(*v);
    return unit_text(f.field().unit, number(*v));
}

namespace {

FieldRef ref_to(const pmdfwd::RecordSchema& schema, const pmdfwd::Field& f) {
    return {&schema, pmdfwd::FieldId{uint16_t(&f - schema.fields.data())}};
}

}  // namespace

std::vector<FieldRef> field_refs(const pmdfwd::RecordSchema& schema) {
    std::vector<FieldRef> out;
    for (const auto& f : schema.fields) out.push_back(ref_to(schema, f));
    return out;
}

std::vector<FieldRef> group_refs(FieldGroup group) {
    std::vector<FieldRef> out;
    for (const auto& f : group.schema->group(group.name)) out.push_back(ref_to(*group.schema, f));
    return out;
}

std::string WireKey::key() const { return std::string(histogram.key()) + std::string(suffix); }

bool has(const Json& rec, WireKey k) { return value_at(rec, k.key()) != nullptr; }

uint64_t u64(const Json& rec, WireKey k) {
    const Json* v = value_at(rec, k.key());
    return v ? number(*v) : 0;
}

std::string count_cell(const Json& rec, WireKey k) {
    return has(rec, k) ? pmdfwd::human_count(u64(rec, k)) : "-";
}

std::string details_line(const std::string& label, const Json& rec, const Shown& shown) {
    std::string line;
    if (rec.is_object())
        for (const auto& [key, value] : rec.items()) {
            if (shown.contains(key)) continue;
            line += ' ' + key + '=' + scalar_text(value);
        }
    return line.empty() ? "" : "  " + label + ':' + line + '\n';
}

namespace {

std::vector<uint64_t> numbers(const Json& rec, WireKey k) {
    std::vector<uint64_t> out;
    const Json* array = value_at(rec, k.key());
    if (!array || !array->is_array()) return out;
    for (const auto& v : *array) out.push_back(number(v));
    return out;
}

}  // namespace

pmdfwd::HistogramView histogram_from(const Json& rec, FieldRef f) {
    pmdfwd::HistogramView v;
    v.count = u64(rec, WireKey{f, wire_suffix("_count")});
    v.sum_ns = u64(rec, WireKey{f, wire_suffix("_sum_ns")});
    v.min_ns = u64(rec, WireKey{f, wire_suffix("_min_ns")});
    v.max_ns = u64(rec, WireKey{f, wire_suffix("_max_ns")});
    v.le_ns = numbers(rec, WireKey{f, wire_suffix("_le_ns")});
    v.counts = numbers(rec, WireKey{f, wire_suffix("_buckets")});
    // A malformed pair (lengths differ) draws as far as both go.
    const size_t n = std::min(v.le_ns.size(), v.counts.size());
    v.le_ns.resize(n);
    v.counts.resize(n);
    return v;
}

void show_histogram(Shown& shown, FieldRef f) {
    for (const auto& w : pmdfwd::kHistogramWire) shown.insert(WireKey{f, w.suffix});
}

std::string worker_path(const Json& worker) {
    constexpr auto kRxPort = pmdfwd::kWorkerRecord.ref("rx_port");
    constexpr auto kRxQueue = pmdfwd::kWorkerRecord.ref("rx_queue");
    constexpr auto kTxPort = pmdfwd::kWorkerRecord.ref("tx_port");
    constexpr auto kTxQueue = pmdfwd::kWorkerRecord.ref("tx_queue");
    std::string s = text(worker, kRxPort) + '/' + text(worker, kRxQueue) + " -> ";
    const std::string tx = text(worker, kTxPort);
    return tx == "-" ? s + "-" : s + tx + '/' + text(worker, kTxQueue);
}

bool any_has(const std::vector<Json>& records, FieldRef f) {
    return std::any_of(records.begin(), records.end(), [&](const Json& r) { return has(r, f); });
}

bool any_nonzero(const std::vector<Json>& records, FieldRef f) {
    return std::any_of(records.begin(), records.end(), [&](const Json& r) { return u64(r, f); });
}

}  // namespace pmdctl
