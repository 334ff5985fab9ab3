// Table rendering (see table.hpp).
#include "table.hpp"

#include <algorithm>

namespace pmdctl {

std::string Table::render() const {
    std::vector<size_t> widths(columns.size(), 0);
    bool over_line = false;
    if (show_header)
        for (size_t c = 0; c < columns.size(); ++c) {
            widths[c] = std::max(columns[c].header.size(), columns[c].over.size());
            over_line = over_line || !columns[c].over.empty();
        }
    for (const auto& row : rows)
        for (size_t c = 0; c < columns.size() && c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());

    auto line = [&](auto&& cell_at) {
        std::string out;
        for (size_t c = 0; c < columns.size(); ++c) {
            const std::string& cell = cell_at(c);
            const std::string pad(widths[c] - cell.size(), ' ');
            if (c) out += "  ";
            out += columns[c].align == Align::kLeft ? cell + pad : pad + cell;
        }
        out.erase(out.find_last_not_of(' ') + 1);
        return out + '\n';
    };
    static const std::string kEmpty;
    std::string out;
    if (over_line) out += line([&](size_t c) -> const std::string& { return columns[c].over; });
    if (show_header) out += line([&](size_t c) -> const std::string& { return columns[c].header; });
    for (const auto& row : rows)
        out +=
            line([&](size_t c) -> const std::string& { return c < row.size() ? row[c] : kEmpty; });
    return out;
}

Column split_column(std::string_view name) {
    const size_t cut = name.find('_');
    if (cut == std::string_view::npos) return {std::string(name)};
    return {std::string(name.substr(cut + 1)), Align::kRight, std::string(name.substr(0, cut))};
}

}  // namespace pmdctl
