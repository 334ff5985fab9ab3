// Addresses and prefixes as the config will write them: what parses, what
// each mistake is told, host bits, and contains() at every length.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ip_prefix.hpp"

using namespace pmdfwd;

namespace {

IpPrefix prefix(const char* text) {
    std::string why;
    const auto p = parse_ip_prefix(text, &why);
    if (!p) FAIL(text << ": " << why);
    return *p;
}

IpAddress address(const char* text) {
    std::string why;
    const auto a = parse_ip_address(text, &why);
    if (!a) FAIL(text << ": " << why);
    return *a;
}

std::string parse_refusal(std::string_view text) {
    std::string why;
    if (parse_ip_prefix(text, &why)) return "(parsed)";
    return why;
}

// The address with bit i (0 = the most significant) flipped.
IpAddress flip(IpAddress a, unsigned bit) {
    a.bytes[bit / 8] = uint8_t(a.bytes[bit / 8] ^ (0x80 >> (bit % 8)));
    return a;
}

}  // namespace

TEST_CASE("ip prefix: routes, interface addresses and defaults parse", "[l3][prefix]") {
    const auto route = prefix("10.0.0.0/24");
    CHECK(route.address.family == IpFamily::v4);
    CHECK(route.address.v4_host_order() == 0x0a000000);
    CHECK(route.length == 24);
    CHECK_FALSE(route.host_bits_set());
    CHECK(route.to_string() == "10.0.0.0/24");

    const auto iface = prefix("10.0.0.1/24");
    CHECK(iface.host_bits_set());
    CHECK(iface.address.v4_host_order() == 0x0a000001);  // kept as written
    CHECK(iface.network() == route);
    CHECK(iface.to_string() == "10.0.0.1/24");

    const auto v6 = prefix("2001:db8::/32");
    CHECK(v6.address.family == IpFamily::v6);
    CHECK(v6.address.bytes[0] == 0x20);
    CHECK(v6.address.bytes[3] == 0xb8);
    CHECK(v6.length == 32);
    CHECK_FALSE(v6.host_bits_set());
    CHECK(v6.to_string() == "2001:db8::/32");
    CHECK(prefix("2001:DB8::1/64").host_bits_set());
    CHECK(prefix("2001:DB8::1/64").network().to_string() == "2001:db8::/64");

    CHECK(prefix("0.0.0.0/0").to_string() == "0.0.0.0/0");
    CHECK_FALSE(prefix("0.0.0.0/0").host_bits_set());
    CHECK(prefix("::/0").to_string() == "::/0");
    CHECK(prefix("::/0").address.family == IpFamily::v6);
    CHECK(prefix("10.0.0.0/0").host_bits_set());
    CHECK_FALSE(prefix("10.0.0.1/32").host_bits_set());
    CHECK_FALSE(prefix("2001:db8::1/128").host_bits_set());
    CHECK(prefix("::ffff:10.0.0.0/104").address.family == IpFamily::v6);
    CHECK(prefix("fe80::/10").to_string() == "fe80::/10");
}

TEST_CASE("ip prefix: each mistake is told what is wrong", "[l3][prefix]") {
    const std::string no_slash =
        " is not a prefix: expected \"address/length\", such as \"10.0.0.0/24\" or "
        "\"2001:db8::/32\"";
    CHECK(parse_refusal("") == "''" + no_slash);
    CHECK(parse_refusal("10.0.0.0") == "'10.0.0.0'" + no_slash);
    CHECK(parse_refusal("2001:db8::") == "'2001:db8::'" + no_slash);

    const std::string not_v4 = " is not a numeric IPv4 address (a dotted quad such as 10.0.0.1)";
    CHECK(parse_refusal("10.0.0.256/24") == "'10.0.0.256'" + not_v4);
    CHECK(parse_refusal("10.0.0/24") == "'10.0.0'" + not_v4);
    CHECK(parse_refusal("010.0.0.0/8") == "'010.0.0.0'" + not_v4);
    CHECK(parse_refusal(" 10.0.0.0/8") == "' 10.0.0.0'" + not_v4);
    CHECK(parse_refusal("/24") == "''" + not_v4);
    CHECK(parse_refusal("router/24") == "'router'" + not_v4);

    const std::string not_v6 = " is not a numeric IPv6 address";
    CHECK(parse_refusal("2001:db8:::/32") == "'2001:db8:::'" + not_v6);
    CHECK(parse_refusal("fe80::1%eth0/64") == "'fe80::1%eth0'" + not_v6);
    CHECK(parse_refusal("[2001:db8::]/32") == "'[2001:db8::]'" + not_v6);
    const std::string long_address(60, '1');
    std::string too_long = "'";
    too_long.append(long_address).append(":' is too long for an IP address");
    CHECK(parse_refusal(long_address + ":/8") == too_long);

    CHECK(parse_refusal("10.0.0.0/") == "prefix length '' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/33") == "prefix length '33' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/024") == "prefix length '024' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/+8") == "prefix length '+8' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/-1") == "prefix length '-1' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/ 8") == "prefix length ' 8' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/8 ") == "prefix length '8 ' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/8/8") == "prefix length '8/8' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/1000") == "prefix length '1000' is not a number in [0, 32]");
    CHECK(parse_refusal("10.0.0.0/0x8") == "prefix length '0x8' is not a number in [0, 32]");
    CHECK(parse_refusal("2001:db8::/129") == "prefix length '129' is not a number in [0, 128]");
    CHECK(parse_refusal("::/") == "prefix length '' is not a number in [0, 128]");
}

