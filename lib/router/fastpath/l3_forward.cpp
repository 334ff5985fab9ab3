// Router mode's burst path (see l3_forward.hpp). Runs on worker lcores: no
// locks, no allocation; the tables are read under RCU (the loop reports its
// quiescent state between bursts). Drops: no_route, ttl_expired, bad_header,
// not_ip, oversize, punt_full, not_our_mac, bad_source, bad_destination,
// bad_option, and those of transmit.
#include "l3_forward.hpp"

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <bit>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <span>
#include <type_traits>

#include "ecmp_paths.hpp"
#include "flow_hash.hpp"
#include "ip_checksum.hpp"
#include "l3_header.hpp"
#include "own_addresses.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

namespace {

// Packets classified and looked up together: what the bulk lookups take at
// once without a long stack of addresses.
constexpr uint16_t kChunk = 64;

// What classification decided for one packet.
// The lookups first: one compare tells them from the rest.
enum class Step : uint8_t { lookup_v4, lookup_v6, drop, punt, punt_local };

struct Classified {
    Step step;
    bool ttl_expired;    // look up first: TTL 1 to our own address is still ours
    uint16_t l3_offset;  // kEtherHeaderLen, or 4 more behind a VLAN tag
    // Step::drop: why. A lookup: count, or the reason it is dropped by
    // unless the route says it is ours (an IPv6 link-local address, which
    // may talk to the router but never leaves its link).
    DropReason drop;
};

// What the plain paths compare every packet with, held in registers over
// a chunk: the rx port's MAC and the filter of the router's own addresses.
struct PlainChecks {
    explicit PlainChecks(const WorkerContext& w)
        : own_mac(w.l3_own_mac), screen(&w.router.own->screen()), own(w.router.own) {
#ifdef __SSE2__
        v4_head = _mm_load_si128(reinterpret_cast<const __m128i*>(w.l3_v4_head));
        v6_head = _mm_load_si128(reinterpret_cast<const __m128i*>(w.l3_v6_head));
        // Bytes 0-5, 12 and 13 whole, byte 14's version.
        v6_mask = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, -1, -1, -16, 0);
#endif
    }
    uint64_t own_mac;
    const AddressScreen* screen;
    const OwnAddresses* own;  // the exact check behind the filter
#ifdef __SSE2__
    __m128i v4_head, v6_head, v6_mask;
#endif
};

// A source the filter could not rule out, checked exactly: out of line,
// for the few addresses that share a filter entry with one of ours.
// They take the frame: the header's address, made before the call, would
// be made on every packet's path (an instruction a packet, callgrind).
__attribute__((noinline)) bool ipv4_source_ok(const OwnAddresses& own, const uint8_t* f) {
    return own.ipv4_source(f + kEtherHeaderLen) == AddressVerdict::ok;
}
__attribute__((noinline)) bool ipv6_source_ok(const OwnAddresses& own, const uint8_t* f) {
    return own.ipv6_source(f + kEtherHeaderLen) == AddressVerdict::ok;
}

// The shortest frames the plain paths take: an untagged header of 20 or
// 40 bytes. They read that much of a frame before its length test, which
// the length of no frame can make unsafe: every receive buffer holds that
// much from the frame's start (kMinDataRoom).
constexpr uint32_t kPlainV4Len = kEtherHeaderLen + kIpv4HeaderLen;
constexpr uint32_t kPlainV6Len = kEtherHeaderLen + kIpv6HeaderLen;
static_assert(kMinDataRoom - RTE_PKTMBUF_HEADROOM >= kPlainV6Len);

// The destination MAC is the port's own: one 8-byte load (within every
// receive buffer, kMinDataRoom) and a compare of its first six.
inline bool to_own_mac(const uint8_t* f, uint64_t own_mac) {
    uint64_t head;
    std::memcpy(&head, f, 8);
    constexpr bool kLittle = std::endian::native == std::endian::little;
    return (kLittle ? (head ^ own_mac) << 16 : (head ^ own_mac) >> 16) == 0;
}

// An untagged IPv4 packet with a 20-byte header, TTL > 1 and a good
// checksum: nearly all traffic, told apart without leaving this function.
// Also to the port's own MAC, from and to no martian address, and from an
// address that is not the router's own (the filter rules out nearly all;
// the few it cannot, the exact check does).
inline bool plain_ipv4(const uint8_t* f, uint32_t seg_len, bool cksum_good, const PlainChecks& pc) {
    // Views made per read, none held across the function: GCC lays the
    // burst loop out worse with a view object live here (0.9 instructions
    // a packet more, callgrind).
    const uint8_t* ip = f + kEtherHeaderLen;
#ifdef __SSE2__
    // The port's MAC, EtherType 0x0800 and version 4 with IHL 5: one
    // compare of the frame's first 16 bytes (6 instructions where the MAC
    // and the rest apart took 8, callgrind).
    const __m128i head = _mm_loadu_si128(reinterpret_cast<const __m128i*>(f));
    constexpr int kFixed = 0x703f;  // bytes 0-5 and 12-14
    if ((_mm_movemask_epi8(_mm_cmpeq_epi8(head, pc.v4_head)) & kFixed) != kFixed ||
        Ipv4HeaderView(ip).time_to_live() <= 1)
        return false;
#else
    // EtherType 0x0800 and version 4 with IHL 5 in one compare.
    constexpr bool kLittle = std::endian::native == std::endian::little;
    constexpr uint32_t kLead = kLittle ? 0x00450008 : 0x08004500;
    constexpr uint32_t kLeadMask = kLittle ? 0x00ffffff : 0xffffff00;
    const uint32_t lead = EtherHeaderView(f).ether_type_and_next2();
    if ((lead & kLeadMask) != kLead || Ipv4HeaderView(ip).time_to_live() <= 1) return false;
    if (!to_own_mac(f, pc.own_mac)) return false;
#endif
    // 20 <= total length and 14 + total length <= seg_len, in one signed
    // 64-bit compare: a total length under 20 wraps to over 4e9, a segment
    // shorter than kPlainV4Len gives a negative bound. The whole packet in
    // its first segment, so seg_len >= kPlainV4Len needs no test of its own.
    const uint32_t beyond_header = uint32_t(Ipv4HeaderView(ip).total_length()) - kIpv4HeaderLen;
    if (int64_t(beyond_header) > int64_t(seg_len) - int64_t(kPlainV4Len)) return false;
    // Source and destination first octets in one table: two loads, one test.
    if ((pc.screen->first_byte[Ipv4HeaderView(ip).src_addr()[0]] |
         pc.screen->first_byte[Ipv4HeaderView(ip).dst_addr()[0]]) &
        kV4Martian)
        return false;
    if (pc.screen->may_be_own_source(Ipv4HeaderView(ip).src_addr() + 4) &&
        !ipv4_source_ok(*pc.own, f))
        return false;
    return cksum_good || ipv4_header20_checksum_ok(ip);
}

