// Kernel routing table messages as router mode reads them (route_message):
// routes with one next hop, RTA_MULTIPATH's list or a next-hop object's id,
// next-hop objects and groups, and each reason a route is skipped, from
// messages built the way the kernel builds them.
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "packet_bytes.hpp"
#include "route_message.hpp"

using namespace pmdfwd;
using packet_bytes::ip;

namespace {

// A route message as the kernel sends one.
struct RouteMessage {
    std::vector<char> buf = std::vector<char>(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh;
    rtmsg* rtm;
    RouteMessage(uint16_t type, const char* dst, uint8_t len, uint32_t table,
                 uint8_t kind = RTN_UNICAST) {
        nlh = mnl_nlmsg_put_header(buf.data());
        nlh->nlmsg_type = type;
        rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
        const IpAddress d = ip(dst);
        rtm->rtm_family = d.family == IpFamily::v4 ? AF_INET : AF_INET6;
        rtm->rtm_dst_len = len;
        rtm->rtm_table = table < 256 ? uint8_t(table) : uint8_t(RT_TABLE_UNSPEC);
        rtm->rtm_type = kind;
        mnl_attr_put_u32(nlh, RTA_TABLE, table);
        if (len) mnl_attr_put(nlh, RTA_DST, d.family == IpFamily::v4 ? 4 : 16, d.bytes.data());
    }
    void gateway(const char* via) {
        const IpAddress g = ip(via);
        mnl_attr_put(nlh, RTA_GATEWAY, g.family == IpFamily::v4 ? 4 : 16, g.bytes.data());
    }
};

KernelRouteChange change_of(const RouteMessage& m, uint32_t table = 100) {
    const auto parsed = parse_route_message(m.nlh, table);
    REQUIRE(parsed.has_value());
    REQUIRE(std::holds_alternative<KernelRouteChange>(*parsed));
    return std::get<KernelRouteChange>(*parsed);
}

KernelRouteSkip skip_of(const RouteMessage& m) {
    const auto parsed = parse_route_message(m.nlh, 100);
    REQUIRE(parsed.has_value());
    REQUIRE(std::holds_alternative<KernelRouteSkip>(*parsed));
    return std::get<KernelRouteSkip>(*parsed);
}

}  // namespace

TEST_CASE("kernel routes: one next hop, by gateway and interface", "[l3][kernel]") {
    RouteMessage m(RTM_NEWROUTE, "10.9.0.0", 16, 100);
    m.gateway("10.1.0.2");
    mnl_attr_put_u32(m.nlh, RTA_OIF, 7);
    mnl_attr_put_u32(m.nlh, RTA_PRIORITY, 20);
    const KernelRouteChange c = change_of(m);
    CHECK_FALSE(c.removed);
    CHECK(c.route.prefix.to_string() == "10.9.0.0/16");
    CHECK(c.route.metric == 20);
    REQUIRE(c.route.hops.size() == 1);
    CHECK(c.route.hops[0].via == ip("10.1.0.2"));
    CHECK(c.route.hops[0].ifindex == 7);

    RouteMessage v6(RTM_DELROUTE, "2001:db8:9::", 48, 100);
    const KernelRouteChange d = change_of(v6);
    CHECK(d.removed);  // a deletion may name the prefix alone
    CHECK(d.route.prefix.to_string() == "2001:db8:9::/48");
    CHECK(d.route.hops.empty());

    RouteMessage def(RTM_NEWROUTE, "0.0.0.0", 0, 100);
    mnl_attr_put_u32(def.nlh, RTA_OIF, 3);
    CHECK(change_of(def).route.prefix.to_string() == "0.0.0.0/0");
}

TEST_CASE("kernel routes: another table is not ours, and skips by reason", "[l3][kernel]") {
    RouteMessage other(RTM_NEWROUTE, "10.9.0.0", 16, 254);
    other.gateway("10.1.0.2");
    CHECK_FALSE(parse_route_message(other.nlh, 100).has_value());

    CHECK(skip_of(RouteMessage(RTM_NEWROUTE, "10.9.0.0", 16, 100, RTN_BLACKHOLE)) ==
          KernelRouteSkip::not_unicast);
    CHECK(skip_of(RouteMessage(RTM_NEWROUTE, "10.9.0.0", 16, 100, RTN_UNREACHABLE)) ==
          KernelRouteSkip::not_unicast);
    RouteMessage group(RTM_NEWROUTE, "224.0.0.0", 4, 100);
    mnl_attr_put_u32(group.nlh, RTA_OIF, 3);
    CHECK(skip_of(group) == KernelRouteSkip::multicast_prefix);
    RouteMessage ll(RTM_NEWROUTE, "fe80::", 64, 100);
    mnl_attr_put_u32(ll.nlh, RTA_OIF, 3);
    CHECK(skip_of(ll) == KernelRouteSkip::multicast_prefix);
    CHECK(skip_of(RouteMessage(RTM_NEWROUTE, "10.9.0.0", 16, 100)) == KernelRouteSkip::no_port);

    RouteMessage host_bits(RTM_NEWROUTE, "10.9.0.1", 16, 100);
    mnl_attr_put_u32(host_bits.nlh, RTA_OIF, 3);
    CHECK(skip_of(host_bits) == KernelRouteSkip::malformed);
    RouteMessage too_long(RTM_NEWROUTE, "10.9.0.0", 33, 100);
    CHECK(skip_of(too_long) == KernelRouteSkip::malformed);
    RouteMessage short_gateway(RTM_NEWROUTE, "10.9.0.0", 16, 100);
    const uint8_t two[2] = {10, 1};
    mnl_attr_put(short_gateway.nlh, RTA_GATEWAY, 2, two);
    CHECK(skip_of(short_gateway) == KernelRouteSkip::malformed);
}

TEST_CASE("kernel routes: RTA_MULTIPATH and next-hop objects", "[l3][kernel]") {
    RouteMessage m(RTM_NEWROUTE, "10.9.0.0", 16, 100);
    nlattr* mp = mnl_attr_nest_start(m.nlh, RTA_MULTIPATH);
    for (const auto& [via, ifindex, hops] :
         {std::tuple{"10.1.0.2", 7, 0}, std::tuple{"10.2.0.2", 8, 2}}) {
        auto* nh = static_cast<rtnexthop*>(mnl_nlmsg_get_payload_tail(m.nlh));
        m.nlh->nlmsg_len += MNL_ALIGN(sizeof(rtnexthop));
        std::memset(nh, 0, sizeof *nh);
        nh->rtnh_ifindex = ifindex;
        nh->rtnh_hops = uint8_t(hops);
        m.gateway(via);
        nh->rtnh_len = uint16_t(reinterpret_cast<char*>(mnl_nlmsg_get_payload_tail(m.nlh)) -
                                reinterpret_cast<char*>(nh));
    }
    mnl_attr_nest_end(m.nlh, mp);
    const KernelRouteChange c = change_of(m);
    REQUIRE(c.route.hops.size() == 2);
    CHECK(c.route.hops[0] == KernelNextHop{ip("10.1.0.2"), 7, 1});
    CHECK(c.route.hops[1] == KernelNextHop{ip("10.2.0.2"), 8, 3});

    RouteMessage by_id(RTM_NEWROUTE, "10.8.0.0", 16, 100);
    mnl_attr_put_u32(by_id.nlh, RTA_NH_ID, 42);
    const KernelRouteChange i = change_of(by_id);
    CHECK(i.route.nexthop_id == 42);
    CHECK(i.route.hops.empty());

    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = RTM_NEWNEXTHOP;
    auto* nhm = static_cast<nhmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(nhmsg)));
    nhm->nh_family = AF_INET;
    mnl_attr_put_u32(nlh, NHA_ID, 5);
    mnl_attr_put_u32(nlh, NHA_OIF, 7);
    const IpAddress g = ip("10.1.0.2");
    mnl_attr_put(nlh, NHA_GATEWAY, 4, g.bytes.data());
    const auto single = parse_nexthop_message(nlh);
    REQUIRE(single.has_value());
    CHECK(single->object.id == 5);
    REQUIRE(single->object.hop.has_value());
    CHECK(*single->object.hop == KernelNextHop{g, 7, 1});

    nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = RTM_NEWNEXTHOP;
    nhm = static_cast<nhmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(nhmsg)));
    mnl_attr_put_u32(nlh, NHA_ID, 42);
    const nexthop_grp members[2] = {{5, 0, 0, 0}, {6, 1, 0, 0}};
    mnl_attr_put(nlh, NHA_GROUP, sizeof members, members);
    const auto group = parse_nexthop_message(nlh);
    REQUIRE(group.has_value());
    CHECK(group->object.group == std::vector<std::pair<uint32_t, uint16_t>>{{5, 1}, {6, 2}});
}
