// Reading pmdfwd's records (JSON objects) for display, by their field
// tables (record_schemas.hpp): a missing field prints as "-" and reads as 0,
// never throws; a field's unit decides how it reads. Pure.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fields.hpp"
#include "histogram.hpp"
#include "telemetry_client.hpp"

namespace pmdctl {

bool has(const Json& rec, std::string_view key);
// A number; missing, negative or non-numeric reads as 0.
uint64_t u64(const Json& rec, std::string_view key);
uint64_t number(const Json& v);  // the same for one value
// A JSON scalar as a person reads it: integers raw, strings bare.
std::string scalar_text(const Json& v);
std::string text(const Json& rec, std::string_view key);        // the value as text, or "-"
std::string count_cell(const Json& rec, std::string_view key);  // human_count, or "-"

// A number as its unit reads: counts with an SI suffix (1.23M), bytes with
// a B, nanoseconds in time units, permille as a percentage; text and ids raw.
std::string unit_text(pmdfwd::Unit unit, uint64_t v);
// The field's value by its unit, or "-".
std::string unit_cell(const Json& rec, const pmdfwd::Field& f);

// The keys a table has shown, so that the rest can be listed.
using Shown = std::set<std::string, std::less<>>;
// "  <label>: key=value ..." for every field not in shown, so fields added
// to pmdfwd reach the operator without a pmdctl change; "" when none.
std::string details_line(const std::string& label, const Json& rec, const Shown& shown);

// The histogram field `key` of a record, read back from its wire keys
// (kHistogramWire); empty when the record has none.
pmdfwd::HistogramView histogram_from(const Json& rec, std::string_view key);
// Marks every wire key of histogram field `key` as shown.
void show_histogram(Shown& shown, std::string_view key);

// "p0/0 -> p1/0": a worker's rx port and queue, and where it sends ("-"
// when its rx port is in no pair).
std::string worker_path(const Json& w);

bool any_has(const std::vector<Json>& records, std::string_view key);
bool any_nonzero(const std::vector<Json>& records, std::string_view key);

}  // namespace pmdctl
