// Loss, reordering and duplication of a numbered packet stream, as a probe
// receiver sees it (RFC 4737's definitions): a packet is reordered when a
// higher number arrived before it, a duplicate when its number was already
// seen. Numbers within kWindow of the highest are remembered exactly; an older
// one is counted late (reordered, never called a duplicate). Pure, one thread.
#pragma once

#include <array>
#include <cstdint>

namespace pmdfwd {

class SequenceTracker {
  public:
    static constexpr uint64_t kWindow = uint64_t(1) << 16;

    void receive(uint64_t seq);

    uint64_t received() const { return received_; }  // every packet, duplicates too
    uint64_t unique() const { return unique_; }      // distinct numbers
    uint64_t duplicates() const { return duplicates_; }
    uint64_t reordered() const { return reordered_; }  // arrived after a higher number
    uint64_t late() const { return late_; }            // of those, older than the window
    // Numbers 0..sent-1 were sent: those never received.
    uint64_t lost(uint64_t sent) const { return sent > unique_ ? sent - unique_ : 0; }

  private:
    bool test_and_set(uint64_t seq);
    void clear_range(uint64_t from, uint64_t to);  // [from, to)

    std::array<uint64_t, kWindow / 64> seen_{};  // bit seq % kWindow
    uint64_t next_ = 0;                          // one past the highest number received
    uint64_t received_ = 0, unique_ = 0, duplicates_ = 0, reordered_ = 0, late_ = 0;
};

}  // namespace pmdfwd