// An untagged IPv6 packet with hop limit > 1: routed without the slow path.
// Also to the port's own MAC, with neither address :: or ::1-like,
// link-local or multicast, from an address the filter rules out as ours.
// Neighbour discovery too: to the router's own address, its route sends it
// to to_us, which punts it as ND; to another host's, it is forwarded as
// any packet (l3_header.cpp says why).
inline bool plain_ipv6(const uint8_t* f, uint32_t seg_len, const PlainChecks& pc) {
    const Ipv6HeaderView ip(f + kEtherHeaderLen);
#ifdef __SSE2__
    // The port's MAC, EtherType 0x86dd and version 6: one masked compare
    // of the frame's first 16 bytes (6 instructions where apart they took
    // 10, callgrind). The mask zeroes what may vary, as the reference
    // holds it, so every byte compares equal in a plain frame.
    const __m128i head = _mm_loadu_si128(reinterpret_cast<const __m128i*>(f));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(head, pc.v6_mask), pc.v6_head)) != 0xffff ||
        ip.hop_limits() <= 1)
        return false;
#else
    if (EtherHeaderView(f).ether_type_be() != rte_cpu_to_be_16(kEtherTypeIpv6) ||
        ip.version() != 6 || ip.hop_limits() <= 1)
        return false;
    if (!to_own_mac(f, pc.own_mac)) return false;
#endif
    if ((pc.screen->first_byte[ip.src_addr()[0]] | pc.screen->first_byte[ip.dst_addr()[0]]) &
        kV6Suspect)
        return false;
    if (pc.screen->may_be_own_source(ip.src_addr() + 16) && !ipv6_source_ok(*pc.own, f))
        return false;
    // The whole packet in its first segment: the frame is kPlainV6Len
    // long at least too. Compared as IPv4's is, in 64 bits: GCC widened
    // seg_len twice for the 32-bit sum (an instruction a packet, callgrind).
    return int64_t(ip.payload_len()) <= int64_t(seg_len) - int64_t(kPlainV6Len);
}

// A routable packet's addresses (RFC 1812 5.3.7, RFC 4291 2.5.6): a
// martian or own source, a martian destination, or a link-local address
// that may only reach the router itself.
Classified check_addresses(const OwnAddresses& own, const uint8_t* ip, Classified c) {
    auto drop = [&](DropReason why) { return Classified{Step::drop, false, c.l3_offset, why}; };
    if (c.step == Step::lookup_v4) {
        if (own.ipv4_source(ip) != AddressVerdict::ok) return drop(DropReason::bad_source);
        if (own.ipv4_destination(ip) != AddressVerdict::ok)
            return drop(DropReason::bad_destination);
        return c;
    }
    const AddressVerdict src = own.ipv6_source(ip), dst = own.ipv6_destination(ip);
    if (src == AddressVerdict::martian || src == AddressVerdict::own)
        return drop(DropReason::bad_source);
    if (dst == AddressVerdict::martian) return drop(DropReason::bad_destination);
    if (src == AddressVerdict::link_local) c.drop = DropReason::bad_source;
    if (dst == AddressVerdict::link_local) c.drop = DropReason::bad_destination;
    return c;
}

// A link-scope group (224.0.0.0/24, ff02::/16): what routing protocols'
// hellos go to, the kernel interface's on a port that has one.
bool to_link_scope_group(const L3Header& h, const uint8_t* f) {
    const uint8_t* ip = f + h.l3_offset;
    if (h.ethertype == kEtherTypeIpv4) {
        const uint8_t* d = Ipv4HeaderView(ip).dst_addr();
        return d[0] == 224 && d[1] == 0 && d[2] == 0;
    }
    const uint8_t* d = Ipv6HeaderView(ip).dst_addr();
    return d[0] == 0xff && (d[1] & 0x0f) == 0x02;
}

