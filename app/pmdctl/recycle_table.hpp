// The recycle counters as a table, page_pool style: shared by `show
// workers` (per worker lcore) and `show pools` (per pool). Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fields.hpp"
#include "record_view.hpp"
#include "table.hpp"

namespace pmdctl {

struct RecycleView {
    std::string title;                       // the line above the table
    Column label;                            // the first column: which pool or worker
    pmdfwd::FieldRef label_field;            // the record's name or id
    std::vector<pmdfwd::FieldRef> counters;  // the record kind's "recycle" group
    std::string every;  // "pool", "worker": for the line naming all-zero counters
    // The field to end with, as "in flight" (a pool's in_use); none for workers.
    std::optional<pmdfwd::FieldRef> in_flight = std::nullopt;
};

// One row per record, one column per recycle counter some record has, in the
// table's order: every counter that is not rare, and a rare one once some
// record has it non-zero (the others are named under the table). A record
// without them (a stock pool) shows dashes. The keys it accounts for go to
// shown. "" when no record has any.
std::string recycle_table(const std::vector<Json>& records, const RecycleView& view, Shown& shown);

}  // namespace pmdctl
