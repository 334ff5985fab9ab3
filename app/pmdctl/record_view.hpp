// Reading pmdfwd's records (JSON objects) for display, by their field
// tables (record_schemas.hpp): a missing field prints as "-" and reads as 0,
// never throws; a field's unit decides how it reads. Every reader takes a
// FieldRef (RecordSchema::ref), so a misspelt or removed field does not
// compile. Pure.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fields.hpp"
#include "histogram.hpp"
#include "record_schemas.hpp"
#include "telemetry_client.hpp"

namespace pmdctl {

using pmdfwd::FieldRef;

// A worker record's field, checked at compile time: the worker, plan and
// watch tables all draw from it.
consteval FieldRef worker_field(std::string_view key) { return pmdfwd::kWorkerRecord.ref(key); }

// The field's value; nullptr when the record lacks it.
const Json* value(const Json& rec, FieldRef f);
bool has(const Json& rec, FieldRef f);
// A number; missing, negative or non-numeric reads as 0.
uint64_t u64(const Json& rec, FieldRef f);
uint64_t number(const Json& v);  // the same for one value
// A JSON scalar as a person reads it: integers raw, strings bare.
std::string scalar_text(const Json& v);
std::string text(const Json& rec, FieldRef f);        // the value as text, or "-"
std::string count_cell(const Json& rec, FieldRef f);  // human_count, or "-"

// A number as its unit reads: counts with an SI suffix (1.23M), bytes with
// a B, nanoseconds in time units, permille as a percentage; text and ids raw.
std::string unit_text(pmdfwd::Unit unit, uint64_t v);
// The field's value by its unit, or "-".
std::string unit_cell(const Json& rec, FieldRef f);

// Every field of a record kind, and the fields of one of its groups, in
// table order, for renderers that walk a table rather than name fields.
std::vector<FieldRef> field_refs(const pmdfwd::RecordSchema& schema);
// A group of a record kind's fields (Field::group), checked when the program
// is compiled like a FieldRef: its fields must exist and stand together.
struct FieldGroup {
    const pmdfwd::RecordSchema* schema = nullptr;
    std::string_view name;
};
consteval FieldGroup field_group(const pmdfwd::RecordSchema& schema, std::string_view name) {
    if (schema.group(name).empty()) throw "no fields of that group stand together in this table";
    return {&schema, name};
}
std::vector<FieldRef> group_refs(FieldGroup group);

// One key a histogram field puts on the wire (kHistogramWire): residence's
// "_p50_ns" is "residence_p50_ns". Made by wire_key, which checks both when
// the program is compiled.
struct WireKey {
    FieldRef histogram;
    std::string_view suffix;

    std::string key() const;
};
consteval std::string_view wire_suffix(std::string_view suffix) {
    for (const auto& w : pmdfwd::kHistogramWire)
        if (w.suffix == suffix) return suffix;
    throw "no key of that suffix in kHistogramWire";
}
consteval WireKey wire_key(FieldRef histogram, std::string_view suffix) {
    if (histogram.field().kind != pmdfwd::Kind::histogram) throw "not a histogram field";
    return {histogram, wire_suffix(suffix)};
}
bool has(const Json& rec, WireKey k);
uint64_t u64(const Json& rec, WireKey k);
std::string count_cell(const Json& rec, WireKey k);

// The fields a table has shown, so that the rest can be listed. It holds
// their keys, as details_line meets them in a record.
class Shown {
  public:
    Shown() = default;
    Shown(std::initializer_list<FieldRef> fields) { insert(fields); }

    void insert(FieldRef f) { keys_.insert(std::string(f.key())); }
    void insert(std::initializer_list<FieldRef> fields) {
        for (const auto f : fields) insert(f);
    }
    void insert(const WireKey& k) { keys_.insert(k.key()); }
    bool contains(std::string_view key) const { return keys_.count(key) != 0; }

  private:
    std::set<std::string, std::less<>> keys_;
};
// "  <label>: key=value ..." for every field not in shown, so fields added
// to pmdfwd reach the operator without a pmdctl change; "" when none.
std::string details_line(const std::string& label, const Json& rec, const Shown& shown);

// The histogram field f of a record, read back from its wire keys
// (kHistogramWire); empty when the record has none.
pmdfwd::HistogramView histogram_from(const Json& rec, FieldRef f);
// Marks every wire key of histogram field f as shown.
void show_histogram(Shown& shown, FieldRef f);

// "p0/0 -> p1/0": a worker's rx port and queue, and where it sends ("-"
// when its rx port is in no pair).
std::string worker_path(const Json& worker);

bool any_has(const std::vector<Json>& records, FieldRef f);
bool any_nonzero(const std::vector<Json>& records, FieldRef f);

}  // namespace pmdctl
