// Router mode's kernel interfaces (see router.hpp, kernel_interface.hpp):
// what pmdfwd does not answer itself goes to the port's interface, at most
// l3.kernel_rate_limit a second; what the kernel sends out of it leaves by
// the port's control TX queue. The kernel resolves its own neighbours: it
// gets a copy of every ARP and ND frame the port receives, and its requests
// and answers leave by the port like any other frame. The control path's
// thread; never a worker.
#include "kernel_interface.hpp"
#include "route_netlink.hpp"
#include "router.hpp"
#include "router_frames.hpp"

namespace pmdfwd {

namespace {

// Frames taken from each kernel interface per poll (every millisecond):
// 64,000 a second at most, which no control protocol comes near, and a
// flood from the kernel side cannot hold the thread.
constexpr unsigned kKernelFramesPerPoll = 64;
// The port's link is copied to the interface's carrier this often.
constexpr uint64_t kLinkCheckMs = 100;

}  // namespace

Status Router::open_kernel_interfaces() {
    kernel_ifs_.resize(ports_.size());
    for (size_t p = 0; p < ports_.size(); ++p)
        kernel_buckets_.emplace_back(cfg_.l3.kernel_rate_limit, cfg_.l3.kernel_rate_burst);
    for (size_t p = 0; p < ports_.size(); ++p) {
        const RouterPort& rp = ports_[p];
        if (rp.kernel_interface.empty()) continue;
        if (!netlink_) {
            auto nl = RouteNetlink::open();
            if (!nl) return nl.error();
            netlink_ = std::move(nl.value());
        }
        auto k =
            KernelInterface::create(rp.kernel_interface, rp.mac, rp.mtu, rp.addresses, *netlink_);
        if (!k) return make_error("port '" + rp.name + "': " + k.error().message, k.error().code);
        kernel_ifs_[p] = std::move(k.value());
    }
    return Ok{};
}

void Router::to_kernel(int port, const rte_mbuf* m) {
    KernelInterface* k = kernel_of(port);
    if (!k) return;
    if (kernel_rate_limit_ == 0 || !kernel_buckets_[size_t(port)].take(now_ms() * 1000000)) {
        counters_.kernel_rate_limited++;
        return;
    }
    std::span<const uint8_t> frame(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m));
    if (m->nb_segs > 1) {
        kernel_frame_.resize(m->pkt_len);
        const auto* at =
            static_cast<const uint8_t*>(rte_pktmbuf_read(m, 0, m->pkt_len, kernel_frame_.data()));
        frame = {at, m->pkt_len};
    }
    if (k->deliver(frame))
        counters_.kernel_delivered++;
    else
        counters_.kernel_refused++;
}

// What the kernel sent since the last poll, each frame into a buffer of
// the control pool and out by the port; and the link, now and then.
void Router::from_kernel(uint64_t now) {
    const bool check_links = now - link_checked_ms_ >= kLinkCheckMs;
    if (check_links) link_checked_ms_ = now;
    for (size_t p = 0; p < kernel_ifs_.size(); ++p) {
        KernelInterface* k = kernel_ifs_[p].get();
        if (!k) continue;
        if (check_links && ports_[p].link)
            k->set_carrier(ports_[p].link->load(std::memory_order_relaxed) == LinkState::up);
        // The port's mtu plus an Ethernet header and one VLAN tag.
        const size_t max_frame = size_t(ports_[p].mtu) + 18;
        for (unsigned i = 0; i < kKernelFramesPerPoll; ++i) {
            rte_mbuf* m = alloc_frame();
            if (!m) break;  // counted; the kernel's frames wait in its queue
            const size_t room = rte_pktmbuf_tailroom(m);
            size_t full = 0;
            const size_t got = k->take({rte_pktmbuf_mtod(m, uint8_t*), room}, &full);
            if (got == 0) {
                rte_pktmbuf_free(m);
                break;
            }
            if (full > room || full > max_frame) {
                counters_.kernel_oversize++;
                rte_pktmbuf_free(m);
                continue;
            }
            m->data_len = uint16_t(got);
            m->pkt_len = uint32_t(got);
            counters_.kernel_sent++;
            transmit(int(p), m);
        }
    }
}

}  // namespace pmdfwd
