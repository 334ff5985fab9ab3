// The recycle counter table (see recycle_table.hpp).
#include "recycle_table.hpp"

namespace pmdctl {

std::string recycle_table(const std::vector<Json>& records, const RecycleView& view, Shown& shown) {
    std::vector<FieldRef> columns;
    std::vector<std::string_view> zero;
    for (const auto f : view.counters) {
        if (!any_has(records, f)) continue;
        shown.insert(f);
        if (!f.field().rare || any_nonzero(records, f))
            columns.push_back(f);
        else
            zero.push_back(f.field().header());
    }
    if (columns.empty()) return "";
    Table t;
    t.columns.push_back(view.label);
    for (const auto f : columns) t.columns.push_back(split_column(f.field().header()));
    if (view.in_flight) t.columns.push_back({"flight", Align::kRight, "in"});
    for (const auto& r : records) {
        std::vector<std::string> row{text(r, view.label_field)};
        for (const auto f : columns) row.push_back(unit_cell(r, f));
        if (view.in_flight) row.push_back(text(r, *view.in_flight));
        t.rows.push_back(std::move(row));
    }
    std::string out = "\n" + view.title + "\n" + t.render();
    if (!zero.empty()) {
        out += "  zero on every " + view.every + ":";
        for (const auto z : zero) out += ' ' + std::string(z);
        out += '\n';
    }
    return out;
}

}  // namespace pmdctl
