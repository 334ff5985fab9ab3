// Reading and building neighbour discovery (see nd_packet.hpp). Pure; main
// lcore only.
#include "nd_packet.hpp"

#include <cstring>

#include "ip_checksum.hpp"
#include "l3_header.hpp"
#include "wire_bytes.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

namespace {

constexpr size_t kNdLen = 24;         // type, code, checksum, flags, target
constexpr size_t kLinkOptionLen = 8;  // type, length 1, a MAC
constexpr uint8_t kNdHopLimit = 255;  // 7.1: only a neighbour on the link can send it
constexpr uint8_t kOptionSourceLink = 1, kOptionTargetLink = 2;
constexpr uint8_t kFlagRouter = 0x80, kFlagSolicited = 0x40, kFlagOverride = 0x20;

IpAddress load_ipv6(const uint8_t* p) {
    IpAddress a;
    a.family = IpFamily::v6;
    std::memcpy(a.bytes.data(), p, 16);
    return a;
}

bool is_multicast(const IpAddress& a) { return a.bytes[0] == 0xff; }

bool is_unspecified(const IpAddress& a) { return a == IpAddress{IpFamily::v6, {}}; }

bool is_solicited_node(const IpAddress& a) {
    static constexpr uint8_t kPrefix[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};
    return std::memcmp(a.bytes.data(), kPrefix, sizeof kPrefix) == 0;
}

NdParse reject(NdReject why) {
    NdParse result;
    result.reject = why;
    return result;
}

// The first link-layer address option of type wanted among the options,
// checking every option's length on the way (7.1: a zero length is invalid).
NdReject read_options(std::span<const uint8_t> options, uint8_t wanted,
                      std::optional<MacAddr>* link_layer) {
    size_t at = 0;
    while (at < options.size()) {
        if (options.size() - at < 2) return NdReject::bad_option;
        const uint8_t type = options[at];
        const size_t len = size_t(options[at + 1]) * 8;
        if (len == 0 || len > options.size() - at) return NdReject::bad_option;
        if (type == wanted) {
            // Ethernet's is one 8-byte unit (RFC 2464 8); another length is
            // not a MAC we could use.
            if (len != kLinkOptionLen) return NdReject::bad_option;
            if (!*link_layer) {
                MacAddr mac;
                std::memcpy(mac.bytes.data(), options.data() + at + 2, 6);
                *link_layer = mac;
            }
        }
        at += len;
    }
    return NdReject::none;
}

// The IPv6 header, the NS or NA and the link-layer option (when link_type is
// not 0) at frame + at; returns the end. Checksum last, over all of it.
size_t write_nd(uint8_t* frame, size_t at, const IpAddress& src, const IpAddress& dst, NdType type,
                uint8_t flags, const IpAddress& target, uint8_t link_type,
                const MacAddr& link_mac) {
    const size_t nd_len = kNdLen + (link_type ? kLinkOptionLen : 0);
    uint8_t* const ip = frame + at;
    std::memset(ip, 0, kIpv6HeaderLen + nd_len);
    ip[0] = 0x60;
    store_be16(ip + 4, uint16_t(nd_len));
    ip[6] = kIpProtoIcmpv6;
    ip[7] = kNdHopLimit;
    std::memcpy(ip + 8, src.bytes.data(), 16);
    std::memcpy(ip + 24, dst.bytes.data(), 16);
    uint8_t* const nd = ip + kIpv6HeaderLen;
    nd[0] = uint8_t(type);
    nd[4] = flags;
    std::memcpy(nd + 8, target.bytes.data(), 16);
    if (link_type) {
        nd[kNdLen] = link_type;
        nd[kNdLen + 1] = 1;
        std::memcpy(nd + kNdLen + 2, link_mac.bytes.data(), 6);
    }
    store_be16(nd + 2, icmpv6_checksum(src.bytes, dst.bytes, {nd, nd_len}));
    return at + kIpv6HeaderLen + nd_len;
}

}  // namespace

