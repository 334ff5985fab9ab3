// Punt rings (see punt_ring.hpp). Main lcore and the control path thread.
#include "punt_ring.hpp"

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <utility>

namespace pmdfwd {

Result<PuntRing> PuntRing::create(const std::string& name, unsigned slots, int socket) {
    rte_ring* ring = rte_ring_create(name.c_str(), slots, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (!ring)
        return make_error("l3: cannot create punt ring '" + name + "': " + rte_strerror(rte_errno));
    return PuntRing(ring);
}

PuntRing& PuntRing::operator=(PuntRing&& other) noexcept {
    if (this != &other) {
        release();
        ring_ = std::exchange(other.ring_, nullptr);
    }
    return *this;
}

unsigned PuntRing::dequeue(rte_mbuf** pkts, unsigned max) {
    return rte_ring_sc_dequeue_burst(ring_, reinterpret_cast<void**>(pkts), max, nullptr);
}

uint64_t PuntRing::drain() {
    if (!ring_) return 0;
    uint64_t drained = 0;
    rte_mbuf* pkts[64];
    while (const unsigned n = dequeue(pkts, 64)) {
        rte_pktmbuf_free_bulk(pkts, n);
        drained += n;
    }
    return drained;
}

void PuntRing::release() {
    if (!ring_) return;
    drain();
    rte_ring_free(ring_);
    ring_ = nullptr;
}

}  // namespace pmdfwd
