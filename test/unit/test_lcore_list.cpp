// The EAL --lcores syntax as the plan reads it: order kept, first is main,
// cpu sets validated but ignored, every syntax error named with its offset.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lcore_list.hpp"

using namespace pmdfwd;

namespace {

using Ids = std::vector<unsigned>;

Ids ok(const std::string& text) {
    const auto r = parse_lcore_list(text);
    INFO(text << ": " << r.error);
    CHECK(r.error.empty());
    return r.lcores;
}

std::string error(const std::string& text) {
    const auto r = parse_lcore_list(text);
    INFO(text);
    CHECK_FALSE(r.error.empty());
    return r.error;
}

}  // namespace

TEST_CASE("lcore list: numbers, ranges and groups in the order given", "[lcore_list]") {
    CHECK(ok("0") == Ids{0});
    CHECK(ok("7") == Ids{7});
    CHECK(ok("0-2") == Ids{0, 1, 2});
    CHECK(ok("3-3") == Ids{3});
    CHECK(ok("0,2,4") == Ids{0, 2, 4});
    CHECK(ok("4,2,0") == Ids{4, 2, 0});  // the first is the main lcore, whatever its number
    CHECK(ok("0,4-6,2") == Ids{0, 4, 5, 6, 2});
    CHECK(ok("(0,1)") == Ids{0, 1});
    CHECK(ok("(0-1,5)") == Ids{0, 1, 5});
    CHECK(ok("127") == Ids{127});
    CHECK(ok("120-127").size() == 8);
}

TEST_CASE("lcore list: cpu sets after '@' are checked, not returned", "[lcore_list]") {
    CHECK(ok("0@0,1@0,2@1") == Ids{0, 1, 2});
    CHECK(ok("0@0,(1-2)@1") == Ids{0, 1, 2});
    CHECK(ok("(0,1)@(0-1)") == Ids{0, 1});
    CHECK(ok("0@5-6,1@(2,3)") == Ids{0, 1});
    CHECK(ok("0@0,1@0") == Ids{0, 1});  // many lcores on one cpu is allowed
    CHECK(error("0@") == "expected an lcore number at offset 2");
    CHECK(error("0@(1") == "missing ')' at offset 4");
    CHECK(error("0@x") == "expected an lcore number at offset 2");
    CHECK(error("0@200") == "lcore 200 is above the maximum 127");
}

TEST_CASE("lcore list: syntax errors name the offset", "[lcore_list]") {
    CHECK(error("") == "the lcore list is empty");
    CHECK(error("a") == "expected an lcore number at offset 0");
    CHECK(error(",0") == "expected an lcore number at offset 0");
    CHECK(error("0,") == "expected an lcore number at offset 2");
    CHECK(error("0,,1") == "expected an lcore number at offset 2");
    CHECK(error("1-") == "bad lcore range at offset 2");
    CHECK(error("2-0") == "bad lcore range at offset 3");
    CHECK(error("-1") == "expected an lcore number at offset 0");
    CHECK(error("(1") == "missing ')' at offset 2");
    CHECK(error("()") == "expected an lcore number at offset 1");
    CHECK(error("0)") == "unexpected ')' at offset 1");
    CHECK(error("0 ,1") == "unexpected ' ' at offset 1");
    CHECK(error(" 0") == "expected an lcore number at offset 0");
    CHECK(error("0;1") == "unexpected ';' at offset 1");
    CHECK(error("0-2x") == "unexpected 'x' at offset 3");
}

TEST_CASE("lcore list: ids above RTE_MAX_LCORE - 1 and duplicates", "[lcore_list]") {
    CHECK(error("128") == "lcore 128 is above the maximum 127");
    CHECK(error("0-128") == "lcore 128 is above the maximum 127");
    CHECK(error("0,(1,128)") == "lcore 128 is above the maximum 127");
    // A huge number stops being read (at the digit past 100000) before it
    // can wrap around; the offset is where reading stopped.
    CHECK(error("99999999999999999999") == "expected an lcore number at offset 5");
    CHECK(error("0-4294967297") == "bad lcore range at offset 7");
    CHECK(error("100001") == "expected an lcore number at offset 5");
    CHECK(error("100000") == "lcore 100000 is above the maximum 127");
    CHECK(error("0,0") == "an lcore appears twice");
    CHECK(error("0-3,2") == "an lcore appears twice");
    CHECK(error("(1,1)") == "an lcore appears twice");
    CHECK(error("0@0,0@1") == "an lcore appears twice");
}