// Everything but plain IPv4 and IPv6: tags, options, ND, bad headers,
// frames to other MACs, suspect addresses. Out of line, so that the plain
// cases stay compact.
__attribute__((noinline)) Classified classify_slow(const WorkerContext& w, const rte_mbuf* m,
                                                   const uint8_t* f, bool cksum_good) {
    const L3Header h =
        parse_l3_header(std::span<const uint8_t>(f, m->data_len), m->pkt_len, cksum_good);
    // Only ARP and ND come by a group address (and, to a kernel interface,
    // link-scope groups); nothing to another host's. A runt has no whole
    // MAC to look at: bad_header.
    const bool kernel_group =
        unlikely(w.l3_kernel_groups) &&
        (h.verdict == L3Verdict::forward_v4 || h.verdict == L3Verdict::forward_v6 ||
         h.verdict == L3Verdict::ttl_expired) &&
        to_link_scope_group(h, f);
    if (h.l3_offset != 0 && !to_own_mac(f, w.l3_own_mac)) {
        const bool group = (EtherHeaderView(f).dst_addr()[0] & 1) != 0;
        if (!(group && (h.verdict == L3Verdict::control || kernel_group)))
            return {Step::drop, false, h.l3_offset, DropReason::not_our_mac};
    }
    Classified c{Step::drop, false, h.l3_offset, DropReason::count};
    if (kernel_group) {
        c.step = Step::punt_local;
        return c;
    }
    switch (h.verdict) {
        case L3Verdict::forward_v4:
        case L3Verdict::forward_v6:
        case L3Verdict::ttl_expired:
            c.step = h.ethertype == kEtherTypeIpv4 ? Step::lookup_v4 : Step::lookup_v6;
            c.ttl_expired = h.verdict == L3Verdict::ttl_expired;
            return check_addresses(*w.router.own, f + h.l3_offset, c);
        case L3Verdict::control:
            c.step = Step::punt;
            return c;
        case L3Verdict::not_ip:
            c.drop = DropReason::not_ip;
            return c;
        case L3Verdict::bad_header:
            break;
    }
    c.drop = h.bad == L3BadHeader::bad_option ? DropReason::bad_option : DropReason::bad_header;
    return c;
}

