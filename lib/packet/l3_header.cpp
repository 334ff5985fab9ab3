// Classifying a frame for routing (see l3_header.hpp). Pure; per packet.
#include "l3_header.hpp"

#include "ip_checksum.hpp"
#include "wire_bytes.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

namespace {

constexpr size_t kEthLen = 14, kVlanLen = 4;
constexpr size_t kIpv4MinLen = kIpv4HeaderLen;
// Router solicitation .. redirect (RFC 4861).
constexpr uint8_t kNdFirstType = 133, kNdLastType = 137;

L3Header bad(L3Header h, L3BadHeader why) {
    h.verdict = L3Verdict::bad_header;
    h.bad = why;
    return h;
}

L3Header parse_ipv4(L3Header h, const uint8_t* ip, size_t in_segment, size_t carried,
                    bool checksum_verified) {
    if (in_segment < kIpv4MinLen) return bad(h, L3BadHeader::runt);
    if (ip[0] >> 4 != 4) return bad(h, L3BadHeader::bad_version);
    const size_t header_len = size_t(ip[0] & 0x0f) * 4;
    if (header_len < kIpv4MinLen) return bad(h, L3BadHeader::bad_ihl);
    if (header_len > in_segment) return bad(h, L3BadHeader::runt);
    h.l3_header_len = uint16_t(header_len);
    // Shorter than the frame is Ethernet padding; longer is a lie.
    const size_t total_len = load_be16(ip + 2);
    if (total_len < header_len || total_len > carried) return bad(h, L3BadHeader::bad_length);
    if (!checksum_verified && ipv4_header_checksum(ip, header_len) != 0)
        return bad(h, L3BadHeader::bad_checksum);
    if (header_len > kIpv4MinLen && ipv4_option_problem(ip, header_len) != 0)
        return bad(h, L3BadHeader::bad_option);
    // Fragments go on as they are: a router does not reassemble.
    h.verdict = ip[8] <= 1 ? L3Verdict::ttl_expired : L3Verdict::forward_v4;
    return h;
}

L3Header parse_ipv6(L3Header h, const uint8_t* ip, size_t in_segment, size_t carried) {
    if (in_segment < kIpv6HeaderLen) return bad(h, L3BadHeader::runt);
    if (ip[0] >> 4 != 6) return bad(h, L3BadHeader::bad_version);
    h.l3_header_len = uint16_t(kIpv6HeaderLen);
    const size_t payload_len = load_be16(ip + 4);
    if (kIpv6HeaderLen + payload_len > carried) return bad(h, L3BadHeader::bad_length);
    // ND is looked for only right behind the fixed header, where hosts send
    // it; one behind extension headers is left to the route lookup (its
    // destination is link-local, multicast or our own). What comes here,
    // ND whatever its destination, is what the plain path did not take: a
    // link-local (the usual ND source), multicast or own address, a tag, a
    // hop limit of 1, a packet not whole in its first segment. The plain
    // path looks at ND only once its route says it is the router's
    // (to_us), and forwards ND between global addresses to another host
    // as any packet, as Linux, VPP and grout do: its hop limit is 254
    // then, which the receiver refuses (RFC 4861 7.1.1), so no host is
    // fooled.
    if (ip[6] == kIpProtoIcmpv6 && payload_len > 0 && in_segment <= kIpv6HeaderLen)
        return bad(h, L3BadHeader::runt);  // no ICMPv6 type to look at
    if (is_neighbour_discovery(ip, in_segment)) {
        h.verdict = L3Verdict::control;
        return h;
    }
    h.verdict = ip[7] <= 1 ? L3Verdict::ttl_expired : L3Verdict::forward_v6;
    return h;
}

}  // namespace

bool is_neighbour_discovery(const uint8_t* ipv6, size_t in_segment) {
    if (ipv6[6] != kIpProtoIcmpv6 || in_segment <= kIpv6HeaderLen) return false;
    if (load_be16(ipv6 + 4) == 0) return false;
    const uint8_t type = ipv6[kIpv6HeaderLen];
    return type >= kNdFirstType && type <= kNdLastType;
}

size_t ipv4_option_problem(const uint8_t* ip, size_t header_len) {
    constexpr uint8_t kEndOfList = 0, kNoOperation = 1;
    size_t at = kIpv4MinLen;
    while (at < header_len) {
        const uint8_t type = ip[at];
        if (type == kEndOfList) return 0;
        if (type == kNoOperation) {
            ++at;
            continue;
        }
        if (at + 1 >= header_len) return at;
        const size_t len = ip[at + 1];
        if (len < 2 || len > header_len - at) return at + 1;
        at += len;
    }
    return 0;
}

L3Header parse_l3_header(std::span<const uint8_t> first_segment, uint32_t pkt_len,
                         bool checksum_verified) {
    L3Header h;
    const size_t len = first_segment.size() < pkt_len ? first_segment.size() : pkt_len;
    const uint8_t* const frame = first_segment.data();
    if (len < kEthLen) return bad(h, L3BadHeader::runt);
    size_t offset = kEthLen;
    uint16_t ethertype = load_be16(frame + 12);
    if (ethertype == kEtherTypeVlan || ethertype == kEtherTypeQinQ) {
        if (len < kEthLen + kVlanLen) return bad(h, L3BadHeader::runt);
        ethertype = load_be16(frame + 16);
        offset += kVlanLen;
    }
    h.l3_offset = uint16_t(offset);
    h.ethertype = ethertype;
    const size_t in_segment = len - offset;
    const size_t carried = pkt_len - offset;
    switch (ethertype) {
        case kEtherTypeIpv4:
            return parse_ipv4(h, frame + offset, in_segment, carried, checksum_verified);
        case kEtherTypeIpv6:
            return parse_ipv6(h, frame + offset, in_segment, carried);
        case kEtherTypeArp:
            h.verdict = L3Verdict::control;
            return h;
        default:
            return h;  // not_ip, a second tag included: one tag is all a port carries
    }
}

}  // namespace pmdfwd
