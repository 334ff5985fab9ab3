// Kernel routing table messages read (see route_message.hpp), with
// libmnl's attribute walk, which checks each attribute's length against
// the message.
#include "route_message.hpp"

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

namespace pmdfwd {

namespace {

// Attributes by type, up to max; each pointer null when absent.
template <size_t N>
struct Attrs {
    const nlattr* at[N] = {};
};

template <size_t N>
int keep_attr(const nlattr* a, void* data) {
    auto* attrs = static_cast<Attrs<N>*>(data);
    const uint16_t type = mnl_attr_get_type(a);
    if (type < N) attrs->at[type] = a;
    return MNL_CB_OK;
}

std::optional<IpAddress> address_of(const nlattr* a, uint8_t family) {
    const size_t len = family == AF_INET ? 4 : 16;
    if (!a || mnl_attr_get_payload_len(a) != len) return std::nullopt;
    IpAddress ip;
    ip.family = family == AF_INET ? IpFamily::v4 : IpFamily::v6;
    std::memcpy(ip.bytes.data(), mnl_attr_get_payload(a), len);
    return ip;
}

bool u32_of(const nlattr* a, uint32_t& out) {
    if (!a) return false;
    if (mnl_attr_validate(a, MNL_TYPE_U32) < 0) return false;
    out = mnl_attr_get_u32(a);
    return true;
}

// RTA_MULTIPATH: a list of rtnexthop, each with its own attributes.
bool read_multipath(const nlattr* a, uint8_t family, std::vector<KernelNextHop>& hops) {
    const auto* p = static_cast<const uint8_t*>(mnl_attr_get_payload(a));
    size_t left = mnl_attr_get_payload_len(a);
    while (left >= sizeof(rtnexthop)) {
        rtnexthop nh;
        std::memcpy(&nh, p, sizeof nh);
        if (nh.rtnh_len < sizeof(rtnexthop) || nh.rtnh_len > left) return false;
        KernelNextHop hop;
        hop.ifindex = unsigned(nh.rtnh_ifindex);
        hop.weight = uint16_t(nh.rtnh_hops + 1);
        // The hop's attributes follow its header, each aligned.
        size_t at = RTNH_ALIGN(sizeof(rtnexthop));
        while (at + sizeof(nlattr) <= nh.rtnh_len) {
            nlattr attr;
            std::memcpy(&attr, p + at, sizeof attr);
            if (attr.nla_len < sizeof(nlattr) || at + attr.nla_len > nh.rtnh_len) return false;
            const auto* attr_at = reinterpret_cast<const nlattr*>(p + at);
            if ((attr.nla_type & NLA_TYPE_MASK) == RTA_GATEWAY) {
                hop.via = address_of(attr_at, family);
                if (!hop.via) return false;
            }
            at += NLA_ALIGN(attr.nla_len);
        }
        hops.push_back(hop);
        const size_t step = RTNH_ALIGN(nh.rtnh_len);
        if (step >= left) break;
        p += step;
        left -= step;
    }
    return !hops.empty();
}

bool multicast_or_link_local(const IpPrefix& p) {
    const auto& b = p.address.bytes;
    if (p.address.family == IpFamily::v4) return p.length >= 4 && (b[0] & 0xf0) == 0xe0;
    if (p.length >= 8 && b[0] == 0xff) return true;
    return p.length >= 10 && b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
}

}  // namespace

std::optional<ParsedRoute> parse_route_message(const nlmsghdr* nlh, uint32_t table) {
    if (nlh->nlmsg_type != RTM_NEWROUTE && nlh->nlmsg_type != RTM_DELROUTE) return std::nullopt;
    if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(rtmsg))) return KernelRouteSkip::malformed;
    const auto* rtm = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(nlh));
    if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) return std::nullopt;
    Attrs<RTA_MAX + 1> attrs;
    if (mnl_attr_parse(nlh, sizeof(rtmsg), keep_attr<RTA_MAX + 1>, &attrs) < 0)
        return KernelRouteSkip::malformed;
    uint32_t route_table = rtm->rtm_table;
    if (attrs.at[RTA_TABLE] && !u32_of(attrs.at[RTA_TABLE], route_table))
        return KernelRouteSkip::malformed;
    if (route_table != table) return std::nullopt;
    // Routes the kernel makes for itself in a table: clones of IPv6's
    // cache, never a daemon's.
    if (rtm->rtm_flags & RTM_F_CLONED) return std::nullopt;

    KernelRouteChange c;
    c.removed = nlh->nlmsg_type == RTM_DELROUTE;
    KernelRoute& r = c.route;
    r.table = table;
    r.prefix.length = rtm->rtm_dst_len;
    r.prefix.address.family = rtm->rtm_family == AF_INET ? IpFamily::v4 : IpFamily::v6;
    if (r.prefix.length > r.prefix.address.bits()) return KernelRouteSkip::malformed;
    if (attrs.at[RTA_DST]) {
        const auto dst = address_of(attrs.at[RTA_DST], rtm->rtm_family);
        if (!dst) return KernelRouteSkip::malformed;
        r.prefix.address = *dst;
    } else if (r.prefix.length != 0) {
        return KernelRouteSkip::malformed;
    }
    if (r.prefix.host_bits_set()) return KernelRouteSkip::malformed;
    if (attrs.at[RTA_PRIORITY] && !u32_of(attrs.at[RTA_PRIORITY], r.metric))
        return KernelRouteSkip::malformed;
    if (rtm->rtm_type != RTN_UNICAST) return KernelRouteSkip::not_unicast;
    if (multicast_or_link_local(r.prefix)) return KernelRouteSkip::multicast_prefix;
    if (attrs.at[RTA_NH_ID]) {
        if (!u32_of(attrs.at[RTA_NH_ID], r.nexthop_id) || r.nexthop_id == 0)
            return KernelRouteSkip::malformed;
        return c;
    }
    if (attrs.at[RTA_MULTIPATH]) {
        if (!read_multipath(attrs.at[RTA_MULTIPATH], rtm->rtm_family, r.hops))
            return KernelRouteSkip::malformed;
        return c;
    }
    KernelNextHop hop;
    uint32_t oif = 0;
    if (attrs.at[RTA_OIF] && !u32_of(attrs.at[RTA_OIF], oif)) return KernelRouteSkip::malformed;
    hop.ifindex = oif;
    if (attrs.at[RTA_GATEWAY]) {
        hop.via = address_of(attrs.at[RTA_GATEWAY], rtm->rtm_family);
        if (!hop.via) return KernelRouteSkip::malformed;
    }
    // A route being deleted may name only its prefix (ip route del P).
    if (hop.ifindex == 0 && !hop.via && !c.removed) return KernelRouteSkip::no_port;
    if (hop.ifindex != 0 || hop.via) r.hops.push_back(hop);
    return c;
}

