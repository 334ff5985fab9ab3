// Aligned text tables: pmdctl's one way of lining up columns. Pure.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pmdctl {

enum class Align { kLeft, kRight };

struct Column {
    Column(std::string header_, Align align_ = Align::kRight, std::string over_ = {})
        : header(std::move(header_)), align(align_), over(std::move(over_)) {}

    std::string header;
    Align align = Align::kRight;
    // A word printed above the header, on a line of its own, so that narrow
    // columns can carry two-word names ("alloc" over "fast"); that line is
    // printed only when some column has one.
    std::string over;
};

// Cells are padded to the widest cell (or header word) of their column and
// joined by two spaces; trailing blanks are trimmed so golden tests and diffs
// stay clean.
struct Table {
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;
    bool show_header = true;

    std::string render() const;  // one '\n'-terminated line per row
};

// A field name as a narrow two-line header: "alloc_fast" is "fast" under
// "alloc"; a name without '_' stays on one line.
Column split_column(std::string_view name);

}  // namespace pmdctl
