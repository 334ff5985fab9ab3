// The field tables (record_schemas.hpp): keys unique on the wire, a help
// sentence and a unit where one applies, docs/cli.md in step with them (keys,
// units, kinds and help), and every field shown by the pmdctl command that
// renders its record. No EAL.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "protocol.hpp"
#include "renderers.hpp"
#include "source_file.hpp"

using namespace pmdfwd;
using pmdctl::Json;

namespace {

std::vector<std::string> wire_keys(const Field& f) {
    if (f.kind != Kind::histogram) return {std::string(f.key)};
    std::vector<std::string> out;
    for (const auto& w : kHistogramWire) out.push_back(std::string(f.key) + std::string(w.suffix));
    return out;
}

// A record with every field of its table set: numbers distinct and non-zero
// (so that no table leaves a column out for being zero), text where the
// field holds text, the few values a renderer branches on chosen so that it
// shows the most.
Json full_record(const RecordSchema& s) {
    static const std::map<std::string, Json> kChosen = {
        {"enabled", "true"}, {"link", "up"}, {"poll", "adaptive"}, {"tx_port", "p1"}};
    Json r = Json::object();
    uint64_t n = 1000;
    for (const auto& f : s.fields) {
        n += 37;
        const std::string key(f.key);
        if (kChosen.count(key)) {
            r[key] = kChosen.at(key);
        } else if (f.kind == Kind::histogram) {
            r[key + "_count"] = 3;
            r[key + "_sum_ns"] = 600;
            for (const char* p :
                 {"_min_ns", "_avg_ns", "_p50_ns", "_p90_ns", "_p99_ns", "_p999_ns", "_max_ns"})
                r[key + p] = n++;
            r[key + "_le_ns"] = {127, 255};
            r[key + "_buckets"] = {1, 2};
        } else if (f.unit == Unit::none && (f.kind == Kind::info || f.kind == Kind::label)) {
            r[key] = "v" + std::to_string(n);
        } else {
            r[key] = n;
        }
    }
    return r;
}

}  // namespace

TEST_CASE("field tables: keys unique on the wire, every field explained", "[fields]") {
    std::set<std::string> records;
    for (const auto* s : kRecordSchemas) {
        INFO(s->name);
        CHECK(records.insert(std::string(s->name)).second);
        CHECK_FALSE(s->about.empty());
        std::set<std::string> keys;
        for (const auto& f : s->fields) {
            INFO(f.key);
            for (const auto& k : wire_keys(f)) CHECK(keys.insert(k).second);
            CHECK_FALSE(f.help.empty());
            CHECK(f.help.find('|') == std::string_view::npos);  // a Markdown cell
            CHECK(s->find(f.key) == &f);
            // What counts or measures says in what.
            if (f.kind == Kind::counter || f.kind == Kind::histogram) CHECK(f.unit != Unit::none);
            if (!f.label.empty()) CHECK(f.member.empty() == (f.kind == Kind::label));
        }
    }
}

TEST_CASE("docs/cli.md carries every record's field table as the tables declare it",
          "[fields][docs]") {
    const std::string docs = read_source_file("docs/cli.md");
    const size_t section = docs.find("\n## Record fields\n");
    REQUIRE(section != std::string::npos);
    const size_t end = docs.find("\n## ", section + 1);
    const std::string fields = docs.substr(section, end == std::string::npos ? end : end - section);
    size_t headings = 0;
    for (size_t at = fields.find("\n### "); at != std::string::npos;
         at = fields.find("\n### ", at + 1))
        ++headings;
    CHECK(headings == std::size(kRecordSchemas) + 1);  // and the histogram keys
    for (const auto* s : kRecordSchemas) {
        // Row by row first, so that a failure names the field.
        for (const auto& f : s->fields) {
            const std::string row =
                "| `" + std::string(f.key) + "` | " + std::string(to_string(f.unit)) + " | " +
                std::string(to_string(f.kind)) + " | " + std::string(f.help) + " |\n";
            INFO("docs/cli.md, ## Record fields, " << s->name << ": lacks the row\n" << row);
            CHECK(fields.find(row) != std::string::npos);
        }
        const std::string expected = fields_markdown(*s, endpoint_paths(*s));
        INFO(
            "docs/cli.md, ## Record fields, lacks this block as it stands "
            "(`pmdctl fields --markdown` prints them all):\n"
            << expected);
        CHECK(fields.find(expected) != std::string::npos);
    }
    INFO(histogram_wire_markdown());
    CHECK(fields.find(histogram_wire_markdown()) != std::string::npos);
}