TEST_CASE("ip prefix: addresses parse alone", "[l3][prefix]") {
    CHECK(address("192.0.2.1").v4_host_order() == 0xc0000201);
    CHECK(address("192.0.2.1").to_string() == "192.0.2.1");
    CHECK(address("::1").to_string() == "::1");
    CHECK(address("2001:0DB8:0:0:0:0:0:1").to_string() == "2001:db8::1");
    CHECK(address("0.0.0.0") == IpAddress{});
    std::string why;
    CHECK_FALSE(parse_ip_address("192.0.2.1/32", &why));
    CHECK(why == "'192.0.2.1/32' is not a numeric IPv4 address (a dotted quad such as 10.0.0.1)");
    CHECK_FALSE(parse_ip_address("::1/128", &why));
    CHECK(why == "'::1/128' is not a numeric IPv6 address");
}

TEST_CASE("ip prefix: contains() at every prefix length boundary", "[l3][prefix]") {
    for (const char* base_text :
         {"203.0.113.77", "255.255.255.255", "0.0.0.0", "2001:db8:85a3::8a2e:370:7334",
          "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::"}) {
        const IpAddress base = address(base_text);
        for (unsigned length = 0; length <= base.bits(); ++length) {
            CAPTURE(base_text, length);
            // The same prefix as written with host bits and without.
            for (const IpPrefix p :
                 {IpPrefix{base, uint8_t(length)}, IpPrefix{base, uint8_t(length)}.network()}) {
                CHECK(contains(p, base));
                // The last bit of the prefix decides; the first host bit does not.
                if (length > 0) CHECK_FALSE(contains(p, flip(base, length - 1)));
                if (length < base.bits()) CHECK(contains(p, flip(base, length)));
                if (length < base.bits())
                    CHECK(contains(p, flip(base, base.bits() - 1)));      // the last bit
                if (length > 0) CHECK_FALSE(contains(p, flip(base, 0)));  // the first bit
            }
        }
    }
}

TEST_CASE("ip prefix: contains() over whole ranges and across families", "[l3][prefix]") {
    const auto net = prefix("10.1.2.0/23");
    CHECK(contains(net, address("10.1.2.0")));
    CHECK(contains(net, address("10.1.3.255")));
    CHECK_FALSE(contains(net, address("10.1.1.255")));
    CHECK_FALSE(contains(net, address("10.1.4.0")));
    CHECK(contains(prefix("10.1.3.9/23"), address("10.1.2.1")));  // an interface's neighbour

    const auto v6 = prefix("2001:db8:aa00::/40");
    CHECK(contains(v6, address("2001:db8:aa00::1")));
    CHECK(contains(v6, address("2001:db8:aaff:ffff:ffff:ffff:ffff:ffff")));
    CHECK_FALSE(contains(v6, address("2001:db8:ab00::")));
    CHECK_FALSE(contains(v6, address("2001:db8:a9ff:ffff:ffff:ffff:ffff:ffff")));

    CHECK(contains(prefix("0.0.0.0/0"), address("198.51.100.1")));
    CHECK(contains(prefix("::/0"), address("2001:db8::1")));
    // No family holds the other's addresses, not even under a default route.
    CHECK_FALSE(contains(prefix("0.0.0.0/0"), address("::")));
    CHECK_FALSE(contains(prefix("::/0"), address("0.0.0.0")));
    CHECK_FALSE(contains(prefix("::/0"), address("10.0.0.1")));
    CHECK_FALSE(contains(prefix("::ffff:0:0/96"), address("10.0.0.1")));
}

// Tables keyed by prefix (the router's RIB) list in this order: IPv4 before
// IPv6, numerically (not as text, where 10.9 would follow 10.10), a shorter
// prefix of a network before a longer one.
TEST_CASE("ip prefix: ordered by family, address, then length", "[l3][prefix]") {
    const std::vector<const char*> in_order = {
        "0.0.0.0/0",        "10.9.0.0/16", "10.10.0.0/16",  "10.10.0.0/24",  "10.10.0.1/32",
        "192.0.2.0/24",     "::/0",        "2001:db8::/32", "2001:db8::/64", "2001:db8:9::/48",
        "2001:db8:10::/48", "fe80::/10"};
    for (size_t i = 0; i < in_order.size(); ++i)
        for (size_t k = 0; k < in_order.size(); ++k) {
            INFO(in_order[i] << " vs " << in_order[k]);
            CHECK((prefix(in_order[i]) < prefix(in_order[k])) == (i < k));
            CHECK((prefix(in_order[i]) == prefix(in_order[k])) == (i == k));
        }
    CHECK(address("10.0.0.9") < address("10.0.0.10"));
    CHECK(address("255.255.255.255") < address("::"));
}
