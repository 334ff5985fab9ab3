// The single-producer/single-consumer ring a worker hands its bursts over to
// the owner of the TX queue they leave on. Owns the rte_ring: what it still
// holds when it goes (a stop between enqueue and dequeue) is freed, so no
// mbuf leaks on any path. Created and destroyed on the main lcore.
#pragma once

#include <cstdint>
#include <string>

#include "error.hpp"

struct rte_ring;

namespace pmdfwd {

class HandoffRing {
  public:
    HandoffRing() = default;
    // `slots` exactly, on the socket of the worker that reads it.
    static Result<HandoffRing> create(const std::string& name, unsigned slots, int socket);
    HandoffRing(HandoffRing&& other) noexcept : ring_(other.ring_) { other.ring_ = nullptr; }
    HandoffRing& operator=(HandoffRing&& other) noexcept;
    HandoffRing(const HandoffRing&) = delete;
    HandoffRing& operator=(const HandoffRing&) = delete;
    ~HandoffRing() { release(); }

    rte_ring* get() const { return ring_; }
    explicit operator bool() const { return ring_ != nullptr; }
    // Frees every mbuf the ring holds (after the workers stopped); returns how many.
    uint64_t drain();

  private:
    explicit HandoffRing(rte_ring* ring) : ring_(ring) {}
    void release();
    rte_ring* ring_ = nullptr;
};

}  // namespace pmdfwd
