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
    using Clock = std::chrono::steady_clock;
    WorkerSnapshot s;
    // The clock is read once per 64 tries: an open bracket costs the
    // reader a few microseconds of pause before it looks at the time.
    constexpr unsigned kTriesPerClockRead = 64;
    const auto deadline = Clock::now() + kReadPatience;
    for (unsigned tries = 1;; ++tries) {
        const uint64_t before = seq_.load(std::memory_order_acquire);
        if (!(before & 1)) {
            for_each_counter(s, *this, [](uint64_t& x, const Counter& c) { x = c.get(); });
            std::atomic_thread_fence(std::memory_order_acquire);
            if (seq_.load(std::memory_order_relaxed) == before) {
                std::lock_guard lock(reader_.mutex);
                // Another reader may have taken a newer one meanwhile.
                if (before >= reader_.last_seq) {
                    reader_.last_consistent = s;
                    reader_.last_seq = before;
                }
                return reader_.last_consistent;
            }
        }
        if (tries % kTriesPerClockRead == 0 && Clock::now() >= deadline) break;
        _mm_pause();
    }
    std::lock_guard lock(reader_.mutex);
    ++reader_.stale_reads;
    return reader_.last_consistent;
}

uint64_t WorkerStats::stale_reads() const {
    std::lock_guard lock(reader_.mutex);
    return reader_.stale_reads;
}

}  // namespace pmdfwd
