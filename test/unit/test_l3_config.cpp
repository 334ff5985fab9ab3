// Router mode's config: [[port]] addresses, [[route]], [[neighbour]] and [l3]
// read from TOML, and every refusal of l3_config_check with the line,
// column and key it blames; the plan gives each worker a TX queue on every
// routed port and the control path one more.
#include <catch2/catch.hpp>
#include <string>

#include "config_loader.hpp"
#include "plan.hpp"
#include "system_check.hpp"

using namespace pmdfwd;

namespace {

// Three routed ports on null devices, lines numbered for the refusals.
const std::string kBase = R"([eal]
lcores = "0-3"

[[port]]
name = "a"
devargs = "net_null0"
addresses = ["10.1.0.1/24", "2001:db8:1::1/64"]

[[port]]
name = "b"
devargs = "net_null1"
addresses = ["10.2.0.1/24"]

[[port]]
name = "c"
devargs = "net_null2"
addresses = ["10.3.0.1/30"]

[forward]
mode = "l3"
)";

// The plan of a config's text, or the refusal as "line:column key: message".
std::variant<Plan, std::string> plan_of_text(const std::string& text) {
    auto parsed = parse_config(text, "r.toml");
    if (auto* e = std::get_if<ConfigError>(&parsed))
        return std::to_string(e->line) + ":" + std::to_string(e->column) + " " + e->key + ": " +
               e->message;
    auto planned = build_plan(std::get<Config>(parsed));
    if (auto* e = std::get_if<ConfigError>(&planned))
        return std::to_string(e->line) + ":" + std::to_string(e->column) + " " + e->key + ": " +
               e->message;
    return std::get<Plan>(planned);
}

// The plan of kBase + extra, or the refusal.
std::variant<Plan, std::string> plan_of(const std::string& extra) {
    return plan_of_text(kBase + extra);
}

std::string l3_refusal(const std::string& extra) {
    auto r = plan_of(extra);
    if (std::holds_alternative<Plan>(r)) FAIL("planned without a refusal");
    return std::get<std::string>(r);
}

}  // namespace

TEST_CASE("l3 config: addresses, routes, neighbours and [l3] are read", "[l3][config]") {
    auto parsed = parse_config(kBase + R"(
[[route]]
prefix = "0.0.0.0/0"
via = "10.2.0.254"

[[route]]
prefix = "2001:db8:9::/48"
via = "2001:db8:1::fe"
port = "a"

[[route]]
prefix = "192.168.7.0/24"
port = "c"

[[neighbour]]
address = "10.1.0.9"
mac = "02:00:00:00:00:09"
port = "a"

[l3]
max_routes = 1000
neighbour_queue = 4
icmp_rate_limit = 0
)",
                               "r.toml");
    REQUIRE(std::holds_alternative<Config>(parsed));
    const Config& cfg = std::get<Config>(parsed);
    REQUIRE(cfg.ports[0].addresses.size() == 2);
    CHECK(cfg.ports[0].addresses[1].to_string() == "2001:db8:1::1/64");
    CHECK(cfg.ports[0].address_locs[0].line == 7);
    REQUIRE(cfg.routes.size() == 3);
    CHECK(cfg.routes[0].prefix.to_string() == "0.0.0.0/0");
    CHECK(cfg.routes[0].via->to_string() == "10.2.0.254");
    CHECK(cfg.routes[0].port.empty());
    CHECK(cfg.routes[2].port == "c");
    CHECK_FALSE(cfg.routes[2].via.has_value());
    REQUIRE(cfg.neighbours.size() == 1);
    CHECK(cfg.neighbours[0].mac.to_string() == "02:00:00:00:00:09");
    CHECK(cfg.l3.max_routes == 1000);
    CHECK(cfg.l3.neighbour_queue == 4);
    CHECK(cfg.l3.icmp_rate_limit == 0);
    CHECK(cfg.l3.punt_ring == 1024);  // default
}

TEST_CASE("l3 plan: a TX queue per worker on every routed port, one for the control path",
          "[l3][plan]") {
    auto r = plan_of("");
    REQUIRE(std::holds_alternative<Plan>(r));
    const Plan& plan = std::get<Plan>(r);
    REQUIRE(plan.workers.size() == 3);
    for (const auto& w : plan.workers) {
        REQUIRE(w.l3_tx_queue.size() == 3);
        for (int p = 0; p < 3; ++p) CHECK(w.l3_tx_queue[size_t(p)] == int(w.id));
        CHECK(w.tx_port == kNoPort);
    }
    for (const auto& pp : plan.ports) {
        CHECK(pp.tx_queues == 4);
        CHECK(pp.control_queue == 3);
        CHECK(pp.tx == TxMode::per_worker);
    }
}

