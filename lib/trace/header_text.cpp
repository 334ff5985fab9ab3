// A frame's headers in one line (see header_text.hpp).
#include "header_text.hpp"

#include <arpa/inet.h>

#include <cstdio>
#include <string_view>

#include "wire_bytes.hpp"

namespace pmdfwd {

namespace {

constexpr size_t kEtherLen = 14, kTagLen = 4, kIpv6Len = 40;

std::string mac_text(const uint8_t* p) {
    char s[18];
    std::snprintf(s, sizeof s, "%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3], p[4], p[5]);
    return s;
}

std::string ip_text(int family, const uint8_t* p) {
    char s[INET6_ADDRSTRLEN];
    return inet_ntop(family, p, s, sizeof s) ? s : "?";
}

// The transport header at p (len bytes left) of protocol proto.
std::string transport_text(uint8_t proto, const uint8_t* p, size_t len) {
    const auto ports = [&](const char* name, size_t need) {
        if (len < need) return std::string(", ") + name + " (cut short)";
        return std::string(", ") + name + " " + std::to_string(load_be16(p)) + " > " +
               std::to_string(load_be16(p + 2));
    };
    switch (proto) {
        case 17:
            if (len < 8) return ports("UDP", 8);
            return ports("UDP", 8) + " len " + std::to_string(load_be16(p + 4));
        case 6: {
            if (len < 20) return ports("TCP", 20);
            std::string flags;
            static constexpr std::string_view kNames = "FSRPAU";
            for (size_t i = 0; i < kNames.size(); ++i)
                if (p[13] & (1u << i)) flags += kNames[i];
            return ports("TCP", 20) + " [" + flags + "] seq " + std::to_string(load_be32(p + 4));
        }
        case 1:
        case 58: {
            const char* name = proto == 1 ? "ICMP" : "ICMPv6";
            if (len < 4) return std::string(", ") + name + " (cut short)";
            return std::string(", ") + name + " type " + std::to_string(p[0]) + " code " +
                   std::to_string(p[1]);
        }
        default:
            return ", protocol " + std::to_string(proto);
    }
}

std::string ipv4_text(const uint8_t* p, size_t len) {
    if (len < 20) return ", IPv4 (cut short)";
    if (p[0] >> 4 != 4) return ", IPv4 (version " + std::to_string(p[0] >> 4) + ")";
    const size_t ihl = size_t(p[0] & 0x0f) * 4;
    if (ihl < 20 || ihl > len) return ", IPv4 (header length " + std::to_string(ihl) + ")";
    const uint16_t frag = load_be16(p + 6);
    std::string s = ", IPv4 " + ip_text(AF_INET, p + 12) + " > " + ip_text(AF_INET, p + 16) +
                    " ttl " + std::to_string(p[8]) + " len " + std::to_string(load_be16(p + 2));
    if (ihl > 20) s += " options " + std::to_string(ihl - 20);
    if (frag & 0x3fff) {
        s += " frag offset " + std::to_string((frag & 0x1fff) * 8) + ((frag & 0x2000) ? "+" : "");
        if (frag & 0x1fff) return s;  // no transport header in a later fragment
    }
    return s + transport_text(p[9], p + ihl, len - ihl);
}

std::string ipv6_text(const uint8_t* p, size_t len) {
    if (len < kIpv6Len) return ", IPv6 (cut short)";
    std::string s = ", IPv6 " + ip_text(AF_INET6, p + 8) + " > " + ip_text(AF_INET6, p + 24) +
                    " hlim " + std::to_string(p[7]) + " plen " + std::to_string(load_be16(p + 4));
    uint8_t next = p[6];
    size_t at = kIpv6Len;
    // Hop-by-hop, routing, destination options: 8 * (len + 1) bytes each.
    while (next == 0 || next == 43 || next == 60) {
        if (at + 8 > len) return s + ", extension header (cut short)";
        s += next == 0 ? ", hop-by-hop" : next == 43 ? ", routing" : ", destination options";
        const size_t ext = (size_t(p[at + 1]) + 1) * 8;
        next = p[at];
        at += ext;
    }
    if (next == 44) return s + ", fragment";
    if (at > len) return s + ", extension header (cut short)";
    return s + transport_text(next, p + at, len - at);
}

}  // namespace

std::string header_text(std::span<const uint8_t> frame) {
    const uint8_t* p = frame.data();
    const size_t len = frame.size();
    if (len < kEtherLen) return "(" + std::to_string(len) + " bytes: no Ethernet header)";
    std::string s = mac_text(p + 6) + " > " + mac_text(p);
    size_t at = 12;
    uint16_t type = load_be16(p + at);
    while (type == 0x8100 || type == 0x88a8) {
        if (at + kTagLen + 2 > len) return s + ", vlan (cut short)";
        s += (type == 0x88a8 ? ", svlan " : ", vlan ") +
             std::to_string(load_be16(p + at + 2) & 0x0fff);
        at += kTagLen;
        type = load_be16(p + at);
    }
    at += 2;
    const uint8_t* l3 = p + at;
    const size_t l3_len = len - at;
    switch (type) {
        case 0x0800:
            return s + ipv4_text(l3, l3_len);
        case 0x86dd:
            return s + ipv6_text(l3, l3_len);
        case 0x0806:
            if (l3_len < 28) return s + ", ARP (cut short)";
            return s + ", ARP " + (load_be16(l3 + 6) == 1 ? "who-has " : "reply ") +
                   ip_text(AF_INET, l3 + 24) + " tell " + ip_text(AF_INET, l3 + 14);
        default: {
            char t[8];
            std::snprintf(t, sizeof t, "%04x", type);
            return s + ", ethertype 0x" + t;
        }
    }
}

}  // namespace pmdfwd
