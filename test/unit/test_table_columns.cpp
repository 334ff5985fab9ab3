// pmdctl's tables and their column references: docs/cli.md carries each
// documented table's reference as `pmdctl fields --columns` prints it, and
// every field column names its field (so its header and meaning are the
// field table's). No socket.
#include <catch2/catch.hpp>

#include "source_file.hpp"
#include "table_columns.hpp"

using namespace pmdctl;

TEST_CASE("table columns: docs/cli.md carries each table's generated reference", "[columns]") {
    const std::string cli_md = read_source_file("docs/cli.md");
    REQUIRE_FALSE(cli_md.empty());
    for (const auto& t : documented_tables()) {
        INFO(t.name);
        const std::string marker =
            "<!-- pmdctl fields --columns '" + std::string(t.name) + "' -->\n";
        CHECK(cli_md.find(marker + columns_markdown(t.columns)) != std::string::npos);
    }
}

TEST_CASE("table columns: a derived column says how it is made and has a cell", "[columns]") {
    for (const auto& t : documented_tables())
        for (const auto& c : t.columns) {
            INFO(std::string(t.name) + ": " + std::string(c.head()));
            CHECK_FALSE(c.head().empty());
            if (c.field.schema) continue;
            CHECK_FALSE(c.meaning.empty());
            CHECK(c.derive != nullptr);
        }
}