NdParse parse_nd(std::span<const uint8_t> ipv6) {
    if (ipv6.size() < kIpv6HeaderLen) return reject(NdReject::truncated);
    const uint8_t* const ip = ipv6.data();
    if (ip[0] >> 4 != 6) return reject(NdReject::not_ipv6);
    const size_t payload_len = load_be16(ip + 4);
    if (payload_len > ipv6.size() - kIpv6HeaderLen) return reject(NdReject::truncated);
    if (ip[6] != kIpProtoIcmpv6 || payload_len == 0) return reject(NdReject::not_nd);
    const uint8_t* const nd = ip + kIpv6HeaderLen;
    if (nd[0] != uint8_t(NdType::solicitation) && nd[0] != uint8_t(NdType::advertisement))
        return reject(NdReject::not_nd);
    if (payload_len < kNdLen) return reject(NdReject::bad_length);
    if (ip[7] != kNdHopLimit) return reject(NdReject::bad_hop_limit);
    if (nd[1] != 0) return reject(NdReject::bad_code);
    NdParse result;
    NdMessage& m = result.message;
    m.type = NdType(nd[0]);
    m.src = load_ipv6(ip + 8);
    m.dst = load_ipv6(ip + 24);
    const std::span<const uint8_t> message(nd, payload_len);
    if (icmpv6_checksum(m.src.bytes, m.dst.bytes, message) != 0)
        return reject(NdReject::bad_checksum);
    m.target = load_ipv6(nd + 8);
    if (is_multicast(m.target)) return reject(NdReject::multicast_target);
    const bool ns = m.type == NdType::solicitation;
    const NdReject options = read_options(
        message.subspan(kNdLen), ns ? kOptionSourceLink : kOptionTargetLink, &m.link_layer);
    if (options != NdReject::none) return reject(options);
    if (ns) {
        if (is_unspecified(m.src) && (!is_solicited_node(m.dst) || m.link_layer))
            return reject(NdReject::bad_dad_solicitation);
    } else {
        m.router_flag = (nd[4] & kFlagRouter) != 0;
        m.solicited_flag = (nd[4] & kFlagSolicited) != 0;
        m.override_flag = (nd[4] & kFlagOverride) != 0;
        if (m.solicited_flag && is_multicast(m.dst))
            return reject(NdReject::solicited_to_multicast);
    }
    return result;
}

IpAddress solicited_node_multicast(const IpAddress& address) {
    IpAddress group;
    group.family = IpFamily::v6;
    group.bytes = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};
    std::memcpy(group.bytes.data() + 13, address.bytes.data() + 13, 3);
    return group;
}

MacAddr ipv6_multicast_mac(const IpAddress& group) {
    MacAddr mac{{0x33, 0x33}};
    std::memcpy(mac.bytes.data() + 2, group.bytes.data() + 12, 4);
    return mac;
}

size_t nd_frame_len(const EtherPort& port) {
    return ether_header_len(port) + kIpv6HeaderLen + kNdLen + kLinkOptionLen;
}

size_t build_neighbor_solicitation(std::span<uint8_t> out, const EtherPort& port,
                                   const IpAddress& src_ip, const IpAddress& target,
                                   std::optional<MacAddr> unicast_mac) {
    if (src_ip.family != IpFamily::v6 || target.family != IpFamily::v6) return 0;
    const bool dad = is_unspecified(src_ip);
    const size_t len = nd_frame_len(port) - (dad ? kLinkOptionLen : 0);
    if (out.size() < len) return 0;
    const IpAddress dst = unicast_mac ? target : solicited_node_multicast(target);
    const MacAddr dst_mac = unicast_mac ? *unicast_mac : ipv6_multicast_mac(dst);
    const size_t at = write_ether_header(out.data(), dst_mac, port, kEtherTypeIpv6);
    return write_nd(out.data(), at, src_ip, dst, NdType::solicitation, 0, target,
                    dad ? 0 : kOptionSourceLink, port.mac);
}

size_t build_neighbor_advertisement(std::span<uint8_t> out, const EtherPort& port,
                                    const NdMessage& ns, const MacAddr& ns_frame_src) {
    if (ns.type != NdType::solicitation || ns.src.family != IpFamily::v6 ||
        ns.target.family != IpFamily::v6)
        return 0;
    const size_t len = nd_frame_len(port);
    if (out.size() < len) return 0;
    // A duplicate address probe has no address to answer to: 7.2.4 sends the
    // answer to all nodes, and it solicited nothing of that group.
    const bool to_all = is_unspecified(ns.src);
    IpAddress dst = ns.src;
    MacAddr dst_mac = ns.link_layer ? *ns.link_layer : ns_frame_src;
    uint8_t flags = kFlagRouter | kFlagSolicited | kFlagOverride;
    if (to_all) {
        dst.bytes = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        dst_mac = ipv6_multicast_mac(dst);
        flags = kFlagRouter | kFlagOverride;
    }
    const size_t at = write_ether_header(out.data(), dst_mac, port, kEtherTypeIpv6);
    return write_nd(out.data(), at, ns.target, dst, NdType::advertisement, flags, ns.target,
                    kOptionTargetLink, port.mac);
}

}  // namespace pmdfwd
