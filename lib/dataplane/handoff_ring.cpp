// Handoff rings (see handoff_ring.hpp). Main lcore.
#include "handoff_ring.hpp"

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <utility>

namespace pmdfwd {

Result<HandoffRing> HandoffRing::create(const std::string& name, unsigned slots, int socket) {
    rte_ring* ring = rte_ring_create(name.c_str(), slots, socket,
                                     RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
    if (!ring)
        return make_error("cannot create the handoff ring '" + name + "' of " +
                              std::to_string(slots) + " slots: " + rte_strerror(rte_errno),
                          -rte_errno);
    return HandoffRing(ring);
}

HandoffRing& HandoffRing::operator=(HandoffRing&& other) noexcept {
    if (this != &other) {
        release();
        ring_ = std::exchange(other.ring_, nullptr);
    }
    return *this;
}

uint64_t HandoffRing::drain() {
    if (!ring_) return 0;
    uint64_t drained = 0;
    void* objs[64];
    while (const unsigned n = rte_ring_dequeue_burst(ring_, objs, 64, nullptr)) {
        rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(objs), n);
        drained += n;
    }
    return drained;
}

void HandoffRing::release() {
    if (!ring_) return;
    drain();
    rte_ring_free(ring_);
    ring_ = nullptr;
}

}  // namespace pmdfwd
