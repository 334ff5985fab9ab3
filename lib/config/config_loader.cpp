// TOML -> Config. With config_writer.cpp, the only files that include toml++ (header-only build, so
// the fuzzer instruments the parser too). Runs on the main thread before EAL.
#include "config_loader.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "eal_args.hpp"
#include "file_check.hpp"
#include "listen_address.hpp"
#include "text_guard.hpp"
#include "toml_include.hpp"

namespace pmdfwd {

namespace {

struct ConfigThrow {
    ConfigError error;
};

// Reads one TOML table, remembering which keys were taken; whatever is left
// at finish() is an unknown key (FastClick Args::complete()).
class TableReader {
  public:
    TableReader(const toml::table& table, std::string path, const std::string& file)
        : table_(table), path_(std::move(path)), file_(file) {}

    template <class Int>
    void integer(const char* key, Int& out, int64_t lo, int64_t hi) {
        const toml::node* n = take(key);
        if (!n) return;
        const auto* v = n->as_integer();
        if (!v) fail(*n, key, "expected an integer, got " + type_name(*n));
        const int64_t x = v->get();
        if (x < lo || x > hi)
            fail(*n, key,
                 "value " + std::to_string(x) + " is out of range [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
        out = static_cast<Int>(x);
    }

    // Returns the node for further checks; nullptr when absent.
    const toml::node* boolean(const char* key, bool& out) {
        const toml::node* n = take(key);
        if (!n) return nullptr;
        const auto* v = n->as_boolean();
        if (!v) fail(*n, key, "expected true or false, got " + type_name(*n));
        out = v->get();
        return n;
    }

    // Returns the node for further checks; nullptr when absent.
    const toml::node* string(const char* key, std::string& out, size_t max_len = 255) {
        const toml::node* n = take(key);
        if (!n) return nullptr;
        const auto* v = n->as_string();
        if (!v) fail(*n, key, "expected a string, got " + type_name(*n));
        if (v->get().size() > max_len)
            fail(*n, key, "string is longer than " + std::to_string(max_len) + " bytes");
        out = v->get();
        return n;
    }

    // One of a fixed set of names; the error lists them.
    template <class E, size_t N>
    const toml::node* choice(const char* key, E& out, const std::pair<const char*, E> (&names)[N]) {
        const toml::node* n = take(key);
        if (n) out = choice_of(*n, key, names);
        return n;
    }

    // A node that must be one of `names`; `key` names it in errors.
    template <class E, size_t N>
    E choice_of(const toml::node& n, const char* key,
                const std::pair<const char*, E> (&names)[N]) const {
        const auto* v = n.as_string();
        if (!v) fail(n, key, "expected a string, got " + type_name(n));
        const std::string& text = v->get();
        std::string expected;
        for (size_t i = 0; i < N; ++i) {
            if (text == names[i].first) return names[i].second;
            expected += (i == 0       ? "\""
                         : i + 1 == N ? " or \""
                                      : ", \"") +
                        std::string(names[i].first) + "\"";
        }
        fail(n, key,
             "unknown " + std::string(key) + " '" + text.substr(0, 32) + "' (expected " + expected +
                 ")");
    }

    const toml::node* take(const char* key) {
        const toml::node* n = table_.get(key);
        if (n) taken_.insert(key);
        return n;
    }

    void finish() const {
        for (auto&& [k, v] : table_) {
            if (taken_.count(std::string(k.str()))) continue;
            const auto& src = k.source().begin ? k.source() : v.source();
            throw ConfigThrow{
                {file_, src.begin.line, src.begin.column, dotted(k.str()), "unknown key"}};
        }
    }

    [[noreturn]] void fail(const toml::node& n, std::string_view key, std::string message) const {
        throw ConfigThrow{
            {file_, n.source().begin.line, n.source().begin.column, dotted(key), message}};
    }

    std::string dotted(std::string_view key) const {
        return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    }
    const std::string& file() const { return file_; }

    static std::string type_name(const toml::node& n) {
        switch (n.type()) {
            case toml::node_type::table:
                return "a table";
            case toml::node_type::array:
                return "an array";
            case toml::node_type::string:
                return "a string";
            case toml::node_type::integer:
                return "an integer";
            case toml::node_type::floating_point:
                return "a float";
            case toml::node_type::boolean:
                return "a boolean";
            case toml::node_type::date:
                return "a date";
            case toml::node_type::time:
                return "a time";
            case toml::node_type::date_time:
                return "a date-time";
            default:
                return "nothing";
        }
    }

  private:
    const toml::table& table_;
    std::string path_;
    const std::string& file_;
    std::set<std::string, std::less<>> taken_;
};

SourceLoc loc_of(const toml::node& n) { return {n.source().begin.line, n.source().begin.column}; }

constexpr std::pair<const char*, ForwardMode> kForwardModes[] = {
    {"patch", ForwardMode::patch}, {"l2", ForwardMode::l2}, {"l3", ForwardMode::l3}};
constexpr std::pair<const char*, TxMode> kTxModes[] = {
    {"auto", TxMode::auto_select}, {"per-worker", TxMode::per_worker}, {"owner", TxMode::owner}};
constexpr std::pair<const char*, PollMode> kPollModes[] = {
    {"busy", PollMode::busy}, {"adaptive", PollMode::adaptive}, {"interrupt", PollMode::interrupt}};
constexpr std::pair<const char*, PoolModel> kPoolModels[] = {
    {"recycle", PoolModel::recycle},
    {"shared", PoolModel::shared},
    {"per-worker-stock", PoolModel::per_worker_stock}};

constexpr std::pair<const char*, NetlogFormat> kNetlogFormats[] = {
    {"extended", NetlogFormat::extended},
    {"plain", NetlogFormat::plain},
    {"rfc5424", NetlogFormat::rfc5424}};
constexpr std::pair<const char*, SyslogFacility> kSyslogFacilities[] = {
    {"kern", SyslogFacility::kern},         {"user", SyslogFacility::user},
    {"mail", SyslogFacility::mail},         {"daemon", SyslogFacility::daemon},
    {"auth", SyslogFacility::auth},         {"syslog", SyslogFacility::syslog},
    {"lpr", SyslogFacility::lpr},           {"news", SyslogFacility::news},
    {"uucp", SyslogFacility::uucp},         {"cron", SyslogFacility::cron},
    {"authpriv", SyslogFacility::authpriv}, {"ftp", SyslogFacility::ftp},
    {"local0", SyslogFacility::local0},     {"local1", SyslogFacility::local1},
    {"local2", SyslogFacility::local2},     {"local3", SyslogFacility::local3},
    {"local4", SyslogFacility::local4},     {"local5", SyslogFacility::local5},
    {"local6", SyslogFacility::local6},     {"local7", SyslogFacility::local7}};
constexpr std::pair<const char*, NetlogSendPath> kSendPaths[] = {
    {"pool-first", NetlogSendPath::pool_first}, {"alloc-first", NetlogSendPath::alloc_first}};

template <class E, size_t N>
const char* name_of(E value, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [name, v] : names)
        if (v == value) return name;
    return "?";
}

bool is_identifier(std::string_view s) {
    if (s.empty() || s.size() > 32) return false;
    for (const char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
    return true;
}

// A Linux interface name as `ip link` takes one: at most IFNAMSIZ - 1
// bytes, none of '/', ':' or whitespace; kept to the characters interface
// names are made of in practice.
bool is_interface_name(std::string_view s) {
    if (s.empty() || s.size() > 15 || s == "." || s == "..") return false;
    for (const char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
            return false;
    return true;
}

// Calls fn(element, text) for each string of the array at n; `expected`
// says what the key takes when n is no array, and a non-string element
// is named by its type.
template <class Fn>
void for_each_string(TableReader& r, const toml::node& n, const char* key,
                     const std::string& expected, Fn&& fn) {
    const auto* arr = n.as_array();
    if (!arr) r.fail(n, key, expected);
    for (const auto& e : *arr) {
        const auto* s = e.as_string();
        if (!s) r.fail(e, key, "expected an array of strings, found " + TableReader::type_name(e));
        fn(e, s->get());
    }
}

const toml::table& require_table(TableReader& parent, const toml::node& n, const char* key) {
    const auto* t = n.as_table();
    if (!t) parent.fail(n, key, "expected a table, got " + TableReader::type_name(n));
    return *t;
}

void read_eal(TableReader& root, const toml::node& node, EalConfig& eal) {
    TableReader r(require_table(root, node, "eal"), "eal", root.file());
    if (const auto* n = r.string("lcores", eal.lcores, 128)) eal.lcores_loc = loc_of(*n);
    if (const auto* n = r.take("memory_mb")) eal.memory_mb_loc = loc_of(*n);
    r.integer("memory_mb", eal.memory_mb, 64, 1 << 20);
    if (const auto* n = r.take("hugepages")) eal.hugepages_loc = loc_of(*n);
    r.boolean("hugepages", eal.hugepages);
    if (const auto* n = r.string("file_prefix", eal.file_prefix, 64)) {
        if (!is_identifier(eal.file_prefix))
            r.fail(*n, "file_prefix", "must be 1-32 characters of letters, digits, '_' or '-'");
    }
    if (const auto* n = r.take("extra_args")) {
        eal.extra_args_loc = loc_of(*n);
        for_each_string(r, *n, "extra_args", "expected an array of strings",
                        [&](const toml::node& e, const std::string& arg) {
                            if (const std::string why = owned_eal_option(arg); !why.empty())
                                r.fail(e, "extra_args", why + "; remove it from extra_args");
                            eal.extra_args.push_back(arg);
                        });
    }
    r.finish();
}

IpAddress read_ip(TableReader& r, const toml::node& n, const char* key, const std::string& text) {
    std::string why;
    const auto address = parse_ip_address(text, &why);
    if (!address) r.fail(n, key, "'" + text + "': " + why);
    return *address;
}

IpPrefix read_prefix(TableReader& r, const toml::node& n, const char* key,
                     const std::string& text) {
    std::string why;
    const auto prefix = parse_ip_prefix(text, &why);
    if (!prefix) r.fail(n, key, "'" + text + "': " + why);
    return *prefix;
}

// `addresses = ["10.0.0.1/24", "2001:db8::1/64"]`: each an address with its
// subnet's length.
void read_port_addresses(TableReader& r, const toml::node& n, PortConfig& port) {
    for_each_string(r, n, "addresses",
                    "expected an array of addresses with their prefix length, like "
                    "[\"10.0.0.1/24\", \"2001:db8::1/64\"]",
                    [&](const toml::node& e, const std::string& text) {
                        port.addresses.push_back(read_prefix(r, e, "addresses", text));
                        port.address_locs.push_back(loc_of(e));
                    });
}

// `poll = "adaptive"` (every rx queue) or `poll = ["busy", "interrupt"]`
// (one per rx queue, so each worker can differ).
void read_port_poll(TableReader& r, const toml::node& n, PortConfig& port) {
    port.poll_loc = loc_of(n);
    if (n.as_string()) {
        port.poll.push_back(r.choice_of(n, "poll", kPollModes));
        return;
    }
    const auto* arr = n.as_array();
    if (!arr)
        r.fail(n, "poll",
               "expected a poll mode or an array of them, one per rx queue, got " +
                   TableReader::type_name(n));
    if (arr->size() != port.rx_queues)
        r.fail(n, "poll",
               "has " + std::to_string(arr->size()) + " entries but the port has " +
                   std::to_string(port.rx_queues) +
                   " rx queues; give one mode per rx queue, or one string for all");
    for (const auto& e : *arr) port.poll.push_back(r.choice_of(e, "poll", kPollModes));
}

void read_port(TableReader& root, const toml::node& node, size_t index, PortConfig& port) {
    const std::string path = "port[" + std::to_string(index) + "]";
    const auto* t = node.as_table();
    if (!t) root.fail(node, path, "expected a table, got " + TableReader::type_name(node));
    TableReader r(*t, path, root.file());
    port.loc = loc_of(node);
    const auto* name = r.string("name", port.name, 32);
    if (!name) root.fail(node, path + ".name", "every [[port]] needs a name");
    if (!is_identifier(port.name))
        r.fail(*name, "name", "must be 1-32 characters of letters, digits, '_' or '-'");
    const auto* devargs = r.string("devargs", port.devargs, 255);
    if (!devargs) root.fail(node, path + ".devargs", "every [[port]] needs devargs");
    port.devargs_loc = loc_of(*devargs);
    if (port.devargs.empty() || port.devargs.find(' ') != std::string::npos)
        r.fail(*devargs, "devargs", "must be a non-empty device string without spaces");
    r.integer("rx_queues", port.rx_queues, 0, 64);
    r.integer("rx_desc", port.rx_desc, 32, 32768);
    r.integer("tx_desc", port.tx_desc, 32, 32768);
    r.integer("mtu", port.mtu, 68, 9600);
    r.boolean("promiscuous", port.promiscuous);
    if (const auto* n = r.choice("tx", port.tx, kTxModes)) port.tx_loc = loc_of(*n);
    if (const auto* n = r.take("poll")) read_port_poll(r, *n, port);
    if (const auto* n = r.take("addresses")) read_port_addresses(r, *n, port);
    if (const auto* n = r.string("kernel_interface", port.kernel_interface, 15)) {
        port.kernel_interface_loc = loc_of(*n);
        if (!is_interface_name(port.kernel_interface))
            r.fail(*n, "kernel_interface",
                   "must be 1-15 characters of letters, digits, '_', '-' or '.', not '.' or "
                   "'..'");
    }
    r.finish();
}

// [[route]] and [[neighbour]]: what each entry says, checked here as text;
// how entries fit together (subnets, ports, duplicates) is l3_config_check's.
void read_route(TableReader& root, const toml::node& node, size_t index, RouteConfig& route) {
    const std::string path = "route[" + std::to_string(index) + "]";
    const auto* t = node.as_table();
    if (!t) root.fail(node, path, "routes are declared as [[route]] tables");
    TableReader r(*t, path, root.file());
    route.loc = loc_of(node);
    std::string text;
    const auto* prefix = r.string("prefix", text, 64);
    if (!prefix) root.fail(node, path + ".prefix", "every [[route]] needs a prefix");
    route.prefix_loc = loc_of(*prefix);
    route.prefix = read_prefix(r, *prefix, "prefix", text);
    if (const auto* via = r.string("via", text, 64)) {
        route.via_loc = loc_of(*via);
        route.via = read_ip(r, *via, "via", text);
    }
    if (const auto* port = r.string("port", route.port, 32)) route.port_loc = loc_of(*port);
    if (!route.via && route.port.empty())
        root.fail(node, path + ".port",
                  "a route needs via (a next hop), port (on-link: each destination is resolved "
                  "on that port), or both");
    r.finish();
}

void read_neighbour(TableReader& root, const toml::node& node, size_t index,
                    NeighbourConfig& neighbour) {
    const std::string path = "neighbour[" + std::to_string(index) + "]";
    const auto* t = node.as_table();
    if (!t) root.fail(node, path, "neighbours are declared as [[neighbour]] tables");
    TableReader r(*t, path, root.file());
    neighbour.loc = loc_of(node);
    std::string text;
    const auto* address = r.string("address", text, 64);
    if (!address) root.fail(node, path + ".address", "every [[neighbour]] needs an address");
    neighbour.address_loc = loc_of(*address);
    neighbour.address = read_ip(r, *address, "address", text);
    const auto* mac = r.string("mac", text, 32);
    if (!mac) root.fail(node, path + ".mac", "every [[neighbour]] needs a mac");
    neighbour.mac_loc = loc_of(*mac);
    const auto parsed = MacAddr::parse(text);
    if (!parsed)
        r.fail(*mac, "mac", "'" + text + "' is not a MAC address (expected aa:bb:cc:dd:ee:ff)");
    if (parsed->bytes[0] & 1) r.fail(*mac, "mac", "'" + text + "' is a multicast MAC address");
    if (*parsed == MacAddr{})
        r.fail(*mac, "mac", "'" + text + "' is the zero MAC address, which no host has");
    neighbour.mac = *parsed;
    const auto* port = r.string("port", neighbour.port, 32);
    if (!port) root.fail(node, path + ".port", "every [[neighbour]] needs the port it is on");
    neighbour.port_loc = loc_of(*port);
    r.finish();
}

// `kernel_routes = { table = 254 }`: the kernel routing table to mirror.
void read_kernel_routes(TableReader& l3r, const toml::node& n, L3Config& l3) {
    TableReader r(require_table(l3r, n, "kernel_routes"), "l3.kernel_routes", l3r.file());
    if (!r.take("table"))
        l3r.fail(n, "kernel_routes",
                 "needs table = N, the kernel routing table to mirror (254 is main)");
    uint32_t table = 0;
    r.integer("table", table, 1, 0xfffffffe);
    if (table == 255)
        r.fail(*r.take("table"), "table",
               "table 255 is the kernel's local table (its own addresses), no routes to mirror");
    r.integer("receive_buffer_kb", l3.kernel_routes_buffer_kb, 256, 1 << 20);
    l3.kernel_routes_table = table;
    l3.kernel_routes_loc = loc_of(n);
    r.finish();
}

void read_l3(TableReader& root, const toml::node& node, L3Config& l3) {
    TableReader r(require_table(root, node, "l3"), "l3", root.file());
    const auto loc = [&](const char* key, SourceLoc& at) {
        if (const auto* n = r.take(key)) at = loc_of(*n);
    };
    loc("max_routes", l3.max_routes_loc);
    r.integer("max_routes", l3.max_routes, 16, 1 << 24);
    loc("max_routes_v6", l3.max_routes_v6_loc);
    r.integer("max_routes_v6", l3.max_routes_v6, 16, 1 << 24);
    r.integer("max_neighbours", l3.max_neighbours, 16, 1 << 20);
    loc("max_neighbours_per_port", l3.max_neighbours_per_port_loc);
    r.integer("max_neighbours_per_port", l3.max_neighbours_per_port, 0, 1 << 20);
    loc("max_resolving", l3.max_resolving_loc);
    r.integer("max_resolving", l3.max_resolving, 1, 1 << 20);
    r.integer("neighbour_queue", l3.neighbour_queue, 0, 1024);
    loc("max_waiting_packets", l3.max_waiting_packets_loc);
    r.integer("max_waiting_packets", l3.max_waiting_packets, 0, 1 << 20);
    r.integer("resolve_retries", l3.resolve_retries, 1, 100);
    r.integer("resolve_interval_ms", l3.resolve_interval_ms, 10, 60000);
    r.integer("reachable_s", l3.reachable_s, 1, 86400);
    r.integer("icmp_rate_limit", l3.icmp_rate_limit, 0, 1000000);
    r.integer("icmp_rate_burst", l3.icmp_rate_burst, 1, 1000000);
    r.integer("punt_ring", l3.punt_ring, 64, 65536);
    r.integer("max_ecmp_groups", l3.max_ecmp_groups, 0, 4096);
    r.integer("kernel_rate_limit", l3.kernel_rate_limit, 0, 10000000);
    r.integer("kernel_rate_burst", l3.kernel_rate_burst, 1, 10000000);
    if (const auto* n = r.take("kernel_routes")) read_kernel_routes(r, *n, l3);
    if (l3.punt_ring & (l3.punt_ring - 1))
        root.fail(*r.take("punt_ring"), "l3.punt_ring",
                  "punt_ring " + std::to_string(l3.punt_ring) + " is not a power of two");
    r.finish();
}

// Ports are read first, so a next_hop_mac entry naming no port is reported
// here, where the entry's own line is known (Config keeps only the table's).
void read_forward(TableReader& root, const toml::node& node, const std::vector<PortConfig>& ports,
                  ForwardConfig& fwd) {
    TableReader r(require_table(root, node, "forward"), "forward", root.file());
    if (const auto* n = r.choice("mode", fwd.mode, kForwardModes)) fwd.mode_loc = loc_of(*n);
    r.integer("burst", fwd.burst, 1, 512);
    r.integer("tx_retries", fwd.tx_retries, 0, 64);
    r.boolean("latency", fwd.latency);
    if (const auto* n = r.boolean("read_lengths", fwd.read_lengths);
        n && !fwd.read_lengths && fwd.mode != ForwardMode::patch)
        r.fail(*n, "read_lengths",
               std::string("read_lengths = false is for mode \"patch\" only: mode \"") +
                   to_string(fwd.mode) + "\" reads every frame anyway");
    if (const auto* n = r.take("handoff_ring")) {
        r.integer("handoff_ring", fwd.handoff_ring, 32, 65536);
        if (fwd.handoff_ring < fwd.burst)
            r.fail(*n, "handoff_ring",
                   "handoff_ring " + std::to_string(fwd.handoff_ring) +
                       " cannot hold one burst of " + std::to_string(fwd.burst) +
                       "; make it at least burst");
    }
    if (const auto* n = r.take("pairs")) {
        const auto* arr = n->as_array();
        if (!arr) r.fail(*n, "pairs", "expected an array of [\"from\", \"to\"] port name pairs");
        for (const auto& e : *arr) {
            const auto* pair = e.as_array();
            if (!pair || pair->size() != 2 || !(*pair)[0].as_string() || !(*pair)[1].as_string())
                r.fail(e, "pairs", "each pair must be [\"from\", \"to\"] with two port names");
            fwd.pairs.push_back(
                {(*pair)[0].as_string()->get(), (*pair)[1].as_string()->get(), loc_of(e)});
        }
    }
    if (const auto* n = r.take("next_hop_mac")) {
        fwd.next_hop_loc = loc_of(*n);
        const auto* t = n->as_table();
        if (!t) r.fail(*n, "next_hop_mac", "expected a table of port name = \"MAC\"");
        for (auto&& [k, v] : *t) {
            const std::string port(k.str());
            const std::string key = "next_hop_mac." + port;
            const auto* s = v.as_string();
            if (!s) r.fail(v, key, "expected a MAC address string like \"02:00:00:00:00:01\"");
            const auto mac = MacAddr::parse(s->get());
            if (!mac)
                r.fail(v, key,
                       "'" + s->get() + "' is not a MAC address (expected aa:bb:cc:dd:ee:ff)");
            if (std::none_of(ports.begin(), ports.end(),
                             [&](const PortConfig& p) { return p.name == port; }))
                r.fail(v, key, "names port '" + port + "', which is not a configured [[port]]");
            fwd.next_hop_mac[port] = *mac;
        }
    }
    r.finish();
}

void read_pool(TableReader& root, const toml::node& node, PoolConfig& pool) {
    TableReader r(require_table(root, node, "pool"), "pool", root.file());
    pool.loc = loc_of(node);
    if (const auto* n = r.choice("model", pool.model, kPoolModels)) pool.model_loc = loc_of(*n);
    if (const auto* n = r.take("mbufs")) pool.mbufs_loc = loc_of(*n);
    r.integer("mbufs", pool.mbufs, 512, 16 << 20);
    r.integer("cache", pool.cache, 0, 512);
    if (const auto* n = r.take("data_room")) pool.data_room_loc = loc_of(*n);
    r.integer("data_room", pool.data_room, kMinDataRoom, 65535);
    r.boolean("color", pool.color);
    if (pool.cache * 3 > pool.mbufs * 2)
        root.fail(*r.take("cache"), "pool.cache", "cache must be at most 2/3 of pool.mbufs");
    r.finish();
}

void read_poll(TableReader& root, const toml::node& node, PollConfig& poll) {
    TableReader r(require_table(root, node, "poll"), "poll", root.file());
    if (const auto* n = r.choice("mode", poll.mode, kPollModes)) poll.mode_loc = loc_of(*n);
    r.integer("idle_polls", poll.idle_polls, 1, 1 << 30);
    r.integer("max_sleep_us", poll.max_sleep_us, 1, 100000);
    r.finish();
}

void read_control(TableReader& root, const toml::node& node, ControlConfig& control) {
    TableReader r(require_table(root, node, "control"), "control", root.file());
    r.boolean("telemetry", control.telemetry);
    r.integer("stats_log_interval_s", control.stats_log_interval_s, 0, 86400);
    r.integer("telemetry_idle_s", control.telemetry_idle_s, 1, 86400);
    r.integer("telemetry_max_clients", control.telemetry_max_clients, 2, 1024);
    if (const auto* n = r.take("capture")) control.capture_loc = loc_of(*n);
    r.boolean("capture", control.capture);
    r.integer("stall_us", control.stall_us, 10, 60 * 1000 * 1000);
    r.boolean("metrics_allow_remote", control.metrics_allow_remote);
    if (const toml::node* n = r.string("metrics", control.metrics)) {
        std::string why;
        const auto addr = parse_listen_address(control.metrics, &why);
        if (!addr) r.fail(*n, "metrics", why);
        if (!addr->loopback && !control.metrics_allow_remote)
            r.fail(*n, "metrics",
                   "'" + addr->host +
                       "' is not a loopback address: the metrics endpoint has no authentication "
                       "or TLS; set metrics_allow_remote = true to listen there anyway");
        control.metrics = addr->to_string();
    }
    if (const auto* n = r.take("metrics_allow")) {
        for_each_string(r, *n, "metrics_allow",
                        "expected an array of networks allowed to scrape, like [\"127.0.0.1/32\", "
                        "\"10.0.0.0/8\", \"::1/128\"]",
                        [&](const toml::node& e, const std::string& text) {
                            const IpPrefix prefix = read_prefix(r, e, "metrics_allow", text);
                            if (prefix.host_bits_set())
                                r.fail(e, "metrics_allow",
                                       "'" + text +
                                           "' has host bits set: write the network, like '" +
                                           prefix.network().to_string() + "'");
                            control.metrics_allow.push_back(prefix);
                        });
    }
    r.finish();
}

void read_level(TableReader& r, std::string& level) {
    if (const auto* n = r.string("level", level, 16)) {
        static const std::set<std::string> kLevels = {"trace", "debug",    "info", "warn",
                                                      "error", "critical", "off"};
        if (!kLevels.count(level))
            r.fail(*n, "level",
                   "unknown level '" + level +
                       "' (expected trace, debug, info, warn, error, critical or off)");
    }
}

template <class T, class Parse>
void read_address(TableReader& r, const char* key, T& out, Parse parse, const char* example) {
    std::string text;
    if (const auto* n = r.string(key, text, 64)) {
        const auto v = parse(text);
        if (!v) r.fail(*n, key, "'" + text + "' is not an address like " + example);
        out = *v;
    }
}

void read_netlog(TableReader& root, const toml::node& node, const std::vector<PortConfig>& ports,
                 NetlogConfig& nl) {
    TableReader r(require_table(root, node, "netlog"), "netlog", root.file());
    nl.loc = loc_of(node);
    r.boolean("enabled", nl.enabled);
    if (const auto* n = r.string("port", nl.port, 32)) {
        nl.port_loc = loc_of(*n);
        if (std::none_of(ports.begin(), ports.end(),
                         [&](const PortConfig& p) { return p.name == nl.port; }))
            r.fail(*n, "port", "names port '" + nl.port + "', which is not a configured [[port]]");
    }
    read_address(r, "src_ip", nl.src_ip, Ipv4Addr::parse, "\"10.0.0.1\"");
    read_address(r, "dst_ip", nl.dst_ip, Ipv4Addr::parse, "\"10.0.0.2\"");
    read_address(r, "dst_mac", nl.dst_mac, MacAddr::parse, "\"02:00:00:00:00:01\"");
    r.integer("src_port", nl.src_port, 1, 65535);
    r.integer("dst_port", nl.dst_port, 1, 65535);
    read_level(r, nl.level);
    r.choice("format", nl.format, kNetlogFormats);
    r.choice("facility", nl.facility, kSyslogFacilities);
    r.integer("reserve", nl.reserve, 16, 65536);
    r.integer("prefill", nl.prefill, 1, 65536);
    // The channel's TX queue may hold kNetlogTxDesc sent buffers before the
    // device frees them, next to the pre-filled ones and a few in hand.
    const uint32_t need = nl.prefill + kNetlogTxDesc + 32;
    if (nl.reserve < need) {
        const char* key = r.take("reserve") ? "reserve" : r.take("prefill") ? "prefill" : nullptr;
        root.fail(key ? *r.take(key) : node, std::string("netlog.") + (key ? key : "reserve"),
                  "reserve " + std::to_string(nl.reserve) + " is too small for prefill " +
                      std::to_string(nl.prefill) + ": the channel's TX queue holds up to " +
                      std::to_string(kNetlogTxDesc) + " sent buffers; make reserve at least " +
                      std::to_string(need));
    }
    r.integer("rate_limit", nl.rate_limit, 0, 10000000);
    r.integer("rate_burst", nl.rate_burst, 1, 1000000);
    r.choice("send_path", nl.send_path, kSendPaths);
    if (nl.enabled && nl.level == "off")
        root.fail(*r.take("level"), "netlog.level",
                  "level \"off\" sends nothing; set enabled = false instead");
    if (nl.enabled)
        for (const char* key : {"port", "src_ip", "dst_ip", "dst_mac"})
            if (!r.take(key))
                root.fail(node, std::string("netlog.") + key,
                          std::string("is required when enabled = true"));
    r.finish();
}

void read_log(TableReader& root, const toml::node& node, LogConfig& log) {
    TableReader r(require_table(root, node, "log"), "log", root.file());
    read_level(r, log.level);
    if (const auto* n = r.string("file", log.file, 4096)) {
        log.file_loc = loc_of(*n);
        if (const std::string why = log_path_problem(log.file); !why.empty())
            r.fail(*n, "file", why);
    }
    r.finish();
}

// Strings end up in one-line log records and in the printed plan, where a
// control character (TOML lets them in through escapes such as "\n" or
// "\u0000", and through multi-line strings) could forge a line. No value or
// key pmdfwd reads needs one, so none is taken anywhere in the document.
void refuse_control_chars(const toml::node& node, const std::string& path,
                          const std::string& file) {
    const auto fail = [&](const toml::source_region& where, const std::string& text,
                          const char* what) {
        const size_t at = find_control_char(text);
        char buf[24];
        std::snprintf(buf, sizeof buf, "0x%02x", unsigned(static_cast<uint8_t>(text[at])));
        throw ConfigThrow{{file, where.begin.line, where.begin.column,
                           path.empty() ? "(document)" : path,
                           std::string("control character ") + buf + " in " + what +
                               " (values go into log lines and the plan, so they must be "
                               "printable)"}};
    };
    if (const auto* s = node.as_string()) {
        if (find_control_char(s->get()) != std::string::npos)
            fail(s->source(), s->get(), "a string");
    } else if (const auto* t = node.as_table()) {
        for (auto&& [k, v] : *t) {
            const std::string key(k.str());
            if (find_control_char(key) != std::string::npos)
                fail(k.source().begin ? k.source() : v.source(), key, "a key");
            refuse_control_chars(v, path.empty() ? key : path + "." + key, file);
        }
    } else if (const auto* a = node.as_array()) {
        const bool of_tables = a->is_array_of_tables();
        for (size_t i = 0; i < a->size(); ++i)
            refuse_control_chars((*a)[i], of_tables ? path + "[" + std::to_string(i) + "]" : path,
                                 file);
    }
}

Config read_root(const toml::table& doc, const std::string& file) {
    refuse_control_chars(doc, "", file);
    Config cfg;
    cfg.source_name = file;
    TableReader root(doc, "", file);
    if (const auto* n = root.take("eal")) read_eal(root, *n, cfg.eal);
    if (const auto* n = root.take("port")) {
        const auto* arr = n->as_array();
        if (!arr) root.fail(*n, "port", "ports are declared as [[port]] tables");
        if (arr->size() > kMaxPorts)
            root.fail((*arr)[kMaxPorts], "port[" + std::to_string(kMaxPorts) + "]",
                      "the config declares " + std::to_string(arr->size()) +
                          " ports; DPDK here allows at most " + std::to_string(kMaxPorts) +
                          " (RTE_MAX_ETHPORTS)");
        for (size_t i = 0; i < arr->size(); ++i) {
            cfg.ports.emplace_back();
            read_port(root, (*arr)[i], i, cfg.ports.back());
        }
    }
    if (const auto* n = root.take("forward")) read_forward(root, *n, cfg.ports, cfg.forward);
    if (const auto* n = root.take("poll")) read_poll(root, *n, cfg.poll);
    if (const auto* n = root.take("pool")) read_pool(root, *n, cfg.pool);
    if (const auto* n = root.take("control")) read_control(root, *n, cfg.control);
    if (const auto* n = root.take("log")) read_log(root, *n, cfg.log);
    if (const auto* n = root.take("netlog")) read_netlog(root, *n, cfg.ports, cfg.netlog);
    if (const auto* n = root.take("route")) {
        const auto* arr = n->as_array();
        if (!arr) root.fail(*n, "route", "routes are declared as [[route]] tables");
        for (size_t i = 0; i < arr->size(); ++i)
            read_route(root, (*arr)[i], i, cfg.routes.emplace_back());
    }
    if (const auto* n = root.take("neighbour")) {
        const auto* arr = n->as_array();
        if (!arr) root.fail(*n, "neighbour", "neighbours are declared as [[neighbour]] tables");
        for (size_t i = 0; i < arr->size(); ++i)
            read_neighbour(root, (*arr)[i], i, cfg.neighbours.emplace_back());
    }
    if (const auto* n = root.take("l3")) {
        cfg.l3_loc = loc_of(*n);
        read_l3(root, *n, cfg.l3);
    }
    root.finish();
    return cfg;
}

}  // namespace

const char* to_string(ForwardMode mode) { return name_of(mode, kForwardModes); }
const char* to_string(TxMode mode) { return name_of(mode, kTxModes); }
const char* to_string(PollMode mode) { return name_of(mode, kPollModes); }
const char* to_string(PoolModel model) { return name_of(model, kPoolModels); }
const char* to_string(NetlogFormat format) { return name_of(format, kNetlogFormats); }
const char* to_string(SyslogFacility facility) { return name_of(facility, kSyslogFacilities); }
const char* to_string(NetlogSendPath path) { return name_of(path, kSendPaths); }

ConfigResult parse_config(std::string_view text, std::string_view file) {
    const std::string file_name(file);
    if (auto bad = screen_config_text(text, file)) return *bad;
    try {
        const toml::table doc = toml::parse(text, file);
        return read_root(doc, file_name);
    } catch (const toml::parse_error& e) {
        const auto line = e.source().begin.line;
        return ConfigError{file_name, line, e.source().begin.column, key_at_line(text, line),
                           std::string(e.description())};
    } catch (const ConfigThrow& e) {
        return e.error;
    } catch (const std::exception& e) {
        return ConfigError{file_name, 0, 0, "(document)", std::string("cannot parse: ") + e.what()};
    }
}

namespace {

// How long a pipe (`--config <(...)`) may take to deliver the whole config.
constexpr int kPipeWaitMs = 5000;

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }

  private:
    int fd_;
};

// Reads up to `limit` bytes to the end. A pipe is waited on, at most
// kPipeWaitMs in all; anything else was opened O_NONBLOCK and never waits.
std::string read_all(int fd, size_t limit, bool pipe, std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kPipeWaitMs);
    text.assign(limit, '\0');
    size_t got = 0;
    while (got < limit) {
        const ssize_t n = ::read(fd, text.data() + got, limit - got);
        if (n > 0) {
            got += size_t(n);
            continue;
        }
        if (n == 0) break;
        if (errno == EINTR) continue;
        if (errno == EAGAIN && pipe) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            pollfd p{fd, POLLIN, 0};
            if (left.count() > 0 && ::poll(&p, 1, int(left.count())) >= 0) continue;
            return "the pipe sent no end of file within " + std::to_string(kPipeWaitMs / 1000) +
                   " s";
        }
        return std::string("cannot read file: ") + std::strerror(errno);
    }
    text.resize(got);
    return {};
}

}  // namespace