inline bool rx_checksum_good(const rte_mbuf* m) {
    return (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD;
}

// ICMP errors are the control path's to send, at l3.icmp_rate_limit; a
// worker passes it at most that many a second too (GCRA on the TSC, read
// only here), so a flood of unroutable packets costs the ring nothing. One
// gate per family (and per worker, so per rx port): a flood of one does
// not starve the other's errors.
bool may_punt_error(const WorkerContext& w, bool v6) {
    if (w.icmp_interval_tsc == 0) return false;
    const uint64_t now = rte_rdtsc();
    uint64_t& tat = w.icmp_tat[v6];
    const uint64_t earliest = tat > w.icmp_burst_tsc ? tat - w.icmp_burst_tsc : 0;
    if (now < earliest) return false;
    tat = (tat > now ? tat : now) + w.icmp_interval_tsc;
    return true;
}

// Per-port output lists and the punt list of one chunk. A chunk whose
// forwarded packets all go to one port sends them from its own array
// (`direct`), with no copy into by_port.
struct Outputs {
    rte_mbuf** direct;
    uint16_t direct_count;
    uint8_t direct_port;
    rte_mbuf* by_port[kMaxPorts][kChunk];
    uint16_t count[kMaxPorts];
    uint32_t used_ports;  // bit p: by_port[p] holds packets
    rte_mbuf* punt[kChunk];
    uint16_t punts;
};

void add_to_port(rte_mbuf* m, uint8_t p, Outputs& o) {
    o.by_port[p][o.count[p]++] = m;
    o.used_ports |= 1u << p;
}

// Packets waiting for a neighbour fill at most half the punt ring: a flow
// to an unresolved neighbour must leave room for the ARP reply or neighbour
// advertisement that resolves it. Read only for such packets (and those to
// the router itself, held to the same half).
bool under_half_full(const WorkerContext& w, const Outputs& o) {
    return rte_ring_count(w.punt) + o.punts < rte_ring_get_capacity(w.punt) / 2;
}

// The capture's call ends the path (it frees the packet too): nothing is
// live across it, so the burst functions keep their registers.
void drop(rte_mbuf* m, DropReason why, BurstOutcome& out) {
    out.drops[drop_index(why)]++;
    if (unlikely(out.tap != nullptr)) {
        capture_drop_and_free(*out.tap, m, why);
        return;
    }
    rte_pktmbuf_free(m);
}

void punt(rte_mbuf* m, PuntReason why, Outputs& o) {
    m->hash.usr = uint32_t(why);
    o.punt[o.punts++] = m;
}

// A dropped packet that earns an ICMP error goes to the control path when
// the worker's share of the rate allows; counted as the drop either way.
void drop_with_error(const WorkerContext& w, rte_mbuf* m, bool v6, DropReason why, PuntReason error,
                     Outputs& o, BurstOutcome& out) {
    out.drops[drop_index(why)]++;
    if (may_punt_error(w, v6)) {
        if (unlikely(out.tap != nullptr)) capture_drop(*out.tap, m, why);
        m->hash.usr = uint32_t(error);
        o.punt[o.punts++] = m;
        return;
    }
    out.icmp_errors_gated++;
    if (unlikely(out.tap != nullptr)) {
        capture_drop_and_free(*out.tap, m, why);
        return;
    }
    rte_pktmbuf_free(m);
}

// Packets to the router fill at most half the punt ring too: a flood of
// them (to its addresses, its kernel interfaces' groups) leaves the rest for
// ARP and ND.
void punt_to_us(const WorkerContext& w, rte_mbuf* m, Outputs& o, BurstOutcome& out) {
    if (unlikely(!under_half_full(w, o))) {
        drop(m, DropReason::punt_full, out);
        return;
    }
    out.punted++;
    punt(m, PuntReason::local, o);
}

// To a route of the router's own: the control path's, unless the address
// is a subnet's network or broadcast address (installed as the router's
// so that none is forwarded: RFC 1812 5.3.5.2), which no host answers for:
// dropped, no ICMP error about it (RFC 1122 3.2.2). Neighbour discovery
// to one of its IPv6 addresses (which the plain path does not look for)
// is punted as the slow path punts ND: to the control path's neighbour
// code, outside the half of the ring packets to the router may fill.
__attribute__((noinline)) void to_us(const WorkerContext& w, rte_mbuf* m, const Classified& ci,
                                     bool v4_pkt, Outputs& o, BurstOutcome& out) {
    const uint8_t* ip = rte_pktmbuf_mtod(m, const uint8_t*) + ci.l3_offset;
    if (v4_pkt) {
        const uint32_t dst_be = Ipv4HeaderView(ip).dst_addr_be();
        if (unlikely(w.router.own->is_subnet_broadcast(rte_be_to_cpu_32(dst_be)))) {
            drop(m, DropReason::bad_destination, out);
            return;
        }
    } else if (is_neighbour_discovery(ip, m->data_len - ci.l3_offset)) {
        out.punted++;
        punt(m, PuntReason::neighbour, o);
        return;
    }
    punt_to_us(w, m, o, out);
}

void route_group(const WorkerContext& w, rte_mbuf* m, const Classified& ci, bool v4_pkt,
                 const NextHop& group, Outputs& o, BurstOutcome& out);

// What one looked-up packet becomes: sent on its route's port, punted, or
// dropped by reason. kGroup: nh may be an equal-cost group (a group's
// buckets hold no group), so that route_group's call is no recursion and
// this still inlines into the burst.
template <bool kGroup = true>
void route_one(const WorkerContext& w, rte_mbuf* m, const Classified& ci, bool v4_pkt,
               const NextHop& nh, Outputs& o, BurstOutcome& out) {
    if (unlikely(ci.drop != DropReason::count) && nh.kind != NextHopKind::local) {
        drop(m, ci.drop, out);  // link-local, off its link: no ICMP error either
        return;
    }
    switch (nh.kind) {
        case NextHopKind::forward: {
            if (unlikely(ci.ttl_expired)) {
                drop_with_error(w, m, !v4_pkt, DropReason::ttl_expired, PuntReason::time_exceeded,
                                o, out);
                return;
            }
            const uint8_t p = nh.port;
            if (unlikely(m->pkt_len - (ci.l3_offset - uint32_t(kEtherHeaderLen)) >
                         w.l3_max_frame[p])) {
                drop(m, DropReason::oversize, out);
                return;
            }
            rewrite_routed(m, ci.l3_offset, v4_pkt, nh.dst_src);
            out.tx_bytes += rte_pktmbuf_pkt_len(m);
            add_to_port(m, p, o);
            return;
        }
        case NextHopKind::local:
            to_us(w, m, ci, v4_pkt, o, out);
            return;
        case NextHopKind::resolve:
            if (unlikely(ci.ttl_expired)) {
                drop_with_error(w, m, !v4_pkt, DropReason::ttl_expired, PuntReason::time_exceeded,
                                o, out);
                return;
            }
            if (unlikely(!under_half_full(w, o))) {
                drop(m, DropReason::punt_full, out);
                return;
            }
            out.punted++;
            punt(m, PuntReason::no_neighbour, o);
            return;
        case NextHopKind::unreachable:
            drop_with_error(w, m, !v4_pkt, DropReason::no_route, PuntReason::unreachable, o, out);
            return;
        case NextHopKind::group:
            if constexpr (kGroup) route_group(w, m, ci, v4_pkt, nh, o, out);
            return;
        default:
            // No entry holds another kind (the control path writes them
            // all): the jump table needs no range check, which a fifth
            // kind would otherwise have cost every IPv6 packet (2
            // instructions, callgrind).
            __builtin_unreachable();
    }
}

// A packet of an equal-cost route: the next hop of the bucket its flow
// hash picks. Out of line: only multipath routes come here, and their
// packets leave the plain path (a group's max_frame is 0).
__attribute__((noinline)) void route_group(const WorkerContext& w, rte_mbuf* m,
                                           const Classified& ci, bool v4_pkt, const NextHop& group,
                                           Outputs& o, BurstOutcome& out) {
    const uint8_t* ip = rte_pktmbuf_mtod(m, const uint8_t*) + ci.l3_offset;
    const uint32_t len = m->data_len - ci.l3_offset;
    const uint32_t hash = v4_pkt ? flow_hash_v4(ip, len) : flow_hash_v6(ip, len);
    const std::atomic<uint16_t>& bucket =
        w.router.group_buckets[size_t(group.group_slot()) * kEcmpBuckets + hash % kEcmpBuckets];
    route_one<false>(w, m, ci, v4_pkt, w.router.next_hops[bucket.load(std::memory_order_acquire)],
                     o, out);
}

// A packet classification kept from the lookups: dropped by its reason, or
// punted (ARP and ND; to the router on a port with a kernel interface).
void finish_unrouted(const WorkerContext& w, rte_mbuf* m, const Classified& ci, Outputs& o,
                     BurstOutcome& out) {
    switch (ci.step) {
        case Step::punt:
            out.punted++;
            punt(m, PuntReason::neighbour, o);
            return;
        case Step::punt_local:
            punt_to_us(w, m, o, out);
            return;
        default:
            break;
    }
    if (unlikely(ci.drop == DropReason::bad_option))
        drop_with_error(w, m, false, ci.drop, PuntReason::parameter_problem, o, out);
    else
        drop(m, ci.drop, out);
}

// The IPv4 table inline, four addresses at a time (ipv4_lookup.hpp); a
// miss gives next hop 0, the unreachable one, unless a default route
// fills the table.
inline void lookup_v4(const RouterView& r, const uint32_t* addresses, uint32_t* next_hops,
                      uint16_t n) {
    ipv4_lookup_bulk(r.v4, addresses, next_hops, n);
}

constexpr Classified kPlainV4{Step::lookup_v4, false, kEtherHeaderLen, DropReason::count};
constexpr Classified kPlainV6{Step::lookup_v6, false, kEtherHeaderLen, DropReason::count};

inline bool is_plain(const Classified& c) {
    return c.step <= Step::lookup_v6 && !c.ttl_expired && c.l3_offset == kEtherHeaderLen &&
           c.drop == DropReason::count;
}

// The next hop of an IPv4 destination (its four bytes in the header), as
// ipv4_lookup finds it: a tbl24 entry that is no group's holds the next hop's index << 1,
// which times 8 is its byte offset in the table of 16-byte entries (one
// lea, where the index and then the offset took two more). A group's entry
// has bit 0 set, which lands on bit 3 of that address (the table is
// 16-byte aligned): the address is tested, and the group found from it, so
// that the entry need not be kept beside it (a register copy a packet,
// callgrind). tbl8 is read only for a group: a reference into the shared
// view, not a register held over the loop.
inline const NextHop& ipv4_next_hop(const uint32_t* tbl24, const uint32_t* const& tbl8,
                                    const NextHop* hops, const uint8_t* dst_addr) {
    static_assert(sizeof(NextHop) == 16 && alignof(NextHop) == 16);
    const uint32_t e = tbl24[rte_be_to_cpu_32(wire::load<uint32_t>(dst_addr, 0)) >> 8];
    uintptr_t at;
    bool group;
#if defined(__x86_64__)
    // The lea and its test in asm: the compiler would test e instead, or
    // the address with a destructive and on a copy.
    asm("lea (%[hops], %[e], 8), %[at]\n\t"
        "testb $8, %b[at]"
        : [at] "=r"(at), "=@ccnz"(group)
        : [hops] "r"(hops), [e] "r"(uint64_t(e)));
#else
    at = reinterpret_cast<uintptr_t>(hops) + uintptr_t(e) * 8;
    asm("" : "+r"(at));
    group = (at & (uintptr_t(kIpv4Extended) * 8)) != 0;
#endif
    if (unlikely(group)) {
        const uintptr_t index = (at - reinterpret_cast<uintptr_t>(hops)) >> 4;
        // The last byte read again: the swapped address need not be kept.
        return hops[tbl8[index * kIpv4GroupEntries + dst_addr[3]]];
    }
    return *reinterpret_cast<const NextHop*>(at);
}

// Which packets route_plain takes: plain IPv4, with or without the rx
// port's checksum flags (l3_rx_checksum), or plain IPv6.
enum class Plain { v4, v4_rx_checksum, v6 };

// The same for an IPv6 destination (ipv6_lookup.hpp: entries hold the
// index << 1 too).
inline const NextHop& ipv6_next_hop(const Ipv6Tables& t, const NextHop* hops, const uint8_t* dst) {
    const uint32_t e = ipv6_lookup_entry(t, dst);
    return *reinterpret_cast<const NextHop*>(reinterpret_cast<const char*>(hops) + size_t(e) * 8);
}

// The fast path of a chunk: plain packets of one family (IPv4: untagged,
// 20-byte header, TTL > 1, checksum right; IPv6: untagged, hop limit > 1:
// the usual case) to one port, each classified, looked up (the
// tables inline), checked against its next hop's frame limit and
// rewritten in place in one pass, its length counted with the one it loads
// for that test. It stops at the first packet it cannot send so (not
// plain, over the limit, to another port), not yet touched, and returns
// how many it rewrote: pkts' first ones, the list sent first (o.direct),
// ahead of whatever route_rest adds to that port's list.
template <Plain kPlain>
unsigned route_plain(const WorkerContext& w, rte_mbuf** pkts, unsigned n, Outputs& o,
                     BurstOutcome& out) {
    const NextHop* hops = w.router.next_hops;
    // The first levels copied: read through w, they would be read again
    // after every store to a frame, which may alias anything (an
    // instruction a packet, callgrind).
    const uint32_t* const tbl24_v4 = w.router.v4.tbl24;
    const Ipv6Tables v6 = w.router.v6;
    const PlainChecks pc(w);
    uint8_t port = 0;  // the first packet's
    uint64_t bytes = 0;
    // The packet at p sent so: true; false, untouched, where the prefix
    // ends. The first packet's port is the chunk's: set in a step of its
    // own, so that the loop's holds it as a constant (a port carried round
    // the loop cost a register copy a packet, callgrind).
    const auto step = [&](rte_mbuf** p, auto first) {
        rte_mbuf* m = *p;
        uint8_t* f = rte_pktmbuf_mtod(m, uint8_t*);
        const uint32_t len = rte_pktmbuf_pkt_len(m);
        const NextHop* nh;
        if constexpr (kPlain == Plain::v6) {
            if (unlikely(!plain_ipv6(f, m->data_len, pc))) return false;
            nh = &ipv6_next_hop(v6, hops, Ipv6HeaderView(f + kEtherHeaderLen).dst_addr());
        } else {
            const bool cksum_good = kPlain == Plain::v4_rx_checksum && rx_checksum_good(m);
            if (unlikely(!plain_ipv4(f, m->data_len, cksum_good, pc))) return false;
            nh = &ipv4_next_hop(tbl24_v4, w.router.v4.tbl8, hops,
                                Ipv4HeaderView(f + kEtherHeaderLen).dst_addr());
        }
        // max_frame is 0 unless the next hop forwards.
        if (unlikely(len > nh->max_frame)) return false;
        if constexpr (decltype(first)::value)
            port = nh->port;
        else if (unlikely(nh->port != port))
            return false;
        bytes += len;
        if constexpr (kPlain == Plain::v6)
            decrement_hop_limit(f + kEtherHeaderLen);
        else
            decrement_ttl(f + kEtherHeaderLen);
        std::memcpy(f, nh->dst_src, 12);
        return true;
    };
    // The prefetching loop apart from its tail: no test of i + 4 < n per
    // packet, and a pointer for the packet's place (with an index beside
    // it, both were counted: an instruction a packet). The prefetch takes
    // the headroom every receive leaves (a load less than the data offset).
    const auto prefetch = [](const rte_mbuf* m) {
        rte_prefetch0(static_cast<const uint8_t*>(m->buf_addr) + RTE_PKTMBUF_HEADROOM);
    };
    rte_mbuf** p = pkts;
    rte_mbuf** const end = pkts + n;
    rte_mbuf** const prefetched_end = n > kPrefetchAhead ? end - kPrefetchAhead : pkts;
    if (p < prefetched_end) prefetch(p[kPrefetchAhead]);
    if (unlikely(n == 0 || !step(p, std::true_type{}))) goto done;
    for (++p; p < prefetched_end; ++p) {
        prefetch(p[kPrefetchAhead]);
        if (unlikely(!step(p, std::false_type{}))) goto done;
    }
    for (; p < end; ++p)
        if (unlikely(!step(p, std::false_type{}))) break;
done:
    const auto i = unsigned(p - pkts);
    out.rx_bytes += bytes;
    out.tx_bytes += bytes;
    if (i != 0) {
        o.direct = pkts;
        o.direct_count = uint16_t(i);
        o.direct_port = uint8_t(port);
    }
    return i;
}

// IPv6's pass, out of line: inlined beside IPv4's, it cost every IPv4
// burst 0.2 instructions a packet of saved registers (callgrind).
__attribute__((noinline)) unsigned route_plain_v6(const WorkerContext& w, rte_mbuf** pkts,
                                                  unsigned n, Outputs& o, BurstOutcome& out) {
    return route_plain<Plain::v6>(w, pkts, n, o, out);
}

// Which families a chunk of plain packets holds past route_plain's:
// its pass is compiled for each, so that a chunk of IPv6 alone tests no
// packet's.
enum class Families { v6, both };

// A chunk of nothing but plain IPv4 and IPv6 packets (untagged, TTL or hop
// limit > 1, IPv4's header 20 bytes with its checksum right: the usual
// case). Packet i is the next lookup of its family (bit i of v6_bits: IPv6).
// While each next hop forwards within its port's limit, the packets are
// rewritten in place; when they all go to one port, pkts is the list sent
// (unless route_plain has sent its own). `bytes`: the chunk's.
template <Families kFamilies>
void forward_plain(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, const uint32_t* v4_nh,
                   const uint32_t* v6_nh, uint64_t v6_bits, uint64_t bytes, Outputs& o,
                   BurstOutcome& out) {
    const NextHop* hops = w.router.next_hops;
    uint16_t k4 = 0, k6 = 0;
    const auto is_v6 = [&](uint16_t i) {
        if constexpr (kFamilies == Families::both) return (v6_bits >> i & 1) != 0;
        return kFamilies == Families::v6;
    };
    // In a chunk of one family, packet i is its lookup i.
    const auto next_hop = [&](uint16_t i) -> const NextHop& {
        if constexpr (kFamilies == Families::v6) return hops[v6_nh[i]];
        return is_v6(i) ? hops[v6_nh[k6++]] : hops[v4_nh[k4++]];
    };
    const uint8_t first_port = is_v6(0) ? hops[v6_nh[0]].port : hops[v4_nh[0]].port;
    unsigned other_ports = 0;  // not zero once a packet goes elsewhere than first_port
    uint16_t i = 0;
    for (; i < n; ++i) {
        rte_mbuf* m = pkts[i];
        const NextHop& nh = next_hop(i);
        // max_frame is 0 unless the next hop forwards.
        if (unlikely(rte_pktmbuf_pkt_len(m) > nh.max_frame)) break;
        uint8_t* f = rte_pktmbuf_mtod(m, uint8_t*);
        if (is_v6(i))
            decrement_hop_limit(f + kEtherHeaderLen);
        else
            decrement_ttl(f + kEtherHeaderLen);
        std::memcpy(f, nh.dst_src, 12);
        other_ports |= nh.port ^ first_port;
    }
    if (likely(i == n && other_ports == 0 && o.direct_count == 0)) {
        out.tx_bytes += bytes;
        o.direct = pkts;
        o.direct_count = n;
        o.direct_port = first_port;
        return;
    }
    // The rest, rare: what was rewritten goes to its port's list, and from
    // the first packet that was not on, each through route_one.
    k4 = k6 = 0;
    for (uint16_t k = 0; k < i; ++k) {
        out.tx_bytes += rte_pktmbuf_pkt_len(pkts[k]);
        add_to_port(pkts[k], next_hop(k).port, o);
    }
    for (; i < n; ++i) {
        const bool v6 = is_v6(i);
        route_one(w, pkts[i], v6 ? kPlainV6 : kPlainV4, !v6, next_hop(i), o, out);
    }
}

// What route_plain left of a chunk: every packet classified, looked up
// in bulk, and sent, punted or dropped.
// Out of line: its arrays and state inlined into the burst cost every
// burst of plain IPv4 registers saved and set up (0.2 instructions a
// packet, callgrind), and it runs at most once a chunk.
template <bool kRxChecksum>
__attribute__((noinline)) void route_rest(const WorkerContext& w, rte_mbuf** pkts, uint16_t n,
                                          Outputs& o, BurstOutcome& out) {
    Classified c[kChunk];
    uint32_t v4[kChunk];
    uint32_t v6_nh[kChunk];  // IPv6's next hops, looked up as each is read
    // Locals, not members of a struct whose address escapes: the compiler
    // keeps them in registers across the loop.
    uint64_t slow = 0;      // bit i: packet i was classified by classify_slow, into c[i]
    uint64_t v6_plain = 0;  // bit i: packet i is plain IPv6
    uint16_t n4 = 0, n6 = 0;
    const PlainChecks pc(w);
    // A plain IPv4 or IPv6 packet goes straight to its family's list;
    // anything else through classify_slow.
    const auto read = [&](const rte_mbuf* m, uint16_t i) {
        const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
        // IPv6 first: plain IPv4 mostly ends in route_plain, and comes
        // here only behind a packet that stopped it.
        if (plain_ipv6(f, m->data_len, pc)) {
            v6_nh[n6++] = ipv6_lookup(w.router.v6, Ipv6HeaderView(f + kEtherHeaderLen).dst_addr());
            v6_plain |= uint64_t(1) << i;
            return;
        }
        const bool cksum_good = kRxChecksum && rx_checksum_good(m);
        if (plain_ipv4(f, m->data_len, cksum_good, pc)) {
            v4[n4++] = rte_be_to_cpu_32(Ipv4HeaderView(f + kEtherHeaderLen).dst_addr_be());
            return;
        }
        c[i] = classify_slow(w, m, f, cksum_good);
        // Routed as a plain one would be (a source the filter could not
        // rule out, options): the chunk may still take the plain pass.
        if (c[i].step == Step::lookup_v4) {
            v4[n4++] = rte_be_to_cpu_32(Ipv4HeaderView(f + c[i].l3_offset).dst_addr_be());
            if (is_plain(c[i])) return;
        } else if (c[i].step == Step::lookup_v6) {
            v6_nh[n6++] = ipv6_lookup(w.router.v6, Ipv6HeaderView(f + c[i].l3_offset).dst_addr());
            if (is_plain(c[i])) {
                v6_plain |= uint64_t(1) << i;
                return;
            }
        }
        slow |= uint64_t(1) << i;
    };
    static_assert(kChunk <= 64, "slow has a bit per packet");
    // 32-bit counters: GCC widens a 16-bit one at every use (3.8
    // instructions a packet of loop control, callgrind). The prefetch takes
    // the headroom every receive leaves (a load less than the data offset).
    unsigned i = 0;
    for (; i + kPrefetchAhead < n; ++i) {
        rte_prefetch0(static_cast<const uint8_t*>(pkts[i + kPrefetchAhead]->buf_addr) +
                      RTE_PKTMBUF_HEADROOM);
        read(pkts[i], uint16_t(i));
    }
    for (; i < n; ++i) read(pkts[i], uint16_t(i));
    const uint64_t bytes = sum_pkt_len(pkts, n);
    out.rx_bytes += bytes;
    uint32_t v4_nh[kChunk];
    lookup_v4(w.router, v4, v4_nh, n4);
    if (slow == 0) {
        if (n4 == 0)
            forward_plain<Families::v6>(w, pkts, n, v4_nh, v6_nh, v6_plain, bytes, o, out);
        else
            forward_plain<Families::both>(w, pkts, n, v4_nh, v6_nh, v6_plain, bytes, o, out);
        return;
    }

    uint16_t k4 = 0, k6 = 0;
    for (i = 0; i < n; ++i) {
        rte_mbuf* m = pkts[i];
        const Classified& ci = (slow >> i & 1) ? c[i] : (v6_plain >> i & 1) ? kPlainV6 : kPlainV4;
        if (ci.step > Step::lookup_v6) {
            finish_unrouted(w, m, ci, o, out);
            continue;
        }
        const bool v4_pkt = ci.step == Step::lookup_v4;
        const uint32_t nh_index = v4_pkt ? v4_nh[k4++] : v6_nh[k6++];
        route_one(w, m, ci, v4_pkt, w.router.next_hops[nh_index], o, out);
    }
}

// kRxChecksum: the rx port flags IPv4 header checksums (l3_rx_checksum).
template <bool kRxChecksum>
void route_chunk(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, Outputs& o,
                 BurstOutcome& out) {
    constexpr Plain kV4 = kRxChecksum ? Plain::v4_rx_checksum : Plain::v4;
    unsigned done = route_plain<kV4>(w, pkts, n, o, out);
    // A chunk that starts with IPv6: its own pass (which a packet of IPv4
    // stops, for route_rest to take).
    if (done == 0) done = route_plain_v6(w, pkts, n, o, out);
    if (likely(done == n)) return;
    route_rest<kRxChecksum>(w, pkts + done, uint16_t(n - done), o, out);
}

// The punts of a burst in one enqueue; what the ring cannot take is freed.
// A punt counted as a drop (an ICMP error's packet) stays a drop.
void flush_punts(const WorkerContext& w, Outputs& o, BurstOutcome& out) {
    if (o.punts == 0) return;
    const unsigned queued =
        rte_ring_sp_enqueue_burst(w.punt, reinterpret_cast<void**>(o.punt), o.punts, nullptr);
    for (unsigned i = queued; i < o.punts; ++i) {
        rte_mbuf* m = o.punt[i];
        if (punt_is_icmp_error(PuntReason(m->hash.usr))) {
            out.icmp_errors_punt_full++;
        } else {
            out.punted--;
            out.drops[drop_index(DropReason::punt_full)]++;
            note_drop(out, m, DropReason::punt_full);
        }
        rte_pktmbuf_free(m);
    }
    o.punts = 0;
}

}  // namespace

