// Sequence accounting for pmdgen's receiver (see sequence_tracker.hpp).
#include "sequence_tracker.hpp"

namespace pmdfwd {

bool SequenceTracker::test_and_set(uint64_t seq) {
    const uint64_t bit = seq % kWindow;
    uint64_t& word = seen_[bit / 64];
    const uint64_t mask = uint64_t(1) << (bit % 64);
    const bool was = word & mask;
    word |= mask;
    return was;
}

void SequenceTracker::clear_range(uint64_t from, uint64_t to) {
    if (to - from >= kWindow) {
        seen_.fill(0);
        return;
    }
    for (uint64_t s = from; s < to; ++s) seen_[(s % kWindow) / 64] &= ~(uint64_t(1) << (s % 64));
}

void SequenceTracker::receive(uint64_t seq) {
    received_++;
    if (seq >= next_) {
        // Numbers between the old highest and this one are not seen yet;
        // their bits may still hold those of seq - kWindow.
        clear_range(next_, seq + 1);
        next_ = seq + 1;
        test_and_set(seq);
        unique_++;
        return;
    }
    reordered_++;
    if (next_ - seq > kWindow) {
        late_++;
        unique_++;
        return;
    }
    if (test_and_set(seq)) {
        duplicates_++;
        reordered_--;  // a copy is not a reordering
        return;
    }
    unique_++;
}

}  // namespace pmdfwd
