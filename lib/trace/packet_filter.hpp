// A packet filter in tcpdump's syntax, compiled as dpdk-dumpcap compiles
// one: libpcap's compiler to classic BPF, DPDK's converter to eBPF
// (rte_bpf_convert), its loader and, on x86-64 and arm64, its JIT. Made on
// the control side (it needs EAL's heap); run on a worker it allocates
// nothing, takes no lock and makes no system call. For the packet trace and
// the drop capture: a filter that selects one flow out of many.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "error.hpp"

struct rte_bpf;
struct rte_mbuf;

namespace pmdfwd {

class PacketFilter {
  public:
    // Bursts of at most this many go to match().
    static constexpr unsigned kMaxBurst = 64;

    // An error names what libpcap or DPDK said of the expression.
    static Result<std::unique_ptr<PacketFilter>> compile(const std::string& expression);
    ~PacketFilter();
    PacketFilter(const PacketFilter&) = delete;
    PacketFilter& operator=(const PacketFilter&) = delete;

    // Bit i set when pkts[i] matches; n <= kMaxBurst.
    uint64_t match(rte_mbuf* const* pkts, unsigned n) const;
    bool jitted() const { return jit_ != nullptr; }
    const std::string& expression() const { return expression_; }

  private:
    PacketFilter() = default;
    rte_bpf* bpf_ = nullptr;
    uint64_t (*jit_)(void*) = nullptr;
    std::string expression_;
};

}  // namespace pmdfwd
