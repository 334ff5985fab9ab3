// A token bucket: `rate` tokens a second, at most `burst` saved up. The log
// channel takes one per datagram so a log storm cannot take the port. Not
// thread-safe: the caller serialises (the channel's lock). Pure.
#pragma once

#include <cstdint>

namespace pmdfwd {

class TokenBucket {
public:
    // rate 0: unlimited.
    TokenBucket(uint32_t rate_per_s, uint32_t burst) : rate_(rate_per_s), burst_(burst) {
        tokens_milli_ = uint64_t(burst) * 1000;
    }

    bool take(uint64_t now_ns) {
        if (rate_ == 0) return true;
        if (now_ns > last_ns_) {
            // Tokens in thousandths, so a rate below one per millisecond still accrues.
            const uint64_t add = (now_ns - last_ns_) * rate_ / 1000000;
            tokens_milli_ = tokens_milli_ + add > uint64_t(burst_) * 1000 ? uint64_t(burst_) * 1000
                                                                           : tokens_milli_ + add;
            last_ns_ = now_ns;
        }
        if (tokens_milli_ < 1000) return false;
        tokens_milli_ -= 1000;
        return true;
    }

private:
    uint32_t rate_, burst_;
    uint64_t tokens_milli_ = 0;
    uint64_t last_ns_ = 0;
};

}  // namespace pmdfwd
