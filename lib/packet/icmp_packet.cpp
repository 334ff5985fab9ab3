// Echo replies and ICMP errors (see icmp_packet.hpp). Pure; main lcore only.
#include "icmp_packet.hpp"

#include <algorithm>
#include <cstring>

#include "ip_checksum.hpp"
#include "l3_header.hpp"
#include "wire_bytes.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

namespace {

constexpr size_t kIcmpHeaderLen = 8;
constexpr uint8_t kProtoIcmp = 1;
constexpr uint8_t kEchoRequest = 8, kEchoReply = 0;
constexpr uint8_t kEchoRequestV6 = 128, kEchoReplyV6 = 129;
constexpr uint8_t kRedirectV6 = 137;
// A new datagram's TTL or hop limit: RFC 1700's default, which hosts use
// for both families.
constexpr uint8_t kTtl = 64;
// RFC 1812 4.3.2.5: errors go at precedence 6, internetwork control.
constexpr uint8_t kTosInternetworkControl = 0xc0;
// More than a real packet has: a chain that long is cut off and vetoed
// rather than walked to its end.
constexpr int kMaxExtensionHeaders = 8;

struct TypeCode {
    uint8_t type4, code4, type6, code6;
};

constexpr TypeCode kErrorTypeCodes[size_t(IcmpError::count)] = {
#define PMDFWD_ICMP_TYPES(name, type4, code4, type6, code6, help) {type4, code4, type6, code6},
    PMDFWD_ICMP_ERRORS(PMDFWD_ICMP_TYPES)
#undef PMDFWD_ICMP_TYPES
};

// RFC 1812 4.3.2.7's "does not define a single host": this network (0/8),
// loopback, multicast, class E and the limited broadcast.
bool ipv4_names_one_host(uint32_t a) {
    const uint32_t first = a >> 24;
    return first != 0 && first != 127 && first < 224;
}

bool ipv4_is_multicast(uint32_t a) { return a >> 28 == 0xe; }

bool ipv6_is_multicast(const uint8_t* a) { return a[0] == 0xff; }

bool ipv6_names_one_host(const uint8_t* a) {
    static constexpr uint8_t kZero[15] = {};
    const bool unspecified_or_loopback = std::memcmp(a, kZero, 15) == 0 && a[15] <= 1;
    return !unspecified_or_loopback && !ipv6_is_multicast(a);
}

// ICMP's informational types (RFC 792, 950, 1256): any other, unknown ones
// included, counts as an error, so that no error is sent about one.
bool icmp_is_informational(uint8_t type) {
    return type == 0 || (type >= 8 && type <= 10) || (type >= 13 && type <= 18);
}

void swap_bytes(uint8_t* a, uint8_t* b, size_t len) {
    for (size_t i = 0; i < len; ++i) std::swap(a[i], b[i]);
}

EchoReply echo_reject(EchoReject why) { return EchoReply{why, 0}; }

// Sets the reply's MACs and pads it; returns its length.
size_t finish_echo(std::span<uint8_t> frame, size_t end, const std::optional<EchoReplyMacs>& macs) {
    if (macs) {
        std::memcpy(frame.data(), macs->dst.bytes.data(), 6);
        std::memcpy(frame.data() + 6, macs->src.bytes.data(), 6);
    } else {
        swap_bytes(frame.data(), frame.data() + 6, 6);
    }
    const size_t padded = std::max(end, std::min(frame.size(), kMinFrameLen));
    std::memset(frame.data() + end, 0, padded - end);
    return padded;
}

EchoReply echo_v4(std::span<uint8_t> frame, const L3Header& h,
                  const std::optional<EchoReplyMacs>& macs) {
    uint8_t* const ip = frame.data() + h.l3_offset;
    const size_t header_len = h.l3_header_len;
    if (ip[9] != kProtoIcmp) return echo_reject(EchoReject::not_echo_request);
    if ((load_be16(ip + 6) & 0x3fff) != 0) return echo_reject(EchoReject::fragment);  // MF, offset
    const size_t icmp_len = load_be16(ip + 2) - header_len;  // parse_l3_header: not negative
    if (icmp_len < kIcmpHeaderLen) return echo_reject(EchoReject::truncated);
    uint8_t* icmp = ip + header_len;
    if (icmp[0] != kEchoRequest) return echo_reject(EchoReject::not_echo_request);
    if (icmp_checksum({icmp, icmp_len}) != 0) return echo_reject(EchoReject::bad_checksum);
    if (!ipv4_names_one_host(load_be32(ip + 12)))
        return echo_reject(EchoReject::source_not_unicast);
    if (load_be32(ip + 16) >= 0xe0000000u) return echo_reject(EchoReject::destination_not_unicast);

    if (header_len > kIpv4HeaderLen) {
        std::memmove(ip + kIpv4HeaderLen, icmp, icmp_len);
        icmp = ip + kIpv4HeaderLen;
        ip[0] = 0x45;
    }
    store_be16(ip + 2, uint16_t(kIpv4HeaderLen + icmp_len));
    ip[8] = kTtl;
    swap_bytes(ip + 12, ip + 16, 4);
    ipv4_store_checksum(ip, kIpv4HeaderLen);
    icmp[0] = kEchoReply;
    icmp[1] = 0;
    store_be16(icmp + 2, 0);
    store_be16(icmp + 2, icmp_checksum({icmp, icmp_len}));
    return EchoReply{EchoReject::none,
                     finish_echo(frame, h.l3_offset + kIpv4HeaderLen + icmp_len, macs)};
}

EchoReply echo_v6(std::span<uint8_t> frame, const L3Header& h,
                  const std::optional<EchoReplyMacs>& macs) {
    uint8_t* const ip = frame.data() + h.l3_offset;
    if (ip[6] != kIpProtoIcmpv6) return echo_reject(EchoReject::not_echo_request);
    const size_t icmp_len = load_be16(ip + 4);
    if (icmp_len < kIcmpHeaderLen) return echo_reject(EchoReject::truncated);
    uint8_t* const icmp = ip + kIpv6HeaderLen;
    if (icmp[0] != kEchoRequestV6) return echo_reject(EchoReject::not_echo_request);
    const std::span<const uint8_t, 16> src(ip + 8, 16), dst(ip + 24, 16);
    if (icmpv6_checksum(src, dst, {icmp, icmp_len}) != 0)
        return echo_reject(EchoReject::bad_checksum);
    if (!ipv6_names_one_host(ip + 8)) return echo_reject(EchoReject::source_not_unicast);
    if (ipv6_is_multicast(ip + 24)) return echo_reject(EchoReject::destination_not_unicast);

    ip[7] = kTtl;
    swap_bytes(ip + 8, ip + 24, 16);
    icmp[0] = kEchoReplyV6;
    icmp[1] = 0;
    store_be16(icmp + 2, 0);
    store_be16(icmp + 2, icmpv6_checksum(src, dst, {icmp, icmp_len}));
    return EchoReply{EchoReject::none,
                     finish_echo(frame, h.l3_offset + kIpv6HeaderLen + icmp_len, macs)};
}

// The invoking packet as the vetoes and the quote see it.
struct Invoking {
    IcmpErrorVeto veto = IcmpErrorVeto::bad_header;
    bool v6 = false;
    const uint8_t* ip = nullptr;
    size_t ip_len = 0;  // the packet's own length, Ethernet padding left out
};

// What the IPv6 extension headers before the upper layer say; none when
// there is nothing against an error.
IcmpErrorVeto walk_ipv6(const uint8_t* ip, size_t ip_len) {
    uint8_t next = ip[6];
    size_t at = kIpv6HeaderLen;
    for (int i = 0; i <= kMaxExtensionHeaders; ++i) {
        size_t len = 0;
        switch (next) {
            case kIpProtoIcmpv6: {
                if (at >= ip_len) return IcmpErrorVeto::bad_header;
                const uint8_t type = ip[at];
                return type < 128 || type == kRedirectV6 ? IcmpErrorVeto::about_icmp_error
                                                         : IcmpErrorVeto::none;
            }
            case 0:   // hop-by-hop options
            case 43:  // routing
            case 60:  // destination options
                if (ip_len - at < 2) return IcmpErrorVeto::bad_header;
                len = (size_t(ip[at + 1]) + 1) * 8;
                break;
            case 51:  // authentication header: its length counts 4-byte words, less 2
                if (ip_len - at < 2) return IcmpErrorVeto::bad_header;
                len = (size_t(ip[at + 1]) + 2) * 4;
                break;
            case 44:  // fragment
                if (ip_len - at < 8) return IcmpErrorVeto::bad_header;
                if ((load_be16(ip + at + 2) & 0xfff8) != 0)
                    return IcmpErrorVeto::non_first_fragment;
                len = 8;
                break;
            default:
                return IcmpErrorVeto::none;  // an upper layer other than ICMPv6, or ESP
        }
        if (len > ip_len - at) return IcmpErrorVeto::bad_header;
        next = ip[at];
        at += len;
    }
    return IcmpErrorVeto::bad_header;
}

IcmpErrorVeto ipv4_address_veto(const uint8_t* ip, bool link_group, bool to_subnet_broadcast) {
    const uint32_t dst = load_be32(ip + 16);
    if (link_group) return IcmpErrorVeto::link_layer_group;
    if (ipv4_is_multicast(dst)) return IcmpErrorVeto::multicast_destination;
    if (dst == 0xffffffffu || to_subnet_broadcast) return IcmpErrorVeto::broadcast_destination;
    if (!ipv4_names_one_host(load_be32(ip + 12))) return IcmpErrorVeto::source_not_unicast;
    return IcmpErrorVeto::none;
}

// RFC 4443 2.4(e.3-5) make exceptions for packet too big and parameter
// problem, which this file does not send.
IcmpErrorVeto ipv6_address_veto(const uint8_t* ip, bool link_group) {
    if (link_group) return IcmpErrorVeto::link_layer_group;
    if (ipv6_is_multicast(ip + 24)) return IcmpErrorVeto::multicast_destination;
    if (!ipv6_names_one_host(ip + 8)) return IcmpErrorVeto::source_not_unicast;
    return IcmpErrorVeto::none;
}

Invoking examine(std::span<const uint8_t> frame, bool to_subnet_broadcast) {
    Invoking inv;
    const L3Header h = parse_l3_header(frame, uint32_t(frame.size()), false);
    // A malformed IPv4 option is what a parameter problem is about; the
    // rest of that header was read and is sound.
    const bool bad_option = h.verdict == L3Verdict::bad_header && h.bad == L3BadHeader::bad_option;
    if ((h.verdict == L3Verdict::bad_header && !bad_option) || h.verdict == L3Verdict::not_ip)
        return inv;
    if (h.ethertype != kEtherTypeIpv4 && h.ethertype != kEtherTypeIpv6) return inv;  // ARP
    inv.v6 = h.ethertype == kEtherTypeIpv6;
    inv.ip = frame.data() + h.l3_offset;
    const uint8_t* const ip = inv.ip;
    const bool link_group = (frame[0] & 1) != 0;
    if (!inv.v6) {
        inv.ip_len = load_be16(ip + 2);
        const size_t header_len = h.l3_header_len;
        if ((load_be16(ip + 6) & 0x1fff) != 0) {
            inv.veto = IcmpErrorVeto::non_first_fragment;
            return inv;
        }
        if (ip[9] == kProtoIcmp) {
            if (inv.ip_len <= header_len) return inv;  // bad_header: no type to look at
            if (!icmp_is_informational(ip[header_len])) {
                inv.veto = IcmpErrorVeto::about_icmp_error;
                return inv;
            }
        }
        inv.veto = ipv4_address_veto(ip, link_group, to_subnet_broadcast);
        return inv;
    }
    inv.ip_len = kIpv6HeaderLen + load_be16(ip + 4);
    inv.veto = walk_ipv6(ip, inv.ip_len);
    if (inv.veto != IcmpErrorVeto::none) return inv;
    inv.veto = ipv6_address_veto(ip, link_group);
    return inv;
}

}  // namespace