TEST_CASE("l3 plan: a port without addresses is polled but never sent on", "[l3][plan]") {
    auto parsed = parse_config(R"([eal]
lcores = "0-2"
[[port]]
name = "in"
devargs = "net_null0"
[[port]]
name = "out"
devargs = "net_null1"
addresses = ["10.0.0.1/24"]
[forward]
mode = "l3"
)",
                               "r.toml");
    REQUIRE(std::holds_alternative<Config>(parsed));
    auto planned = build_plan(std::get<Config>(parsed));
    REQUIRE(std::holds_alternative<Plan>(planned));
    const Plan& plan = std::get<Plan>(planned);
    CHECK(plan.ports[0].tx_queues == 0);
    CHECK(plan.ports[0].control_queue == -1);
    CHECK(plan.workers[0].l3_tx_queue == std::vector<int>{-1, 0});
    CHECK(plan.workers[1].l3_tx_queue == std::vector<int>{-1, 1});
    CHECK(plan.ports[1].control_queue == 2);
}

TEST_CASE("l3 config: each refusal names its line, column and key", "[l3][config]") {
    // Text errors, from the loader.
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/33\"\nport = \"a\"\n") ==
          "22:10 route[0].prefix: '10.9.0.0/33': prefix length '33' is not a number in [0, 32]");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/16\"\n") ==
          "21:1 route[0].port: a route needs via (a next hop), port (on-link: each destination "
          "is resolved on that port), or both");
    CHECK(l3_refusal("[[neighbour]]\naddress = \"10.1.0.9\"\nmac = \"01:00:5e:00:00:01\"\nport = "
                     "\"a\"\n") ==
          "23:7 neighbour[0].mac: '01:00:5e:00:00:01' is a multicast MAC address");
    CHECK(l3_refusal("[l3]\npunt_ring = 1000\n") ==
          "22:13 l3.punt_ring: punt_ring 1000 is not a power of two");

    // Routes.
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.1/16\"\nvia = \"10.2.0.9\"\n") ==
          "22:10 route[0].prefix: '10.9.0.1/16' has host bits set; the prefix is '10.9.0.0/16'");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/16\"\nvia = \"10.8.0.9\"\n") ==
          "23:7 route[0].via: '10.8.0.9' is on no connected subnet, so it cannot be reached; a "
          "next hop must be a neighbour on a port's subnet");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/16\"\nvia = \"10.2.0.9\"\nport = \"a\"\n") ==
          "23:7 route[0].via: '10.2.0.9' is on no connected subnet of port 'a', so it cannot be "
          "reached; a next hop must be a neighbour on a port's subnet");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/16\"\nvia = \"10.2.0.1\"\n") ==
          "23:7 route[0].via: '10.2.0.1' is one of this router's own addresses (port 'b')");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/16\"\nvia = \"2001:db8:1::9\"\n") ==
          "23:7 route[0].via: '2001:db8:1::9' is not IPv4, as the prefix is");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.2.0.0/24\"\nvia = \"10.1.0.9\"\n") ==
          "22:10 route[0].prefix: '10.2.0.0/24' is the connected subnet of port 'b' already");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/16\"\nvia = \"10.2.0.9\"\n[[route]]\nprefix = "
                     "\"10.9.0.0/16\"\nvia = \"10.1.0.9\"\n") ==
          "25:10 route[1].prefix: '10.9.0.0/16' has another [[route]] already");
    CHECK(l3_refusal("[[route]]\nprefix = \"2001:db8:7::/48\"\nport = \"b\"\n") ==
          "23:8 route[0].port: port 'b' has no IPv6 address to resolve on-link destinations "
          "from; give it one or add via");
    CHECK(l3_refusal("[[route]]\nprefix = \"10.9.0.0/16\"\nport = \"z\"\n") ==
          "23:8 route[0].port: names port 'z', which is not a configured [[port]]");

    // Neighbours.
    CHECK(l3_refusal("[[neighbour]]\naddress = \"10.2.0.9\"\nmac = \"02:00:00:00:00:01\"\nport = "
                     "\"a\"\n") ==
          "22:11 neighbour[0].address: '10.2.0.9' is on no subnet of port 'a'");
    CHECK(
        l3_refusal("[[neighbour]]\naddress = \"10.1.0.1\"\nmac = \"02:00:00:00:00:01\"\nport = "
                   "\"a\"\n") ==
        "22:11 neighbour[0].address: '10.1.0.1' is one of this router's own addresses (port 'a')");
    CHECK(l3_refusal(
              "[[neighbour]]\naddress = \"10.1.0.7\"\nmac = \"02:00:00:00:00:01\"\nport = "
              "\"a\"\n[[neighbour]]\naddress = \"10.1.0.7\"\nmac = \"02:00:00:00:00:02\"\nport "
              "= \"a\"\n") ==
          "26:11 neighbour[1].address: '10.1.0.7' on port 'a' has another [[neighbour]] already");

    // Mode.
    CHECK(l3_refusal("pairs = [[\"a\", \"b\"]]\n") ==
          "21:10 forward.pairs: mode \"l3\" sends each packet where its route says; pairs are for "
          "\"patch\" and \"l2\": remove them");
}