TEST_CASE("pmdctl shows every field of the records it renders", "[fields][pmdctl]") {
    // Each record kind that a pmdctl command draws, and fields it leaves to
    // --json on purpose.
    struct Case {
        const RecordSchema* schema;
        std::string (*render)(const Json& full);
        std::set<std::string> json_only;
    };
    const Case cases[] = {
        {&kWorkerRecord,
         [](const Json& r) { return pmdctl::render_workers(std::vector<Json>{r}); },
         {"cpu_ns"}},  // the CPU time behind cpu%
        {&kStatsRecord, [](const Json& r) { return pmdctl::render_stats(r, {}); }, {}},
        {&kLatencyRecord,
         [](const Json& r) { return pmdctl::render_latency(std::vector<Json>{r}, true); },
         {"enabled"}},  // "true" changes nothing; "false" adds a line (below)
        {&kPortRecord,
         [](const Json& r) { return pmdctl::render_ports(std::vector<Json>{r}); },
         {}},
        {&kPoolRecord,
         [](const Json& r) { return pmdctl::render_pools(std::vector<Json>{r}); },
         {}},
        {&kInfoRecord,
         [](const Json& r) { return pmdctl::render_plan(r, Json::array({"plan line"})); },
         {}},
        {&kLogRecord,
         [](const Json& r) { return pmdctl::render_log(r); },
         {"enabled"}},  // "true" is what a record of a running channel says
    };
    for (const auto& c : cases) {
        const Json full = full_record(*c.schema);
        const std::string all = c.render(full);
        for (const auto& f : c.schema->fields) {
            if (c.json_only.count(std::string(f.key))) continue;
            INFO(c.schema->name << " field " << f.key);
            Json without = full;
            for (const auto& k : wire_keys(f)) without.erase(k);
            CHECK(c.render(without) != all);
        }
    }
    Json off = full_record(kLatencyRecord);
    off["enabled"] = "false";
    CHECK(pmdctl::render_latency(std::vector<Json>{off}, false).find("latency is off") !=
          std::string::npos);
}

TEST_CASE("pmdctl fields prints the tables the docs check holds", "[fields][pmdctl]") {
    const std::string md = pmdctl::render_fields(true);
    for (const auto* s : kRecordSchemas)
        CHECK(md.find(fields_markdown(*s, endpoint_paths(*s))) != std::string::npos);
    const std::string people = pmdctl::render_fields(false);
    const size_t row = people.find("\ndrop_link_down ");
    REQUIRE(row != std::string::npos);
    const std::string line = people.substr(row + 1, people.find('\n', row + 1) - row - 1);
    CHECK(line.find(" packets ") != std::string::npos);
    CHECK(line.find(" counter ") != std::string::npos);
    CHECK(
        line.ends_with("the TX queue took no more while the output port's link was down or its "
                       "interface gone"));
    const Json j = pmdctl::fields_json();
    REQUIRE(j.size() == std::size(kRecordSchemas));
    CHECK(j[1]["record"] == "worker");
    bool labelled = false;
    for (const auto& f : j[1]["fields"])
        if (f["key"] == "drop_tx_full") labelled = f["label"] == Json{{"reason", "tx_full"}};
    CHECK(labelled);
}
