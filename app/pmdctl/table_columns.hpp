// The columns of pmdctl's tables, declared once for both the table and its
// reference in docs/cli.md: a column shows a record field (its header and
// meaning are the field's) or a figure pmdctl derives (header and meaning
// given here). `pmdctl fields --columns TABLE` prints a table's reference
// and a unit test holds docs/cli.md to it, so prose cannot drift from what
// is shown. Pure.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "fields.hpp"
#include "record_view.hpp"
#include "table.hpp"
#include "telemetry_client.hpp"

namespace pmdctl {

using pmdfwd::FieldRef;

struct TableColumn {
    FieldRef field{};               // the field it shows; none for a derived figure
    std::string_view header = {};   // a derived figure's header
    std::string_view meaning = {};  // a derived figure's meaning
    std::string (*derive)(const Json& record) = nullptr;  // a derived figure's cell
    Align align = Align::kRight;
    bool raw = false;  // the number as it is, not in its unit (exact and short)

    std::string_view head() const { return field.schema ? field.field().header() : header; }
    Column column() const { return Column(std::string(head()), align); }
};

constexpr TableColumn field_column(FieldRef f, Align align = Align::kRight) {
    return {.field = f, .align = align};
}
constexpr TableColumn raw_column(FieldRef f, Align align = Align::kRight) {
    return {.field = f, .align = align, .raw = true};
}
constexpr TableColumn derived_column(std::string_view header, std::string_view meaning,
                                     std::string (*derive)(const Json&),
                                     Align align = Align::kRight) {
    return {.header = header, .meaning = meaning, .derive = derive, .align = align};
}

// A table of these columns, its fields marked shown; a record's row: a
// field's cell by its unit (an identity or setting raw), a derived one by
// its function.
Table table_of(std::span<const TableColumn> columns, Shown& shown);
std::vector<std::string> row_of(std::span<const TableColumn> columns, const Json& record);

// "| column | meaning |" and a row per column: a field's header, its help
// and its key where the header differs.
std::string columns_markdown(std::span<const TableColumn> columns);

// A table docs/cli.md describes, by name ("show workers").
struct DocumentedTable {
    std::string_view name;
    std::span<const TableColumn> columns;
};
std::span<const DocumentedTable> documented_tables();

// The tables' columns, defined beside their renderers.
extern const std::span<const TableColumn> kWorkerTableColumns;
extern const std::span<const TableColumn> kWorkerTimeColumns;
extern const std::span<const TableColumn> kPoolTableColumns;

}  // namespace pmdctl