EchoReply make_echo_reply_in_place(std::span<uint8_t> frame, std::optional<EchoReplyMacs> macs) {
    const L3Header h = parse_l3_header(frame, uint32_t(frame.size()), false);
    if (h.verdict == L3Verdict::bad_header) return echo_reject(EchoReject::bad_ip_header);
    const bool routable = h.verdict == L3Verdict::forward_v4 ||
                          h.verdict == L3Verdict::forward_v6 ||
                          h.verdict == L3Verdict::ttl_expired;  // TTL 1 to us is still ours
    if (!routable) return echo_reject(EchoReject::not_echo_request);
    return h.ethertype == kEtherTypeIpv4 ? echo_v4(frame, h, macs) : echo_v6(frame, h, macs);
}

IcmpErrorVeto may_send_icmp_error(std::span<const uint8_t> invoking_frame,
                                  bool to_subnet_broadcast) {
    return examine(invoking_frame, to_subnet_broadcast).veto;
}

size_t build_icmp_error(std::span<uint8_t> out, IcmpError error,
                        std::span<const uint8_t> invoking_frame, const IpAddress& router_ip,
                        const EtherPort& port, const MacAddr& next_hop_mac, uint32_t pointer) {
    if (error >= IcmpError::count) return 0;
    const Invoking inv = examine(invoking_frame, false);
    if (inv.veto != IcmpErrorVeto::none) return 0;
    if (router_ip.family != (inv.v6 ? IpFamily::v6 : IpFamily::v4)) return 0;
    const TypeCode tc = kErrorTypeCodes[size_t(error)];
    const size_t ip_header_len = inv.v6 ? kIpv6HeaderLen : kIpv4HeaderLen;
    const size_t max_len = inv.v6 ? kIcmpv6ErrorMaxLen : kIcmpv4ErrorMaxLen;
    const size_t quote_len = std::min(inv.ip_len, max_len - ip_header_len - kIcmpHeaderLen);
    const size_t icmp_len = kIcmpHeaderLen + quote_len;
    const size_t len = ether_header_len(port) + ip_header_len + icmp_len;
    if (out.size() < len) return 0;

    const size_t at = write_ether_header(out.data(), next_hop_mac, port,
                                         inv.v6 ? kEtherTypeIpv6 : kEtherTypeIpv4);
    uint8_t* const ip = out.data() + at;
    uint8_t* const icmp = ip + ip_header_len;
    std::memset(ip, 0, ip_header_len + kIcmpHeaderLen);
    std::memcpy(icmp + kIcmpHeaderLen, inv.ip, quote_len);
    if (!inv.v6) {
        ip[0] = 0x45;
        ip[1] = kTosInternetworkControl;
        store_be16(ip + 2, uint16_t(kIpv4HeaderLen + icmp_len));
        // Don't fragment, so that an id of 0 is allowed (RFC 6864 4.1: an
        // atomic datagram's id means nothing). The cost: the error is lost
        // on a path whose MTU is under its length.
        store_be16(ip + 6, 0x4000);
        ip[8] = kTtl;
        ip[9] = kProtoIcmp;
        std::memcpy(ip + 12, router_ip.bytes.data(), 4);
        std::memcpy(ip + 16, inv.ip + 12, 4);
        ipv4_store_checksum(ip, kIpv4HeaderLen);
        icmp[0] = tc.type4;
        icmp[1] = tc.code4;
        if (error == IcmpError::parameter_problem) icmp[4] = uint8_t(pointer);
        store_be16(icmp + 2, icmp_checksum({icmp, icmp_len}));
    } else {
        ip[0] = 0x60;
        store_be16(ip + 4, uint16_t(icmp_len));
        ip[6] = kIpProtoIcmpv6;
        ip[7] = kTtl;
        std::memcpy(ip + 8, router_ip.bytes.data(), 16);
        std::memcpy(ip + 24, inv.ip + 8, 16);
        icmp[0] = tc.type6;
        icmp[1] = tc.code6;
        if (error == IcmpError::parameter_problem) store_be32(icmp + 4, pointer);
        const std::span<const uint8_t, 16> src(ip + 8, 16), dst(ip + 24, 16);
        store_be16(icmp + 2, icmpv6_checksum(src, dst, {icmp, icmp_len}));
    }
    return len;
}

}  // namespace pmdfwd
