// `pmdctl show pools` (see renderers.hpp): the pool table, then for recycle
// pools their counters and where their free objects lie.
#include "record_schemas.hpp"
#include "record_view.hpp"
#include "recycle_table.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "table_columns.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

using pmdfwd::kInfoRecord;
using pmdfwd::kPoolRecord;

// A field of the pool record; only the pool model line reads the info record.
consteval FieldRef pool_field(std::string_view key) { return kPoolRecord.ref(key); }

constexpr FieldRef kPoolName = pool_field("name");
constexpr FieldRef kSize = pool_field("size");
constexpr FieldRef kInUse = pool_field("in_use");

// Sizes raw: they are exact and short.
constexpr TableColumn kPoolTable[] = {
    raw_column(kPoolName, Align::kLeft),
    raw_column(pool_field("ops"), Align::kLeft),
    raw_column(pool_field("owner_lcore")),
    raw_column(pool_field("socket")),
    raw_column(kSize),
    raw_column(pool_field("cache_size")),
    raw_column(pool_field("avail")),
    raw_column(kInUse),
    derived_column("use%", "`in_use / size`",
                   [](const Json& p) {
                       return has(p, kInUse) ? pmdfwd::percent(u64(p, kInUse), u64(p, kSize))
                                             : std::string("-");
                   }),
    raw_column(pool_field("present_unclamped")),
};

// The free levels as narrow two-line headers, without their common "free_".
std::string free_levels(const std::vector<Json>& pools, Shown& shown) {
    std::vector<FieldRef> levels;
    for (const auto f : group_refs(field_group(kPoolRecord, "free_levels")))
        if (any_has(pools, f)) {
            levels.push_back(f);
            shown.insert(f);
        }
    if (levels.empty()) return "";
    Table l;
    l.columns.push_back({"pool", Align::kLeft});
    constexpr std::string_view kPrefix = "free_";
    for (const auto f : levels) {
        const std::string_view h = f.field().header();
        l.columns.push_back(split_column(h.starts_with(kPrefix) ? h.substr(kPrefix.size()) : h));
    }
    for (const auto& p : pools) {
        std::vector<std::string> row{text(p, kPoolName)};
        for (const auto f : levels) row.push_back(text(p, f));
        l.rows.push_back(std::move(row));
    }
    return "\nfree objects by place:\n" + l.render();
}

}  // namespace

const std::span<const TableColumn> kPoolTableColumns = kPoolTable;

std::string render_pool_model(const Json& info) {
    constexpr FieldRef kModel = kInfoRecord.ref("pool_model");
    if (!has(info, kModel)) return "";
    const std::string model = text(info, kModel);
    if (text(info, kInfoRecord.ref("pool_model_source")) == "config")
        return "pool model: " + model + ", set by [pool] model in the config\n\n";
    return "pool model: " + model +
           ", the default: recycle costs more than a stock pool where buffers are freed on "
           "another core (docs/performance.md, \"The handoff step by step\")\n\n";
}

std::string render_pools(const std::vector<Json>& pools) {
    if (pools.empty()) return "no pools\n";
    Shown shown;
    Table t = table_of(kPoolTable, shown);
    for (const auto& p : pools) t.rows.push_back(row_of(kPoolTable, p));
    std::string out = t.render();
    out += recycle_table(pools,
                         {.title = "recycle counters (since the last clear):",
                          .label = {"pool", Align::kLeft},
                          .label_field = kPoolName,
                          .counters = group_refs(field_group(kPoolRecord, "recycle")),
                          .every = "pool",
                          .in_flight = kInUse},
                         shown);
    out += free_levels(pools, shown);
    std::string details;
    for (const auto& p : pools) details += details_line(text(p, kPoolName), p, shown);
    if (!details.empty()) out += "\nother fields:\n" + details;
    return out;
}

}  // namespace pmdctl
