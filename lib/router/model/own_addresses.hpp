// What a router's workers check a packet's addresses against before they
// route it: sources no packet may come from (RFC 1812 5.3.7, RFC 4291 2.5),
// destinations it never forwards, and its own addresses and subnets. Built
// once at start from the ports' addresses; pure, read-only afterwards, so
// any number of workers read it without a lock.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "ip_prefix.hpp"

namespace pmdfwd {

// Per first address byte: kV4Martian where an IPv4 source or destination
// with that first octet is never routed (0/8 this network, 127/8 loopback,
// 224/4 multicast, 240/4 reserved and 255.255.255.255); kV6Suspect where an
// IPv6 address with that first byte needs a closer look (0x00: ::, ::1,
// IPv4-mapped; 0xfe: link-local fe80::/10; 0xff: multicast). One table so
// that the workers' plain path tests both addresses with two loads.
constexpr uint8_t kV4Martian = 1, kV6Suspect = 2;
struct FirstByteTable {
    std::array<uint8_t, 256> flags{};
    constexpr FirstByteTable() {
        for (unsigned b = 0; b < 256; ++b) {
            if (b == 0 || b == 127 || b >= 224) flags[b] |= kV4Martian;
            if (b == 0x00 || b == 0xfe || b == 0xff) flags[b] |= kV6Suspect;
        }
    }
};
inline constexpr FirstByteTable kFirstByte{};

// A 512-entry filter over the router's own addresses (and its IPv4
// subnets' network and broadcast addresses): a source whose entry is 0 is
// none of them, so the plain path pays a multiply, a shift and a byte
// compare (a byte an entry, not a bit: three instructions fewer than a bit
// test, for 448 more bytes); a set entry sends the packet to the exact
// check. The key is the address's last four bytes as they lie in memory
// (no byte swap on the plain path).
constexpr unsigned kSourceFilterEntries = 512;
inline uint32_t source_filter_index(uint32_t last4_as_loaded) {
    // Fibonacci hashing: the top 9 bits of the product, 0 .. 511.
    return (last4_as_loaded * 0x9e3779b1u) >> 23;
}
inline uint32_t last4_of(const uint8_t* address_end) {
    uint32_t k;
    std::memcpy(&k, address_end - 4, 4);
    return k;
}

// What the plain path screens every packet's addresses with: kFirstByte's
// flags and the source filter side by side, so that one register reaches
// both (two loop-invariant addresses held apart cost the IPv4 loop two
// instructions a packet, one to rebuild the first and one to reload the
// second, callgrind).
struct AddressScreen {
    std::array<uint8_t, 256> first_byte = kFirstByte.flags;
    std::array<uint8_t, kSourceFilterEntries> source_filter{};

    // True when a source ending at address_end might be one of ours.
    bool may_be_own_source(const uint8_t* address_end) const {
        return source_filter[source_filter_index(last4_of(address_end))] != 0;
    }
};

// Why an address may not be a routed packet's source or destination, as
// the slow path sees it; the drop reason follows from it.
enum class AddressVerdict : uint8_t {
    ok,
    martian,     // never routed: bad_source or bad_destination
    own,         // a source that is one of the router's own addresses
    link_local,  // IPv6 fe80::/10: fine to the router itself, never forwarded
};

class OwnAddresses {
  public:
    OwnAddresses() = default;
    // Every port's interface addresses (address/subnet length).
    explicit OwnAddresses(std::span<const IpPrefix> interface_addresses);

    // The plain path's tables: its filter is true for a source that might
    // be one of ours.
    const AddressScreen& screen() const { return screen_; }

    // ip: the IPv4 header (20 bytes at least).
    AddressVerdict ipv4_source(const uint8_t* ip) const;
    AddressVerdict ipv4_destination(const uint8_t* ip) const;
    // One of our IPv4 subnets' network or broadcast address (host order):
    // no packet goes to one as if it were a host (RFC 1812 5.3.5, 4.3.3.6).
    bool is_subnet_broadcast(uint32_t v4_host_order) const;
    // ip: the IPv6 header (40 bytes).
    AddressVerdict ipv6_source(const uint8_t* ip) const;
    AddressVerdict ipv6_destination(const uint8_t* ip) const;

    size_t size() const { return own_v4_.size() + edges_v4_.size() + own_v6_.size(); }

  private:
    void add_to_filter(const uint8_t* address_end);

    AddressScreen screen_;
    std::vector<uint32_t> own_v4_;    // host order
    std::vector<uint32_t> edges_v4_;  // subnets' network and broadcast addresses, host order
    std::vector<std::array<uint8_t, 16>> own_v6_;
};

}  // namespace pmdfwd
