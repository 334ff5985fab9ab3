// Numbers for people (units.hpp): counts, bytes, durations and nanoseconds
// in three significant digits, and percentages.
#include <catch2/catch.hpp>

#include "units.hpp"

using pmdfwd::human_bytes;
using pmdfwd::human_count;
using pmdfwd::human_duration;
using pmdfwd::human_ns;
using pmdfwd::percent;

TEST_CASE("human units keep three significant digits", "[pmdctl]") {
    CHECK(human_count(0) == "0");
    CHECK(human_count(999) == "999");
    CHECK(human_count(1000) == "1.00K");
    CHECK(human_count(1234) == "1.23K");
    CHECK(human_count(12345) == "12.3K");
    CHECK(human_count(123456) == "123K");
    CHECK(human_count(999499) == "999K");
    CHECK(human_count(999500) == "1.00M");  // rounds up a suffix, never "1000K"
    CHECK(human_count(9996) == "10.0K");    // never "10.00K"
    CHECK(human_count(1230000) == "1.23M");
    CHECK(human_count(UINT64_MAX) == "18.4E");
    CHECK(human_bytes(512) == "512B");
    CHECK(human_bytes(1500) == "1.50KB");
    CHECK(percent(1, 3) == "33.3%");
    CHECK(percent(1, 0) == "-");
    CHECK(human_duration(7) == "7s");
    CHECK(human_duration(245) == "4m05s");
    CHECK(human_duration(3723) == "1h02m03s");
}

TEST_CASE("nanoseconds in human units", "[pmdctl]") {
    CHECK(human_ns(0) == "0ns");
    CHECK(human_ns(511) == "511ns");
    CHECK(human_ns(999) == "999ns");
    CHECK(human_ns(1000) == "1.00us");
    CHECK(human_ns(1023) == "1.02us");  // a bucket's upper edge reads as the next bound
    CHECK(human_ns(1024) == "1.02us");
    CHECK(human_ns(16384) == "16.4us");
    CHECK(human_ns(999499) == "999us");
    CHECK(human_ns(999500) == "1.00ms");
    CHECK(human_ns(1048576) == "1.05ms");
    CHECK(human_ns(uint64_t(1) << 31) == "2.15s");
    CHECK(human_ns(999'499'999'999) == "999s");
    CHECK(human_ns(999'500'000'000) == "1000s");  // never "1.00Ts"
    CHECK(human_ns(UINT64_MAX) == "18446744074s");
}
