// A packet filter in tcpdump's syntax (see packet_filter.hpp).
#include "packet_filter.hpp"

#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

namespace pmdfwd {

namespace {

// What the filter may read of a frame: the whole of the largest one.
constexpr int kSnapLen = 65535;

}  // namespace

Result<std::unique_ptr<PacketFilter>> PacketFilter::compile(const std::string& expression) {
    std::unique_ptr<pcap_t, void (*)(pcap_t*)> pcap(pcap_open_dead(DLT_EN10MB, kSnapLen),
                                                    pcap_close);
    if (!pcap) return make_error("filter: libpcap could not start its compiler");
    bpf_program classic{};
    if (pcap_compile(pcap.get(), &classic, expression.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0)
        return make_error("filter '" + expression + "': " + pcap_geterr(pcap.get()));
    rte_bpf_prm* prm = rte_bpf_convert(&classic);
    pcap_freecode(&classic);
    if (!prm)
        return make_error("filter '" + expression +
                          "': DPDK cannot convert it: " + rte_strerror(rte_errno));
    std::unique_ptr<PacketFilter> f(new PacketFilter());
    f->bpf_ = rte_bpf_load(prm);
    rte_free(prm);  // the loader keeps a copy of the instructions
    if (!f->bpf_)
        return make_error("filter '" + expression +
                          "': DPDK cannot load it: " + rte_strerror(rte_errno));
    rte_bpf_jit jit{};
    if (rte_bpf_get_jit(f->bpf_, &jit) == 0 && jit.func) f->jit_ = jit.func;
    f->expression_ = expression;
    return f;
}

PacketFilter::~PacketFilter() {
    if (bpf_) rte_bpf_destroy(bpf_);
}

uint64_t PacketFilter::match(rte_mbuf* const* pkts, unsigned n) const {
    uint64_t hits = 0;
    if (jit_) {
        for (unsigned i = 0; i < n; ++i) hits |= uint64_t(jit_(pkts[i]) != 0) << i;
        return hits;
    }
    uint64_t rc[kMaxBurst];
    rte_bpf_exec_burst(bpf_, reinterpret_cast<void**>(const_cast<rte_mbuf**>(pkts)), rc, n);
    for (unsigned i = 0; i < n; ++i) hits |= uint64_t(rc[i] != 0) << i;
    return hits;
}

}  // namespace pmdfwd
