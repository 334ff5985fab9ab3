// `pmdctl fields` (see renderers.hpp): the field tables pmdfwd's records are
// made from, as pmdctl was built with them.
#include "protocol.hpp"
#include "renderers.hpp"
#include "table.hpp"

namespace pmdctl {

std::string render_fields(bool markdown) {
    std::string out;
    for (const auto* s : pmdfwd::kRecordSchemas) {
        if (!out.empty()) out += '\n';
        if (markdown) {
            out += pmdfwd::fields_markdown(*s, pmdfwd::endpoint_paths(*s));
            continue;
        }
        out += std::string(s->name) + " (" + pmdfwd::endpoint_paths(*s) +
               "): " + std::string(s->about) + '\n';
        Table t;
        t.columns = {{"field", Align::kLeft},
                     {"unit", Align::kLeft},
                     {"kind", Align::kLeft},
                     {"meaning", Align::kLeft}};
        for (const auto& f : s->fields)
            t.rows.push_back({std::string(f.key), std::string(to_string(f.unit)),
                              std::string(to_string(f.kind)), std::string(f.help)});
        out += t.render();
    }
    out += '\n';
    if (markdown) return out + "### Histogram fields\n\n" + pmdfwd::histogram_wire_markdown();
    out += "a histogram field <f> is, on the wire:\n";
    for (const auto& w : pmdfwd::kHistogramWire)
        out += "  <f>" + std::string(w.suffix) + "  " + std::string(w.help) + '\n';
    return out;
}

Json fields_json() {
    Json out = Json::array();
    for (const auto* s : pmdfwd::kRecordSchemas) {
        Json fields = Json::array();
        for (const auto& f : s->fields) {
            Json j{{"key", f.key},
                   {"unit", to_string(f.unit)},
                   {"kind", to_string(f.kind)},
                   {"help", f.help}};
            if (f.kind != pmdfwd::Kind::label && !f.label.empty())
                j["label"] = {{f.label, f.member}};
            fields.push_back(std::move(j));
        }
        out.push_back({{"record", s->name},
                       {"command", pmdfwd::endpoint_paths(*s)},
                       {"about", s->about},
                       {"fields", fields}});
    }
    return out;
}

std::string render_endpoints(bool markdown) {
    if (markdown) return pmdfwd::endpoints_markdown(pmdfwd::kEndpoints);
    Table t;
    t.columns = {{"endpoint", Align::kLeft},
                 {"parameter", Align::kLeft},
                 {"answer", Align::kLeft},
                 {"help", Align::kLeft}};
    for (const auto* e : pmdfwd::kEndpoints) {
        const std::string answer = std::string(pmdfwd::to_string(e->shape)) +
                                   (e->schema ? " of " + std::string(e->schema->name) : "");
        t.rows.push_back({std::string(e->path),
                          e->parameter.empty() ? "-" : std::string(e->parameter), answer,
                          std::string(e->help)});
    }
    return t.render();
}

Json endpoints_json() {
    Json out = Json::array();
    for (const auto* e : pmdfwd::kEndpoints)
        out.push_back({{"path", e->path},
                       {"help", e->help},
                       {"shape", pmdfwd::to_string(e->shape)},
                       {"record", e->schema ? e->schema->name : std::string_view()},
                       {"parameter", e->parameter}});
    return out;
}

}  // namespace pmdctl
