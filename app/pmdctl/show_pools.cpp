// `pmdctl show pools` (see renderers.hpp): the pool table, then for recycle
// pools their counters and where their free objects lie.
#include "record_schemas.hpp"
#include "record_view.hpp"
#include "recycle_table.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

using pmdfwd::kPoolRecord;

// The free levels as narrow two-line headers, without their common "free_".
std::string free_levels(const std::vector<Json>& pools, Shown& shown) {
    std::vector<const pmdfwd::Field*> levels;
    for (const auto& f : kPoolRecord.group("free_levels"))
        if (any_has(pools, f.key)) {
            levels.push_back(&f);
            shown.insert(std::string(f.key));
        }
    if (levels.empty()) return "";
    Table l;
    l.columns.push_back({"pool", Align::kLeft});
    constexpr std::string_view kPrefix = "free_";
    for (const auto* f : levels) {
        const std::string_view h = f->header();
        l.columns.push_back(split_column(h.starts_with(kPrefix) ? h.substr(kPrefix.size()) : h));
    }
    for (const auto& p : pools) {
        std::vector<std::string> row{text(p, "name")};
        for (const auto* f : levels) row.push_back(text(p, f->key));
        l.rows.push_back(std::move(row));
    }
    return "\nfree objects by place:\n" + l.render();
}

}  // namespace

std::string render_pool_model(const Json& info) {
    if (!has(info, "pool_model")) return "";
    const std::string model = text(info, "pool_model");
    if (text(info, "pool_model_source") == "config")
        return "pool model: " + model + ", set by [pool] model in the config\n\n";
    return "pool model: " + model +
           ", the default: recycle costs more than a stock pool where buffers are freed on "
           "another core (docs/performance.md, \"The handoff step by step\")\n\n";
}

std::string render_pools(const std::vector<Json>& pools) {
    if (pools.empty()) return "no pools\n";
    // Sizes raw: they are exact and short.
    static constexpr std::pair<std::string_view, Align> kColumns[] = {
        {"name", Align::kLeft},    {"ops", Align::kLeft},    {"owner_lcore", Align::kRight},
        {"socket", Align::kRight}, {"size", Align::kRight},  {"cache_size", Align::kRight},
        {"avail", Align::kRight},  {"in_use", Align::kRight}};
    Table t;
    Shown shown = {"present_unclamped"};
    for (const auto& [key, align] : kColumns) {
        t.columns.push_back({std::string(kPoolRecord.find(key)->header()), align});
        shown.insert(std::string(key));
    }
    t.columns.push_back({"use%"});
    t.columns.push_back({"present_unclamped"});
    for (const auto& p : pools) {
        std::vector<std::string> row;
        for (const auto& [key, align] : kColumns) row.push_back(text(p, key));
        row.push_back(has(p, "in_use") ? pmdfwd::percent(u64(p, "in_use"), u64(p, "size")) : "-");
        row.push_back(text(p, "present_unclamped"));
        t.rows.push_back(std::move(row));
    }
    std::string out = t.render();
    out += recycle_table(pools,
                         {.title = "recycle counters (since the last clear):",
                          .label = {"pool", Align::kLeft},
                          .label_key = "name",
                          .counters = kPoolRecord.group("recycle"),
                          .every = "pool",
                          .in_flight = true},
                         shown);
    out += free_levels(pools, shown);
    std::string details;
    for (const auto& p : pools) details += details_line(text(p, "name"), p, shown);
    if (!details.empty()) out += "\nother fields:\n" + details;
    return out;
}

}  // namespace pmdctl
