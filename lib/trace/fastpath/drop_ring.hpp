// The drop capture's copies and the ring each worker puts them in: a
// single-producer/single-consumer ring of fixed slots from the worker to
// the control side. A dropped packet is copied, never kept: the capture
// holds no mbuf, so a drop storm cannot drain a pool, and a full ring or
// a spent budget costs a counter. No DPDK: plain memory and atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace pmdfwd {

// A copy's slot is 2 KB: a 1500-byte frame whole, a jumbo one cut (its
// length on the wire is kept).
constexpr unsigned kDropCopyBytes = 2048 - 32;

struct DropCopy {
    uint64_t tsc = 0;  // when its burst was received
    uint32_t pkt_len = 0;
    uint16_t cap_len = 0;
    uint16_t worker = 0;
    uint16_t rx_port = 0;  // ethdev id
    uint16_t rx_queue = 0;
    uint8_t reason = 0;  // DropReason
    uint8_t data[kDropCopyBytes];
};

// What the worker did with the drops it saw, written by it alone.
struct DropTapCounts {
    std::atomic<uint64_t> copied{0};
    std::atomic<uint64_t> rate_limited{0};  // over the copies a second allowed
    std::atomic<uint64_t> ring_full{0};     // the control side had not read them yet
    std::atomic<uint64_t> over_count{0};    // after the worker's count was reached
};

class DropRing {
  public:
    explicit DropRing(uint32_t size_pow2) : size_(size_pow2), slots_(new DropCopy[size_pow2]) {}
    DropRing(const DropRing&) = delete;
    DropRing& operator=(const DropRing&) = delete;

    // Worker: the slot to fill, or null when the ring is full; commit()
    // makes it visible.
    DropCopy* reserve() {
        const uint64_t h = head_.load(std::memory_order_relaxed);
        if (h - tail_.load(std::memory_order_acquire) >= size_) return nullptr;
        return &slots_[h & (size_ - 1)];
    }
    void commit() {
        head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

    // Control side: the oldest copy not yet taken, or null; release() gives
    // its slot back.
    const DropCopy* peek() const {
        const uint64_t t = tail_.load(std::memory_order_relaxed);
        if (t == head_.load(std::memory_order_acquire)) return nullptr;
        return &slots_[t & (size_ - 1)];
    }
    void release() {
        tail_.store(tail_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

  private:
    uint32_t size_;
    std::unique_ptr<DropCopy[]> slots_;
    alignas(64) std::atomic<uint64_t> head_{0};  // the worker's line

  public:
    DropTapCounts counts;
    uint64_t due_tsc = 0;  // the worker's rate gate (GCRA): when the next copy is due

  private:
    alignas(64) std::atomic<uint64_t> tail_{0};  // the control side's
};

}  // namespace pmdfwd
