// `pmdctl show routes`, `show neighbours` and `show router` (see
// renderers.hpp): router mode's tables as records, a column per field of
// their schemas, and its control path's counters.
#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"

namespace pmdctl {

namespace {

// One row per record, a column per field of the schema: text left, numbers
// right.
std::string render_records(const pmdfwd::RecordSchema& schema, const Json& rows) {
    if (!rows.is_array() || rows.empty()) return "(none)\n";
    Table t;
    for (const auto& f : schema.fields) {
        const bool numeric = f.kind == pmdfwd::Kind::counter || f.kind == pmdfwd::Kind::gauge;
        t.columns.push_back({std::string(f.header()), numeric ? Align::kRight : Align::kLeft});
    }
    const std::vector<FieldRef> fields = field_refs(schema);
    for (const auto& row : rows) {
        std::vector<std::string> cells;
        for (const auto f : fields) cells.push_back(text(row, f));
        t.rows.push_back(std::move(cells));
    }
    return t.render();
}

}  // namespace

std::string render_routes(const Json& routes) {
    return render_records(pmdfwd::kRouteRecord, routes);
}

std::string render_neighbours(const Json& neighbours) {
    return render_records(pmdfwd::kNeighbourRecord, neighbours);
}

std::string render_router(const Json& router) {
    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value"}, {"help", Align::kLeft}};
    for (const auto f : field_refs(pmdfwd::kRouterRecord)) {
        if (!has(router, f)) continue;
        t.rows.push_back({std::string(f.key()), text(router, f), std::string(f.field().help)});
    }
    return t.render();
}

}  // namespace pmdctl
