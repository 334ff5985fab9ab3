// The vocabulary of pmdfwd's field tables: every field of every record the
// control plane returns is declared once, in record_schemas.hpp, with its
// name, unit, kind and one help sentence. The records, pmdctl's columns and
// unit formatting, docs/cli.md's field reference (checked by a test) and any
// exporter walk these tables; none needs to know a record by name. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "enum_names.hpp"

namespace pmdfwd {

// What a number counts (its name in docs and tables). Text fields have none.
#define PMDFWD_UNITS(X)           \
    X(none, "")                   \
    X(packets, "packets")         \
    X(bytes, "bytes")             \
    X(mbufs, "mbufs")             \
    X(polls, "polls")             \
    X(events, "events")           \
    X(records, "records")         \
    X(datagrams, "datagrams")     \
    X(calls, "calls")             \
    X(connections, "connections") \
    X(requests, "requests")       \
    X(routes, "routes")           \
    X(cycles, "cycles")           \
    X(nanoseconds, "ns")          \
    X(seconds, "s")               \
    X(permille, "permille")       \
    X(hertz, "Hz")

enum class Unit : uint8_t { PMDFWD_UNITS(PMDFWD_ENUM_MEMBER) };
inline constexpr std::string_view kUnitNames[] = {PMDFWD_UNITS(PMDFWD_ENUM_TEXT)};

#define PMDFWD_KINDS(X)                                                                       \
    X(label, "label")         /* names the object a record is about (worker id, port name) */ \
    X(info, "info")           /* configuration or identity that does not move */              \
    X(counter, "counter")     /* only grows (from the last clear, or from start) */           \
    X(gauge, "gauge")         /* a level, or a figure derived from counters */                \
    X(histogram, "histogram") /* a distribution in ns; on the wire, kHistogramWire's keys */

enum class Kind : uint8_t { PMDFWD_KINDS(PMDFWD_ENUM_MEMBER) };
inline constexpr std::string_view kKindNames[] = {PMDFWD_KINDS(PMDFWD_ENUM_TEXT)};

constexpr std::string_view to_string(Unit u) { return enum_name(kUnitNames, u); }
constexpr std::string_view to_string(Kind k) { return enum_name(kKindNames, k); }

struct Field {
    std::string_view key;  // the telemetry key
    Unit unit = Unit::none;
    Kind kind = Kind::info;
    std::string_view help;  // one sentence, the same in docs/cli.md
    // pmdctl's header where it is not the key ("cyc/pkt" for cycles_per_pkt).
    std::string_view column = {};
    // Fields shown together ("drops", "burst_sizes", "recycle"), which stand
    // together in the table.
    std::string_view group = {};
    // Where a group's fields differ only by one label, such as the drop
    // reasons (group "drops", label "reason", member "tx_full"): one metric.
    // A Kind::label field's label name in metrics (rx_port: "port"), where
    // it is not the key; it has no member.
    std::string_view label = {};
    std::string_view member = {};
    // A failure or fallback that is normally 0: tables give it a column only
    // once it is not, and name it on a "zero" line otherwise.
    bool rare = false;

    std::string_view header() const { return column.empty() ? key : column; }
};

struct FieldId {
    uint16_t index = 0;
};

struct RecordSchema;

// One field of one record kind, made by RecordSchema::ref("key") when the
// program is compiled: a reader that takes it cannot name a field the table
// lacks, and says which record kind it reads where two share a key (the
// worker and stats counters).
struct FieldRef {
    const RecordSchema* schema = nullptr;
    FieldId id;

    constexpr const Field& field() const;
    constexpr std::string_view key() const { return field().key; }
};

struct RecordSchema {
    std::string_view name;   // "worker"
    std::string_view about;  // what one record is, and since when its counters run
    std::span<const Field> fields;

    // A field by key, checked when the program is compiled: a key that is
    // not in the table does not build.
    consteval FieldId at(std::string_view key) const {
        for (size_t i = 0; i < fields.size(); ++i)
            if (fields[i].key == key) return FieldId{uint16_t(i)};
        throw "no field of that key in this record's table";
    }
    // The same, as a reference that carries its record kind.
    consteval FieldRef ref(std::string_view key) const { return {this, at(key)}; }
    // The fields of a group, in table order; empty when it has none, or
    // when they do not stand together (the static_asserts on it catch that).
    constexpr std::span<const Field> group(std::string_view name) const {
        size_t first = fields.size(), n = 0;
        for (size_t i = 0; i < fields.size(); ++i)
            if (fields[i].group == name) {
                if (n == 0) first = i;
                if (i != first + n) return {};
                ++n;
            }
        return n ? fields.subspan(first, n) : std::span<const Field>{};
    }
    // The first field of a group; the others follow it.
    consteval FieldId group_first(std::string_view name) const {
        for (size_t i = 0; i < fields.size(); ++i)
            if (fields[i].group == name) return FieldId{uint16_t(i)};
        throw "no field of that group in this record's table";
    }
    // A field by key at run time; nullptr when there is none.
    const Field* find(std::string_view key) const;
};

constexpr const Field& FieldRef::field() const { return schema->fields[id.index]; }

// A field's column header where it is not its key, set apart from the
// list the field comes from.
struct ColumnName {
    std::string_view key;
    std::string_view column;
};
template <size_t N, size_t M>
consteval std::array<Field, N> with_columns(const Field (&fields)[N],
                                            const ColumnName (&columns)[M]) {
    std::array<Field, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = fields[i];
    for (const ColumnName& c : columns) {
        bool found = false;
        for (Field& f : out)
            if (f.key == c.key) {
                f.column = c.column;
                found = true;
            }
        if (!found) throw "a column for a key the table lacks";
    }
    return out;
}

// The keys a histogram field `<key>` puts in its record, in this order, and
// what each holds.
struct HistogramWireKey {
    std::string_view suffix;  // appended to the field's key
    std::string_view help;
};
inline constexpr HistogramWireKey kHistogramWire[] = {
    {"_count", "values recorded"},
    {"_sum_ns", "their sum in ns"},
    {"_min_ns", "the smallest value in ns"},
    {"_avg_ns", "the mean in ns"},
    {"_p50_ns", "the upper edge of the bucket holding the median, in ns"},
    {"_p90_ns", "the upper edge of the bucket holding the 90th percentile, in ns"},
    {"_p99_ns", "the upper edge of the bucket holding the 99th percentile, in ns"},
    {"_p999_ns", "the upper edge of the bucket holding the 99.9th percentile, in ns"},
    {"_max_ns", "the largest value in ns"},
    {"_le_ns",
     "array: the inclusive upper edge in ns of each bucket from the first non-empty one to "
     "the last (18446744073709551615: no upper bound)"},
    {"_buckets", "array: the values in each of those buckets (not cumulative)"},
};

// The reference docs/cli.md carries, and a test holds it to: a heading (the
// record's name and the endpoints answering with it), the record's sentence
// and one row per field (key, unit, kind, help).
std::string fields_markdown(const RecordSchema& s, std::string_view paths);
// The table of a histogram field's keys on the wire.
std::string histogram_wire_markdown();

}  // namespace pmdfwd