TEST_CASE("l3 config: interface addresses a router cannot have", "[l3][config]") {
    const auto with_c = [](const std::string& address) {
        std::string text = kBase;
        text.replace(text.find("10.3.0.1/30"), 11, address);
        auto parsed = parse_config(text, "r.toml");
        REQUIRE(std::holds_alternative<Config>(parsed));
        auto planned = build_plan(std::get<Config>(parsed));
        REQUIRE(std::holds_alternative<ConfigError>(planned));
        const auto& e = std::get<ConfigError>(planned);
        CHECK(e.line == 17);
        CHECK(e.key == "port[2].addresses");
        return e.message;
    };
    CHECK(with_c("10.3.0.0/24") ==
          "'10.3.0.0/24' is the network address of its subnet; give the interface's own address, "
          "like 10.3.0.1/24");
    CHECK(with_c("10.3.0.255/24") == "'10.3.0.255/24' is the broadcast address of its subnet");
    CHECK(with_c("127.0.0.1/8") == "'127.0.0.1/8' is a loopback address");
    CHECK(with_c("224.0.0.1/24") == "'224.0.0.1/24' is a multicast or reserved address");
    CHECK(with_c("0.1.2.3/8") == "'0.1.2.3/8' is in 0.0.0.0/8, which no interface may have");
    CHECK(with_c("ff02::1/64") == "'ff02::1/64' is a multicast address");
    CHECK(with_c("::/64") == "'::/64' is the unspecified address ::");
    CHECK(with_c("10.1.0.1/24") == "'10.1.0.1/24' is already '10.1.0.1/24' of port 'a'");
    CHECK(with_c("10.1.0.77/16") ==
          "the subnet of '10.1.0.77/16' overlaps that of '10.1.0.1/24' of port 'a'; a subnet is "
          "connected through one interface address");
    // A /31 (RFC 3021) and a /32 have no network or broadcast address.
    std::string text = kBase;
    text.replace(text.find("10.3.0.1/30"), 11, "10.3.0.0/31");
    auto parsed = parse_config(text, "r.toml");
    REQUIRE(std::holds_alternative<Config>(parsed));
    CHECK(std::holds_alternative<Plan>(build_plan(std::get<Config>(parsed))));
}

TEST_CASE("l3 config: outside mode l3, router keys are refused", "[l3][config]") {
    std::string text = kBase;
    text.replace(text.find("mode = \"l3\""), 11, "mode = \"patch\"\npairs = [[\"a\", \"b\"]]");
    auto parsed = parse_config(text, "r.toml");
    REQUIRE(std::holds_alternative<Config>(parsed));
    auto planned = build_plan(std::get<Config>(parsed));
    REQUIRE(std::holds_alternative<ConfigError>(planned));
    const auto& e = std::get<ConfigError>(planned);
    CHECK(e.line == 7);
    CHECK(e.key == "port[0].addresses");
    CHECK(e.message ==
          "addresses is used only by forward.mode = \"l3\"; remove it or set mode = \"l3\"");
}

TEST_CASE("l3 config: no routed port, and too many routes", "[l3][config]") {
    auto parsed = parse_config(R"([[port]]
name = "a"
devargs = "net_null0"
[forward]
mode = "l3"
)",
                               "r.toml");
    REQUIRE(std::holds_alternative<Config>(parsed));
    auto planned = build_plan(std::get<Config>(parsed));
    REQUIRE(std::holds_alternative<ConfigError>(planned));
    CHECK(std::get<ConfigError>(planned).key == "forward.mode");
    CHECK(std::get<ConfigError>(planned).line == 5);

    std::string routes = "[l3]\nmax_routes = 16\n";
    for (int i = 0; i < 20; ++i)
        routes +=
            "[[route]]\nprefix = \"172.16." + std::to_string(i) + ".0/24\"\nvia = \"10.1.0.9\"\n";
    const std::string why = l3_refusal(routes);
    INFO(why);
    CHECK(why.rfind("22:14 l3.max_routes: the config's IPv4 routes (32,", 0) == 0);
}

