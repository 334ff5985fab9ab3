// The kernel side of a tap port (kernel_link.hpp): the interface a tun
// file's fdinfo names, or none once it is detached.
#include <catch2/catch.hpp>

#include "kernel_link.hpp"

using namespace pmdfwd;

TEST_CASE("a tun file's fdinfo names its interface", "[small][quirks]") {
    CHECK(tun_fdinfo_iff("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1040\niff:\tdtap0\n") == "dtap0");
    CHECK(tun_fdinfo_iff("pos:\t0\niff:\t\n") == "");      // detached: the interface was deleted
    CHECK(!tun_fdinfo_iff("pos:\t0\nflags:\t0100002\n"));  // not a tun file
    CHECK(!tun_fdinfo_iff(""));
}
