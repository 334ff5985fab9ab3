// `pmdctl show ports` (see renderers.hpp).
#include "record_schemas.hpp"
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"
#include "units.hpp"

namespace pmdctl {

namespace {

using pmdfwd::kPortRecord;

// A field of the port record, the only record kind drawn here.
consteval FieldRef port_field(std::string_view key) { return kPortRecord.ref(key); }

constexpr FieldRef kPortName = port_field("name");
constexpr FieldRef kDriver = port_field("driver");
constexpr FieldRef kLink = port_field("link");
constexpr FieldRef kSpeed = port_field("speed_mbps");

std::string speed_text(uint64_t mbps) {
    if (mbps >= 1000)
        return mbps % 1000 ? pmdfwd::format_double("%.1fG", double(mbps) / 1000)
                           : std::to_string(mbps / 1000) + "G";
    return std::to_string(mbps) + "M";
}

// "up 10G": the link, and its speed when it is up.
std::string link_cell(const Json& p) {
    std::string link = text(p, kLink);
    const uint64_t mbps = u64(p, kSpeed);
    if (link == "up" && mbps) link += ' ' + speed_text(mbps);
    return link;
}

}  // namespace

std::string render_ports(const std::vector<Json>& ports) {
    if (ports.empty()) return "no ports\n";
    Table t;
    t.columns = {{"port", Align::kLeft}, {"driver", Align::kLeft}, {"link", Align::kLeft}};
    Shown shown = {kPortName, kDriver, kLink, kSpeed};
    std::vector<FieldRef> counters;
    for (const auto f : field_refs(kPortRecord))
        if (f.field().kind == pmdfwd::Kind::counter) {
            counters.push_back(f);
            t.columns.push_back({std::string(f.field().header())});
            shown.insert(f);
        }
    std::string details;
    for (const auto& p : ports) {
        std::vector<std::string> row{text(p, kPortName), text(p, kDriver), link_cell(p)};
        for (const auto f : counters) row.push_back(unit_cell(p, f));
        t.rows.push_back(std::move(row));
        details += details_line(text(p, kPortName), p, shown);
    }
    return t.render() + (details.empty() ? "" : "\n" + details);
}

}  // namespace pmdctl
