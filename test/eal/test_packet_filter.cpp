// A tcpdump filter compiled to DPDK's BPF (lib/trace/packet_filter.hpp) on
// real mbufs: one flow out of many, IPv4 against IPv6 and ARP, a frame of
// two segments, and an expression libpcap refuses, with its words.
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "l3_frames.hpp"
#include "packet_filter.hpp"
#include "ring_ports.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;
using packet_bytes::ip;
using packet_bytes::ip4;
using packet_bytes::mac;

namespace {

struct FilterPool {
    rte_mempool* mp = rte_pktmbuf_pool_create("filter_pool", 255, 0, 0, 2048, SOCKET_ID_ANY);
    ~FilterPool() { rte_mempool_free(mp); }
};

const L2 kFilterL2{mac("02:00:00:00:0f:01"), mac("02:00:00:00:0f:02"), {}};

std::unique_ptr<PacketFilter> compiled(const std::string& expression) {
    auto made = PacketFilter::compile(expression);
    if (!made) FAIL(made.error().message);
    return std::move(made.value());
}

}  // namespace

TEST_CASE("packet filter: one UDP flow out of 64, and the families apart", "[trace][filter]") {
    FilterPool pool;
    REQUIRE(pool.mp);
    std::vector<rte_mbuf*> pkts;
    // Flow n: 10.9.0.1 -> 10.9.1.n, source port 40000 + n.
    for (uint32_t n = 0; n < 60; ++n) {
        V4 v{ip4("10.9.0.1"), ip4(("10.9.1." + std::to_string(n)).c_str())};
        v.seq = n;
        pkts.push_back(to_mbuf(pool.mp, frame(kFilterL2, 0x0800, ipv4_udp(v))));
    }
    V6 v6{ip("2001:db8:9::1"), ip("2001:db8:9::2")};
    v6.seq = 7;
    pkts.push_back(to_mbuf(pool.mp, frame(kFilterL2, 0x86dd, ipv6_udp(v6))));
    pkts.push_back(to_mbuf(pool.mp, frame(kFilterL2, 0x0806,
                                          arp(kFilterL2, 1, kFilterL2.src, ip4("10.9.0.1"),
                                              MacAddr{}, ip4("10.9.0.9")))));
    for (rte_mbuf* m : pkts) REQUIRE(m);
    const unsigned n = unsigned(pkts.size());

    const auto one = compiled("udp src port 40007 and dst host 10.9.1.7");
    CHECK(one->match(pkts.data(), n) == uint64_t(1) << 7);
    CHECK(compiled("udp")->match(pkts.data(), n) == (uint64_t(1) << 61) - 1);
    CHECK(compiled("ip6")->match(pkts.data(), n) == uint64_t(1) << 60);
    CHECK(compiled("arp")->match(pkts.data(), n) == uint64_t(1) << 61);
    CHECK(compiled("tcp")->match(pkts.data(), n) == 0);
    CHECK(compiled("net 10.9.1.32/28")->match(pkts.data(), n) == uint64_t(0xffff) << 32);
    // The burst's start moved: bits follow the packets.
    CHECK(one->match(pkts.data() + 4, n - 4) == uint64_t(1) << 3);
    INFO("JIT: " << one->jitted());

    // A frame of two segments: the filter reads the port across them.
    rte_mbuf* head = rte_pktmbuf_alloc(pool.mp);
    rte_mbuf* tail = rte_pktmbuf_alloc(pool.mp);
    REQUIRE((head && tail));
    V4 v{ip4("10.9.0.1"), ip4("10.9.1.7")};
    v.seq = 7;
    const Bytes f = frame(kFilterL2, 0x0800, ipv4_udp(v));
    std::memcpy(rte_pktmbuf_append(head, 20), f.data(), 20);
    std::memcpy(rte_pktmbuf_append(tail, uint16_t(f.size() - 20)), f.data() + 20, f.size() - 20);
    REQUIRE(rte_pktmbuf_chain(head, tail) == 0);
    rte_mbuf* chained[] = {head};
    CHECK(one->match(chained, 1) == 1);
    rte_pktmbuf_free(head);

    rte_pktmbuf_free_bulk(pkts.data(), n);
    CHECK(rte_mempool_avail_count(pool.mp) == 255);
}

TEST_CASE("packet filter: an expression libpcap refuses says why", "[trace][filter]") {
    auto bad = PacketFilter::compile("udp port");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.rfind("filter 'udp port': ", 0) == 0);
    CHECK(bad.error().message.find("syntax error") != std::string::npos);
    auto range = PacketFilter::compile("udp port 70000");
    REQUIRE_FALSE(range);
    CHECK(range.error().message.rfind("filter 'udp port 70000': ", 0) == 0);
    CHECK(range.error().message.find("70000") != std::string::npos);
}
