// The last kSlots log records, kept in memory for the crash path: any thread
// writes (slot = sequence % kSlots), the signal handler reads them oldest
// first. Each slot carries a stamp so a record torn by a concurrent writer is
// skipped, never sent half-written. Pure, no allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "netlog_format.hpp"

namespace pmdfwd {

class RecentRecords {
  public:
    static constexpr size_t kSlots = 64;
    static constexpr size_t kTextMax = 496;

    void put(const NetlogRecord& r) {
        Slot& s = slots_[r.seq % kSlots];
        s.stamp.store(r.seq * 2 + 1, std::memory_order_relaxed);  // odd: being written
        std::atomic_thread_fence(std::memory_order_release);
        s.level = r.level;
        s.timestamp_us = r.timestamp_us;
        s.worker_len =
            uint8_t(r.worker.size() < kNetlogWorkerMax ? r.worker.size() : kNetlogWorkerMax);
        if (s.worker_len != 0) std::memcpy(s.worker, r.worker.data(), s.worker_len);
        s.len = uint16_t(r.text.size() < kTextMax ? r.text.size() : kTextMax);
        std::memcpy(s.text, r.text.data(), s.len);
        s.stamp.store(r.seq * 2 + 2, std::memory_order_release);
    }

    // Calls fn(const NetlogRecord&) for each whole record with seq < next_seq,
    // oldest first.
    template <class Fn>
    void for_each(uint64_t next_seq, Fn&& fn) const {
        const uint64_t first = next_seq > kSlots ? next_seq - kSlots : 0;
        for (uint64_t seq = first; seq < next_seq; ++seq) {
            const Slot& s = slots_[seq % kSlots];
            if (s.stamp.load(std::memory_order_acquire) != seq * 2 + 2) continue;
            Slot copy_text;
            const uint16_t len = s.len < kTextMax ? s.len : uint16_t(kTextMax);
            std::memcpy(copy_text.text, s.text, len);
            const uint8_t worker_len =
                s.worker_len < kNetlogWorkerMax ? s.worker_len : uint8_t(kNetlogWorkerMax);
            std::memcpy(copy_text.worker, s.worker, worker_len);
            NetlogRecord r;
            r.level = s.level;
            r.seq = seq;
            r.timestamp_us = s.timestamp_us;
            std::atomic_thread_fence(std::memory_order_acquire);
            if (s.stamp.load(std::memory_order_relaxed) != seq * 2 + 2)
                continue;  // rewritten meanwhile
            r.text = std::string_view(copy_text.text, len);
            r.worker = std::string_view(copy_text.worker, worker_len);
            fn(r);
        }
    }

  private:
    struct Slot {
        std::atomic<uint64_t> stamp{0};
        uint64_t timestamp_us = 0;
        uint8_t level = 0;
        uint8_t worker_len = 0;
        uint16_t len = 0;
        char worker[kNetlogWorkerMax];
        char text[kTextMax];
    };
    Slot slots_[kSlots];
};

}  // namespace pmdfwd
