// pmdctl's tables (table.hpp): columns padded, line ends trimmed, and a
// word over a header.
#include <catch2/catch.hpp>

#include "table.hpp"

using namespace pmdctl;

TEST_CASE("tables pad columns and trim the line end", "[pmdctl]") {
    Table t;
    t.columns = {{"name", Align::kLeft}, {"pkts"}, {"note", Align::kLeft}};
    t.rows = {{"p0", "1.23M", "x"}, {"wan0", "7", ""}};
    CHECK(t.render() ==
          "name   pkts  note\n"
          "p0    1.23M  x\n"
          "wan0      7\n");
    t.show_header = false;
    CHECK(t.render() ==
          "p0    1.23M  x\n"
          "wan0      7\n");
}

TEST_CASE("tables can put a word over a header", "[pmdctl]") {
    Table t;
    t.columns = {{"pool", Align::kLeft}, {"fast", Align::kRight, "alloc"}, {"recycled"}};
    t.rows = {{"w0", "1.25M", "7"}};
    CHECK(t.render() ==
          "      alloc\n"
          "pool   fast  recycled\n"
          "w0    1.25M         7\n");
}
