// Tables and their docs from one list of columns (see table_columns.hpp).
#include "table_columns.hpp"

namespace pmdctl {

Table table_of(std::span<const TableColumn> columns, Shown& shown) {
    Table t;
    for (const auto& c : columns) {
        t.columns.push_back(c.column());
        if (c.field.schema) shown.insert(c.field);
    }
    return t;
}

std::vector<std::string> row_of(std::span<const TableColumn> columns, const Json& record) {
    std::vector<std::string> row;
    for (const auto& c : columns) {
        if (!c.field.schema) {
            row.push_back(c.derive ? c.derive(record) : "-");
            continue;
        }
        const pmdfwd::Kind kind = c.field.field().kind;
        const bool raw = c.raw || kind == pmdfwd::Kind::label || kind == pmdfwd::Kind::info;
        row.push_back(raw ? text(record, c.field) : unit_cell(record, c.field));
    }
    return row;
}

std::string columns_markdown(std::span<const TableColumn> columns) {
    std::string out = "| column | meaning |\n|---|---|\n";
    for (const auto& c : columns) {
        std::string meaning;
        if (!c.field.schema) {
            meaning = std::string(c.meaning);
        } else {
            meaning = std::string(c.field.field().help);
            if (c.field.field().header() != c.field.key())
                meaning += " (`" + std::string(c.field.key()) + "`)";
        }
        out += "| `" + std::string(c.head()) + "` | " + meaning + " |\n";
    }
    return out;
}

std::span<const DocumentedTable> documented_tables() {
    static const DocumentedTable kTables[] = {
        {"show workers", kWorkerTableColumns},
        {"show workers: time", kWorkerTimeColumns},
        {"show pools", kPoolTableColumns},
    };
    return kTables;
}

}  // namespace pmdctl
