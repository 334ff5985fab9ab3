// A telemetry endpoint, declared once by the module that serves it: its
// path, what it takes, how its answer is shaped and the record it answers
// with. The control library builds its handler table from these, pmdctl its
// requests and docs/cli.md its "Telemetry commands" table; a test fails
// when a declared endpoint has no handler, no pmdctl command or no docs row.
// Pure.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "fields.hpp"

namespace pmdfwd {

// How an answer is laid out on the wire:
//   record  one record of the schema: a flat dict (of the item named, where it takes an id)
//   ids     the ids of the items another endpoint answers for: an array of u64
//   page    records of the schema from row `first`: {total, first, <field>: [...]}, a column
//           per field, row i of every column making record first + i
//   lines   lines of text: an array of strings
//   action  does something and answers a `result` record
#define PMDFWD_SHAPES(X) \
    X(record, "record")  \
    X(ids, "ids")        \
    X(page, "page")      \
    X(lines, "lines")    \
    X(action, "action")

enum class Shape : uint8_t { PMDFWD_SHAPES(PMDFWD_ENUM_MEMBER) };
inline constexpr std::string_view kShapeNames[] = {PMDFWD_SHAPES(PMDFWD_ENUM_TEXT)};
constexpr std::string_view to_string(Shape s) { return enum_name(kShapeNames, s); }

struct Endpoint {
    std::string_view path;  // "/pmdfwd/worker"
    // DPDK telemetry's help (/help,<path>): under 128 bytes, parameters named.
    std::string_view help;
    Shape shape = Shape::record;
    const RecordSchema* schema = nullptr;  // what it answers with; none for ids and lines
    // Its parameter as docs/cli.md describes it; empty: it takes none.
    std::string_view parameter = {};
    // What the answer holds, for docs/cli.md's table, after the shape.
    std::string_view returns = {};
    // Its error while the module serving it does not run (router endpoints
    // outside router mode).
    std::string_view unserved = "not served by this pmdfwd";
};

// The longest path and help DPDK 22.11's telemetry registers: a longer one
// makes rte_telemetry_register_cmd fail and the command go missing.
inline constexpr size_t kMaxEndpointPath = 55;
inline constexpr size_t kMaxEndpointHelp = 127;

// Rows a page endpoint answers with at most: the reply holds 16 KB, and a
// row of five fields of IPv6 text is about 200 bytes.
inline constexpr size_t kPageRows = 60;

// What an action endpoint answers: what it did.
namespace fields {
inline constexpr Field kResultFields[] = {
    {"result", Unit::none, Kind::info,
     "what was done: stats cleared, shutdown requested, route added or deleted"},
};
}  // namespace fields
inline constexpr RecordSchema kResultRecord{"result", "The answer to a command that acts.",
                                            fields::kResultFields};

// docs/cli.md's table of telemetry commands: path, parameter, what it returns.
std::string endpoints_markdown(std::span<const Endpoint* const> endpoints);

}  // namespace pmdfwd