ConfigResult load_config_file(const std::string& path) {
    const auto error = [&](std::string message) {
        return ConfigError{path, 0, 0, "(document)", std::move(message)};
    };
    // O_NONBLOCK: opening a fifo for reading would wait for a writer forever.
    Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    struct stat st {};
    if (fd.get() < 0) {
        // A socket cannot be opened at all (ENXIO): say what it is.
        if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            return error(std::string("not a regular file (") + file_type_name(st.st_mode) + ")");
        return error("cannot open file");
    }
    if (::fstat(fd.get(), &st) != 0) return error("cannot open file");
    // A directory opens and would read as an empty config.
    if (S_ISDIR(st.st_mode)) return error("is a directory, not a config file");
    // An anonymous pipe (`--config <(...)`) has its writer already; a named
    // fifo may never get one. Character devices read without waiting.
    struct statfs fs {};
    const bool pipe =
        S_ISFIFO(st.st_mode) && ::fstatfs(fd.get(), &fs) == 0 && fs.f_type == PIPEFS_MAGIC;
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !pipe)
        return error(std::string("not a regular file (") + file_type_name(st.st_mode) + ")");
    // Read one byte past the limit so the size check fires without reading
    // all of an endless source such as /dev/zero.
    std::string text;
    if (std::string why = read_all(fd.get(), kMaxConfigBytes + 1, pipe, text); !why.empty())
        return error(why);
    return parse_config(text, path);
}

}  // namespace pmdfwd
