// A token bucket: `rate` tokens a second, at most `burst` saved up. The log
// channel takes one per datagram so a log storm cannot take the port. Not
// thread-safe: the caller serialises (the channel's lock). Pure.
#pragma once

#include <algorithm>
#include <cstdint>

namespace pmdfwd {

class TokenBucket {
  public:
    // rate 0: unlimited.
    TokenBucket(uint32_t rate_per_s, uint32_t burst)
        : rate_(rate_per_s), cap_nano_(uint64_t(burst) * kNano), tokens_nano_(cap_nano_) {}

    // All n tokens or none: a record's fragments go together or not at all.
    bool take(uint64_t now_ns, uint64_t n = 1) {
        if (rate_ == 0) return true;
        if (now_ns > last_ns_) {
            // Tokens in billionths, so no interval is too short to count; the
            // interval is capped first, so the product cannot overflow.
            const uint64_t span = now_ns - last_ns_ < cap_nano_ / rate_ + 1 ? now_ns - last_ns_
                                                                            : cap_nano_ / rate_ + 1;
            tokens_nano_ = std::min(cap_nano_, tokens_nano_ + span * rate_);
            last_ns_ = now_ns;
        }
        if (tokens_nano_ < n * kNano) return false;
        tokens_nano_ -= n * kNano;
        return true;
    }

  private:
    static constexpr uint64_t kNano = 1000000000;
    uint64_t rate_;
    uint64_t cap_nano_;
    uint64_t tokens_nano_;
    uint64_t last_ns_ = 0;
};

}  // namespace pmdfwd
