// The one shape of every counter and reason list: X(name, unit, kind, help),
// name the C++ member and the wire key, unit a Unit, kind a Tally, help the
// sentence docs and metrics carry. A reason that is not a counter does not
// exist: each reason list makes its enum and its counters from one list.
// The generic expanders below serve every list. Pure.
#pragma once

#include <atomic>
#include <cstdint>

#include "enum_names.hpp"
#include "fields.hpp"

namespace pmdfwd {

// What a list entry counts: a counter (only grows), a gauge (a level), or a
// rare counter (a failure or fallback, normally 0: tables give it a column
// only once it is not).
enum class Tally : uint8_t { counter, gauge, rare };

constexpr Kind kind_of(Tally t) { return t == Tally::gauge ? Kind::gauge : Kind::counter; }

// A list entry as a plain field of a record.
constexpr Field list_field(std::string_view key, Unit unit, Tally tally, std::string_view help) {
    Field f{key, unit, kind_of(tally), help};
    f.rare = tally == Tally::rare;
    return f;
}

// A list entry as a member of a group shown together (key `prefix_name`,
// made by the macro); where the group is one metric, `label` names the
// label whose value is the column.
constexpr Field group_field(std::string_view key, Unit unit, Tally tally, std::string_view help,
                            std::string_view group, std::string_view column = {},
                            std::string_view label = {}) {
    Field f = list_field(key, unit, tally, help);
    f.column = column;
    f.group = group;
    f.label = label;
    if (!label.empty()) f.member = column;
    return f;
}

}  // namespace pmdfwd

// Expanders for X(name, unit, kind, help), with enum_names.hpp's.
#define PMDFWD_LIST_U64(name, unit, kind, help) uint64_t name = 0;
#define PMDFWD_LIST_ATOMIC(name, unit, kind, help) std::atomic<uint64_t> name{0};
#define PMDFWD_LIST_FIELD(name, unit, kind, help) \
    ::pmdfwd::list_field(#name, ::pmdfwd::Unit::unit, ::pmdfwd::Tally::kind, help),
// A reason list's counters in a record: the "drops" group, drop_<reason>.
#define PMDFWD_LIST_DROP_FIELD(name, unit, kind, help)                                      \
    ::pmdfwd::group_field("drop_" #name, ::pmdfwd::Unit::unit, ::pmdfwd::Tally::kind, help, \
                          "drops", #name, "reason"),
