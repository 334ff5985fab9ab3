// The router's address checks (see own_addresses.hpp). Pure; built on the
// main lcore, read by workers on their slow path.
#include "own_addresses.hpp"

#include <algorithm>

#include "wire_bytes.hpp"

namespace pmdfwd {

namespace {

bool ipv6_unspecified_loopback_or_mapped(const uint8_t* a) {
    static constexpr uint8_t kZero[10] = {};
    if (std::memcmp(a, kZero, 10) != 0) return false;
    // ::ffff:0:0/96 (IPv4-mapped) names a host of another family: not on a wire.
    if (a[10] == 0xff && a[11] == 0xff) return true;
    if (a[10] != 0 || a[11] != 0) return false;
    static constexpr uint8_t kZero3[3] = {};
    return std::memcmp(a + 12, kZero3, 3) == 0 && a[15] <= 1;
}

bool ipv6_link_local(const uint8_t* a) { return a[0] == 0xfe && (a[1] & 0xc0) == 0x80; }

}  // namespace

OwnAddresses::OwnAddresses(std::span<const IpPrefix> interface_addresses) {
    for (const IpPrefix& p : interface_addresses) {
        if (p.address.family == IpFamily::v6) {
            own_v6_.push_back(p.address.bytes);
            add_to_filter(p.address.bytes.data() + 16);
            continue;
        }
        own_v4_.push_back(p.address.v4_host_order());
        add_to_filter(p.address.bytes.data() + 4);
        // /31 and /32 have neither (RFC 3021): every address is a host's.
        if (p.length > 30) continue;
        const uint32_t host_mask = p.length == 0 ? ~0u : (1u << (32 - p.length)) - 1;
        for (const uint32_t edge :
             {p.address.v4_host_order() & ~host_mask, p.address.v4_host_order() | host_mask}) {
            edges_v4_.push_back(edge);
            uint8_t bytes[4];
            store_be32(bytes, edge);
            add_to_filter(bytes + 4);
        }
    }
}

void OwnAddresses::add_to_filter(const uint8_t* address_end) {
    screen_.source_filter[source_filter_index(last4_of(address_end))] = 1;
}

bool OwnAddresses::is_subnet_broadcast(uint32_t v4_host_order) const {
    return std::find(edges_v4_.begin(), edges_v4_.end(), v4_host_order) != edges_v4_.end();
}

AddressVerdict OwnAddresses::ipv4_source(const uint8_t* ip) const {
    if (kFirstByte.flags[ip[12]] & kV4Martian) return AddressVerdict::martian;
    const uint32_t src = load_be32(ip + 12);
    // A subnet's broadcast or network address names no single host either.
    if (is_subnet_broadcast(src)) return AddressVerdict::martian;
    if (std::find(own_v4_.begin(), own_v4_.end(), src) != own_v4_.end()) return AddressVerdict::own;
    return AddressVerdict::ok;
}

AddressVerdict OwnAddresses::ipv4_destination(const uint8_t* ip) const {
    return (kFirstByte.flags[ip[16]] & kV4Martian) ? AddressVerdict::martian : AddressVerdict::ok;
}

AddressVerdict OwnAddresses::ipv6_source(const uint8_t* ip) const {
    const uint8_t* src = ip + 8;
    if (src[0] == 0xff || ipv6_unspecified_loopback_or_mapped(src)) return AddressVerdict::martian;
    for (const auto& a : own_v6_)
        if (std::memcmp(a.data(), src, 16) == 0) return AddressVerdict::own;
    if (ipv6_link_local(src)) return AddressVerdict::link_local;
    return AddressVerdict::ok;
}

AddressVerdict OwnAddresses::ipv6_destination(const uint8_t* ip) const {
    const uint8_t* dst = ip + 24;
    // No multicast routing: a group address is never forwarded.
    if (dst[0] == 0xff || ipv6_unspecified_loopback_or_mapped(dst)) return AddressVerdict::martian;
    if (ipv6_link_local(dst)) return AddressVerdict::link_local;
    return AddressVerdict::ok;
}

}  // namespace pmdfwd
