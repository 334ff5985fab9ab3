// Seqlock reader and snapshot arithmetic for WorkerStats.
#include "worker_stats.hpp"

#include <immintrin.h>

namespace pmdfwd {

WorkerSnapshot WorkerSnapshot::minus(const WorkerSnapshot& base) const {
    WorkerSnapshot d = *this;
    for_each_counter(d, base, [](uint64_t& x, uint64_t y) { x -= y; });
    return d;
}

WorkerSnapshot& WorkerSnapshot::operator+=(const WorkerSnapshot& other) {
    for_each_counter(*this, other, [](uint64_t& x, uint64_t y) { x += y; });
    return *this;
}

WorkerSnapshot WorkerStats::read() const {
    WorkerSnapshot s;
    for (;;) {
        const uint64_t before = seq_.load(std::memory_order_acquire);
        if (before & 1) {
            _mm_pause();
            continue;
        }
        for_each_counter(s, *this, [](uint64_t& x, const Counter& c) { x = c.get(); });
        std::atomic_thread_fence(std::memory_order_acquire);
        if (seq_.load(std::memory_order_relaxed) == before) return s;
    }
}

}  // namespace pmdfwd