void rewrite_routed(rte_mbuf* m, uint16_t l3_offset, bool ipv4, const uint8_t* dst_src) {
    uint8_t* f = rte_pktmbuf_mtod(m, uint8_t*);
    if (ipv4)
        decrement_ttl(f + l3_offset);
    else
        decrement_hop_limit(f + l3_offset);
    if (unlikely(l3_offset != kEtherHeaderLen))
        f = reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(m, kVlanTagLen));
    std::memcpy(f, dst_src, 12);
}

void route_burst(const WorkerContext& w, rte_mbuf** pkts, uint16_t n, BurstOutcome& out) {
    Outputs o;
    o.direct_count = 0;
    o.used_ports = 0;
    o.punts = 0;
    std::memset(o.count, 0, sizeof o.count);
    for (uint16_t first = 0; first < n; first += kChunk) {
        const auto len = uint16_t(n - first < kChunk ? n - first : kChunk);
        if (w.l3_rx_checksum)
            route_chunk<true>(w, pkts + first, len, o, out);
        else
            route_chunk<false>(w, pkts + first, len, o, out);
        flush_punts(w, o, out);
        enter_phase(w, LoopPhase::tx);
        if (o.direct_count) {
            transmit(w.l3_tx[o.direct_port], w.tx_retries, o.direct, o.direct_count, out);
            o.direct_count = 0;
        }
        for (uint32_t ports = o.used_ports; ports != 0; ports &= ports - 1) {
            const unsigned p = unsigned(__builtin_ctz(ports));
            transmit(w.l3_tx[p], w.tx_retries, o.by_port[p], o.count[p], out);
            o.count[p] = 0;
        }
        o.used_ports = 0;
    }
}

