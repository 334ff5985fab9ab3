// Reading and building Ethernet/IPv4 ARP (see arp_packet.hpp). Pure; main
// lcore only.
#include "arp_packet.hpp"

#include <cstring>

#include "l3_header.hpp"
#include "wire_bytes.hpp"

namespace pmdfwd {

namespace {

constexpr uint16_t kHardwareEthernet = 1;
constexpr uint8_t kMacLen = 6, kIpv4AddrLen = 4;

MacAddr load_mac(const uint8_t* p) {
    MacAddr mac;
    std::memcpy(mac.bytes.data(), p, 6);
    return mac;
}

// The ARP packet proper, behind a header already written.
void write_arp(uint8_t* arp, ArpOp op, const MacAddr& sender_mac, Ipv4Addr sender_ip,
               const MacAddr& target_mac, Ipv4Addr target_ip) {
    store_be16(arp, kHardwareEthernet);
    store_be16(arp + 2, kEtherTypeIpv4);
    arp[4] = kMacLen;
    arp[5] = kIpv4AddrLen;
    store_be16(arp + 6, uint16_t(op));
    std::memcpy(arp + 8, sender_mac.bytes.data(), 6);
    store_be32(arp + 14, sender_ip.host_order);
    std::memcpy(arp + 18, target_mac.bytes.data(), 6);
    store_be32(arp + 24, target_ip.host_order);
}

size_t build(std::span<uint8_t> out, const EtherPort& port, const MacAddr& eth_dst, ArpOp op,
             Ipv4Addr sender_ip, const MacAddr& target_mac, Ipv4Addr target_ip) {
    const size_t len = arp_frame_len(port);
    if (out.size() < len) return 0;
    uint8_t* const frame = out.data();
    const size_t header_len = write_ether_header(frame, eth_dst, port, kEtherTypeArp);
    write_arp(frame + header_len, op, port.mac, sender_ip, target_mac, target_ip);
    std::memset(frame + header_len + kArpLen, 0, len - header_len - kArpLen);
    return len;
}

}  // namespace

ArpParse parse_arp(std::span<const uint8_t> arp) {
    ArpParse result;
    if (arp.size() < kArpLen) {
        result.reject = ArpReject::truncated;
        return result;
    }
    const uint8_t* const p = arp.data();
    if (load_be16(p) != kHardwareEthernet || p[4] != kMacLen) {
        result.reject = ArpReject::not_ethernet;
        return result;
    }
    if (load_be16(p + 2) != kEtherTypeIpv4 || p[5] != kIpv4AddrLen) {
        result.reject = ArpReject::not_ipv4;
        return result;
    }
    const uint16_t op = load_be16(p + 6);
    if (op != uint16_t(ArpOp::request) && op != uint16_t(ArpOp::reply)) {
        result.reject = ArpReject::bad_op;
        return result;
    }
    result.packet.op = ArpOp(op);
    result.packet.sender_mac = load_mac(p + 8);
    result.packet.sender_ip = Ipv4Addr{load_be32(p + 14)};
    result.packet.target_mac = load_mac(p + 18);
    result.packet.target_ip = Ipv4Addr{load_be32(p + 24)};
    return result;
}

size_t arp_frame_len(const EtherPort& port) {
    const size_t len = ether_header_len(port) + kArpLen;
    return len < kMinFrameLen ? kMinFrameLen : len;
}

size_t build_arp_request(std::span<uint8_t> out, const EtherPort& port, Ipv4Addr our_ip,
                         Ipv4Addr target_ip) {
    const MacAddr broadcast{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
    return build(out, port, broadcast, ArpOp::request, our_ip, MacAddr{}, target_ip);
}

size_t build_arp_reply(std::span<uint8_t> out, const EtherPort& port, const ArpPacket& request) {
    return build(out, port, request.sender_mac, ArpOp::reply, request.target_ip, request.sender_mac,
                 request.sender_ip);
}

}  // namespace pmdfwd
