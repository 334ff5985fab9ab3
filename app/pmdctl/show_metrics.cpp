// `pmdctl metrics` (see renderers.hpp): the Prometheus metrics pmdfwd's
// exporter makes of the field tables, as pmdctl was built with them.
#include "metric_names.hpp"
#include "protocol.hpp"
#include "renderers.hpp"
#include "table.hpp"

namespace pmdctl {

namespace {

std::string info_labels(const pmdfwd::RecordMetrics& m) {
    std::string out;
    for (const auto id : m.info.fields)
        out += (out.empty() ? "" : ",") + std::string(m.schema->fields[id.index].key);
    return out;
}

}  // namespace

std::string render_metrics(bool markdown) {
    if (markdown) return pmdfwd::metrics_markdown();
    Table t;
    t.columns = {{"metric", Align::kLeft}, {"type", Align::kLeft}, {"labels", Align::kLeft}};
    t.rows.push_back({pmdfwd::kUpMetric, "gauge", ""});
    for (const auto& m : pmdfwd::exported_metrics()) {
        std::string common;
        for (const auto& l : m.label_names) common += (common.empty() ? "" : ",") + l;
        if (!m.info.fields.empty())
            t.rows.push_back(
                {m.info.name, "info", common + (common.empty() ? "" : ",") + info_labels(m)});
        for (const auto& f : m.families)
            t.rows.push_back({f.name, std::string(to_string(f.type)),
                              common + (common.empty() || f.label.empty() ? "" : ",") + f.label});
    }
    return t.render();
}

Json metrics_json() {
    Json out = Json::array();
    out.push_back({{"name", pmdfwd::kUpMetric}, {"type", "gauge"}, {"labels", Json::array()}});
    for (const auto& m : pmdfwd::exported_metrics()) {
        Json common = Json::array();
        for (const auto& l : m.label_names) common.push_back(l);
        if (!m.info.fields.empty()) {
            Json labels = common;
            for (const auto id : m.info.fields) labels.push_back(m.schema->fields[id.index].key);
            out.push_back({{"name", m.info.name},
                           {"type", "info"},
                           {"record", m.schema->name},
                           {"labels", labels},
                           {"help", m.info.help}});
        }
        for (const auto& f : m.families) {
            Json labels = common;
            if (!f.label.empty()) labels.push_back(f.label);
            out.push_back({{"name", f.name},
                           {"type", to_string(f.type)},
                           {"record", m.schema->name},
                           {"labels", labels},
                           {"help", f.help}});
        }
    }
    return out;
}

}  // namespace pmdctl
