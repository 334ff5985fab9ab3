// The single-producer/single-consumer ring a worker punts packets over to
// the router's control path (ARP, ND, to us, waiting for a neighbour, owed
// an ICMP error). Owns the rte_ring: what it still holds when it goes is
// freed, so no mbuf leaks on any path. Created and destroyed on the main
// lcore; drained by the control path thread.
#pragma once

#include <cstdint>
#include <string>

#include "error.hpp"

struct rte_ring;
struct rte_mbuf;

namespace pmdfwd {

class PuntRing {
  public:
    PuntRing() = default;
    // `slots` a power of two (config_loader checks l3.punt_ring): it holds
    // one less, as rte_ring does without RING_F_EXACT_SZ.
    static Result<PuntRing> create(const std::string& name, unsigned slots, int socket);
    PuntRing(PuntRing&& other) noexcept : ring_(other.ring_) { other.ring_ = nullptr; }
    PuntRing& operator=(PuntRing&& other) noexcept;
    PuntRing(const PuntRing&) = delete;
    PuntRing& operator=(const PuntRing&) = delete;
    ~PuntRing() { release(); }

    rte_ring* get() const { return ring_; }
    // Up to `max` punted packets, oldest first; how many.
    unsigned dequeue(rte_mbuf** pkts, unsigned max);
    // Frees every mbuf the ring holds (after the workers stopped); how many.
    uint64_t drain();

  private:
    explicit PuntRing(rte_ring* ring) : ring_(ring) {}
    void release();
    rte_ring* ring_ = nullptr;
};

}  // namespace pmdfwd