// kBase with `kernel_interface = "<a_name>"` on port a (line 8) and, when
// given, `b_line` on port b (line 14).
std::string with_kernel_interfaces(const std::string& a_name, const std::string& b_line = "") {
    std::string text = kBase;
    const std::string a_at = "addresses = [\"10.1.0.1/24\", \"2001:db8:1::1/64\"]\n";
    text.insert(text.find(a_at) + a_at.size(), "kernel_interface = \"" + a_name + "\"\n");
    const std::string b_at = "addresses = [\"10.2.0.1/24\"]\n";
    if (!b_line.empty()) text.insert(text.find(b_at) + b_at.size(), b_line + "\n");
    return text;
}

TEST_CASE("l3 config: kernel interfaces are read and checked", "[l3][config]") {
    auto parsed =
        parse_config(with_kernel_interfaces("wan0") + "[l3]\nkernel_rate_limit = 50\n", "r.toml");
    REQUIRE(std::holds_alternative<Config>(parsed));
    const Config& cfg = std::get<Config>(parsed);
    CHECK(cfg.ports[0].kernel_interface == "wan0");
    CHECK(cfg.ports[0].kernel_interface_loc.line == 8);
    CHECK(cfg.ports[1].kernel_interface.empty());
    CHECK(cfg.l3.kernel_rate_limit == 50);
    CHECK(cfg.l3.kernel_rate_burst == 1000);  // default
    CHECK(std::holds_alternative<Plan>(build_plan(cfg)));

    auto error_of = [](const std::string& text) {
        auto r = plan_of_text(text);
        return std::holds_alternative<Plan>(r) ? std::string("accepted") : std::get<std::string>(r);
    };
    CHECK(error_of(with_kernel_interfaces("a/b")) ==
          "8:20 port[0].kernel_interface: must be 1-15 characters of letters, digits, '_', '-' "
          "or '.', not '.' or '..'");
    CHECK(error_of(with_kernel_interfaces("..")) ==
          "8:20 port[0].kernel_interface: must be 1-15 characters of letters, digits, '_', '-' "
          "or '.', not '.' or '..'");
    CHECK(error_of(with_kernel_interfaces("a-name-too-long1")) ==
          "8:20 port[0].kernel_interface: string is longer than 15 bytes");
    CHECK(error_of(with_kernel_interfaces("wan0", "kernel_interface = \"wan0\"")) ==
          "14:20 port[1].kernel_interface: 'wan0' is already the kernel interface of port 'a'");
    std::string own_tap = with_kernel_interfaces("pmd-b");
    own_tap.replace(own_tap.find("devargs = \"net_null1\""), 21,
                    "devargs = \"net_tap1,iface=pmd-b\"");
    CHECK(error_of(own_tap) ==
          "8:20 port[0].kernel_interface: 'pmd-b' is the interface of port 'b' "
          "(net_tap1,iface=pmd-b); give the kernel interface a name of its own");
    std::string patch = with_kernel_interfaces("wan0");
    patch.replace(patch.find("mode = \"l3\""), 11, "mode = \"patch\"\npairs = [[\"a\", \"b\"]]");
    for (const std::string line :
         {"addresses = [\"10.1.0.1/24\", \"2001:db8:1::1/64\"]\n",
          "addresses = [\"10.2.0.1/24\"]\n", "addresses = [\"10.3.0.1/30\"]\n"})
        patch.erase(patch.find(line), line.size());
    CHECK(error_of(patch) ==
          "7:20 port[0].kernel_interface: kernel_interface is used only by forward.mode = "
          "\"l3\"; remove it or set mode = \"l3\"");
}

TEST_CASE("l3 system check: a kernel interface needs the tun device and its name free",
          "[l3][config]") {
    auto parsed = parse_config(with_kernel_interfaces("wan0"), "r.toml");
    REQUIRE(std::holds_alternative<Config>(parsed));
    const Config& cfg = std::get<Config>(parsed);
    SystemFacts facts;
    facts.interfaces = {"lo", "eth0"};
    CHECK_FALSE(check_against_system(cfg, facts));

    facts.interfaces.push_back("wan0");
    auto e = check_against_system(cfg, facts);
    REQUIRE(e);
    CHECK(e->line == 8);
    CHECK(e->key == "port[0].kernel_interface");
    CHECK(e->message ==
          "an interface named 'wan0' exists already; pmdfwd makes its kernel interface itself "
          "(is another pmdfwd running with this config?)");

    facts.interfaces = {"lo"};
    facts.tun_device = false;
    e = check_against_system(cfg, facts);
    REQUIRE(e);
    CHECK(e->key == "port[0].kernel_interface");
    CHECK(e->message.starts_with("needs /dev/net/tun"));
}