std::optional<KernelNextHopChange> parse_nexthop_message(const nlmsghdr* nlh) {
    if (nlh->nlmsg_type != RTM_NEWNEXTHOP && nlh->nlmsg_type != RTM_DELNEXTHOP) return std::nullopt;
    if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(nhmsg))) return std::nullopt;
    const auto* nhm = static_cast<const nhmsg*>(mnl_nlmsg_get_payload(nlh));
    Attrs<NHA_MAX + 1> attrs;
    if (mnl_attr_parse(nlh, sizeof(nhmsg), keep_attr<NHA_MAX + 1>, &attrs) < 0) return std::nullopt;
    KernelNextHopChange c;
    c.removed = nlh->nlmsg_type == RTM_DELNEXTHOP;
    KernelNextHopObject& o = c.object;
    if (!u32_of(attrs.at[NHA_ID], o.id) || o.id == 0) return std::nullopt;
    if (c.removed) return c;
    if (attrs.at[NHA_BLACKHOLE]) {
        o.blackhole = true;
        return c;
    }
    if (attrs.at[NHA_GROUP]) {
        const size_t len = mnl_attr_get_payload_len(attrs.at[NHA_GROUP]);
        if (len == 0 || len % sizeof(nexthop_grp) != 0) return std::nullopt;
        const auto* p = static_cast<const uint8_t*>(mnl_attr_get_payload(attrs.at[NHA_GROUP]));
        for (size_t at = 0; at < len; at += sizeof(nexthop_grp)) {
            nexthop_grp g;
            std::memcpy(&g, p + at, sizeof g);
            o.group.emplace_back(g.id, uint16_t(g.weight + 1));
        }
        return c;
    }
    KernelNextHop hop;
    uint32_t oif = 0;
    if (attrs.at[NHA_OIF] && !u32_of(attrs.at[NHA_OIF], oif)) return std::nullopt;
    hop.ifindex = oif;
    if (attrs.at[NHA_GATEWAY]) {
        hop.via = address_of(attrs.at[NHA_GATEWAY], nhm->nh_family);
        if (!hop.via) return std::nullopt;
    }
    o.hop = hop;
    return c;
}

}  // namespace pmdfwd