// The packet trace's view of one packet (see l3_forward.hpp): the same
// classification and lookup the burst makes, told as steps.
void explain_route(const WorkerContext& w, const rte_mbuf* m, TraceRecord& r, PuntReason& punt) {
    const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
    const bool cksum_good = w.l3_rx_checksum && rx_checksum_good(m);
    const PlainChecks pc(w);
    const Classified c = plain_ipv4(f, m->data_len, cksum_good, pc) ? kPlainV4
                         : plain_ipv6(f, m->data_len, pc)           ? kPlainV6
                                                          : classify_slow(w, m, f, cksum_good);
    TraceStep cls{.kind = TraceStepKind::classified};
    cls.flag = c.ttl_expired;
    cls.value = uint32_t(c.drop);
    punt = PuntReason::local;
    switch (c.step) {
        case Step::lookup_v4:
            cls.code = uint8_t(TraceClass::ipv4);
            break;
        case Step::lookup_v6:
            cls.code = uint8_t(TraceClass::ipv6);
            break;
        case Step::punt:
            cls.code = uint8_t(TraceClass::control);
            punt = PuntReason::neighbour;
            break;
        case Step::punt_local:
            cls.code = uint8_t(TraceClass::link_group);
            break;
        case Step::drop:
            cls.code = uint8_t(TraceClass::refused);
            break;
    }
    r.add(cls);
    if (c.step > Step::lookup_v6) return;
    const uint8_t* ip = f + c.l3_offset;
    uint64_t index = 0;
    if (c.step == Step::lookup_v4) {
        const uint32_t dst = rte_be_to_cpu_32(Ipv4HeaderView(ip).dst_addr_be());
        uint32_t nh = 0;
        lookup_v4(w.router, &dst, &nh, 1);
        index = nh;
        r.dst_family = 4;
        std::memcpy(r.dst, Ipv4HeaderView(ip).dst_addr(), 4);
    } else {
        index = ipv6_lookup(w.router.v6, Ipv6HeaderView(ip).dst_addr());
        r.dst_family = 6;
        std::memcpy(r.dst, Ipv6HeaderView(ip).dst_addr(), 16);
    }
    const NextHop* nh = &w.router.next_hops[index];
    if (nh->kind == NextHopKind::group) {
        const uint32_t len = m->data_len - c.l3_offset;
        const uint32_t hash =
            c.step == Step::lookup_v4 ? flow_hash_v4(ip, len) : flow_hash_v6(ip, len);
        index =
            w.router.group_buckets[size_t(nh->group_slot()) * kEcmpBuckets + hash % kEcmpBuckets]
                .load(std::memory_order_acquire);
        nh = &w.router.next_hops[index];
    }
    TraceStep hop{.kind = TraceStepKind::looked_up};
    hop.code = uint8_t(nh->kind);
    hop.port = nh->port;
    hop.value = uint32_t(index);
    std::memcpy(hop.mac, nh->dst_src, sizeof hop.mac);
    r.add(hop);
    if (nh->kind == NextHopKind::resolve) punt = PuntReason::no_neighbour;
    // As to_us punts it.
    if (nh->kind == NextHopKind::local && c.step == Step::lookup_v6 &&
        is_neighbour_discovery(ip, m->data_len - c.l3_offset))
        punt = PuntReason::neighbour;
}

void set_l3_own_mac(WorkerContext& w, const uint8_t* mac) {
    w.l3_own_mac = own_mac_key(mac);
    std::memset(w.l3_v4_head, 0, sizeof w.l3_v4_head);
    std::memcpy(w.l3_v4_head, mac, 6);
    w.l3_v4_head[12] = 0x08;  // EtherType 0x0800
    w.l3_v4_head[14] = 0x45;  // version 4, IHL 5
    std::memset(w.l3_v6_head, 0, sizeof w.l3_v6_head);
    std::memcpy(w.l3_v6_head, mac, 6);
    w.l3_v6_head[12] = 0x86;  // EtherType 0x86dd
    w.l3_v6_head[13] = 0xdd;
    w.l3_v6_head[14] = 0x60;  // version 6
}

}  // namespace pmdfwd
