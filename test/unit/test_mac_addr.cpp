// MAC addresses as text (mac_addr.hpp): both separators parse, one spelling
// prints, and every malformed text is refused.
#include <array>
#include <catch2/catch.hpp>

#include "mac_addr.hpp"

using namespace pmdfwd;

TEST_CASE("mac: parse and print", "[small][mac]") {
    const auto mac = MacAddr::parse("02:00:5e:10:AB:ff");
    REQUIRE(mac);
    CHECK(mac->bytes == std::array<uint8_t, 6>{0x02, 0x00, 0x5e, 0x10, 0xab, 0xff});
    CHECK(mac->to_string() == "02:00:5e:10:ab:ff");
    CHECK(MacAddr::parse("02-00-5E-10-AB-FF") == mac);
    CHECK(MacAddr::parse("00:00:00:00:00:00")->to_string() == "00:00:00:00:00:00");
    CHECK(MacAddr::parse(mac->to_string()) == mac);
    CHECK(MacAddr{} == *MacAddr::parse("00:00:00:00:00:00"));
    CHECK_FALSE(MacAddr{} == *mac);
    for (const char* bad :
         {"", "02:00:5e:10:ab", "02:00:5e:10:ab:ff:00", "02:00:5e:10:ab:f", "2:00:5e:10:ab:ff0",
          "02-00:5e:10:ab:ff", "02:00-5e:10:ab:ff", "02.00.5e.10.ab.ff", "0g:00:5e:10:ab:ff",
          "02:00:5e:10:ab:fG", "02 00 5e 10 ab ff", "020:0:5e:10:ab:ff", " 02:00:5e:10:ab:f"}) {
        INFO(bad);
        CHECK_FALSE(MacAddr::parse(bad));
    }
}
