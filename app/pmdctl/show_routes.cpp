// `pmdctl show routes`, `show neighbours` and `show router` (see
// renderers.hpp): router mode's tables as pmdfwd words them (lines of
// space-separated words), lined up, and its control path's counters.
#include <sstream>

#include "record_schemas.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"

namespace pmdctl {

namespace {

std::vector<std::string> words_of(const Json& value) {
    std::vector<std::string> out;
    std::istringstream in(value.is_string() ? value.get<std::string>() : scalar_text(value));
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

// One row per line, its words under the given headers.
std::string render_words(const Json& lines, std::vector<Column> headers) {
    if (!lines.is_array() || lines.empty()) return "(none)\n";
    Table t;
    t.columns = std::move(headers);
    for (const auto& line : lines) {
        auto words = words_of(line);
        words.resize(t.columns.size(), "?");
        t.rows.push_back(std::move(words));
    }
    return t.render();
}

}  // namespace

std::string render_routes(const Json& routes) {
    return render_words(routes, {{"prefix", Align::kLeft},
                                 {"origin", Align::kLeft},
                                 {"port", Align::kLeft},
                                 {"via", Align::kLeft},
                                 {"state", Align::kLeft}});
}

std::string render_neighbours(const Json& neighbours) {
    return render_words(neighbours, {{"port/address", Align::kLeft},
                                     {"state", Align::kLeft},
                                     {"mac", Align::kLeft},
                                     {"age_ms"},
                                     {"waiting"},
                                     {"requests"}});
}

std::string render_router(const Json& router) {
    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value"}, {"help", Align::kLeft}};
    for (const auto& f : pmdfwd::kRouterRecord.fields) {
        const std::string key(f.key);
        if (!router.is_object() || !router.contains(key)) continue;
        t.rows.push_back({key, scalar_text(router.at(key)), std::string(f.help)});
    }
    return t.render();
}

}  // namespace pmdctl
