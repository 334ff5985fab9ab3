// A repeated warning, rate limited as OVS's VLOG_*_RL does: `burst` lines at
// once, then one per `interval_ns`; every line held back is counted, and the
// next line that passes, or a summary when the storm is over, says how many.
// Not thread-safe: one per thread that logs it. Pure.
#pragma once

#include <cstdint>

namespace pmdfwd {

class LogRateLimit {
  public:
    LogRateLimit(uint64_t interval_ns, uint32_t burst)
        : interval_ns_(interval_ns), burst_(burst), credit_(burst) {}

    // Whether to log a line now; when it may, held_back is how many lines
    // were held back since the last one that passed (then zeroed).
    bool allow(uint64_t now_ns, uint64_t& held_back) {
        refill(now_ns);
        if (credit_ == 0) {
            ++held_back_;
            ++held_back_total_;
            return false;
        }
        --credit_;
        held_back = held_back_;
        held_back_ = 0;
        return true;
    }

    // Lines held back and not yet told of, once the limit has let a line
    // pass again (the storm is over or has paused): for a summary line.
    // Zero while lines are still being held back, or when none were.
    uint64_t take_summary(uint64_t now_ns) {
        refill(now_ns);
        if (credit_ == 0 || held_back_ == 0) return 0;
        const uint64_t n = held_back_;
        held_back_ = 0;
        return n;
    }

    uint64_t held_back_total() const { return held_back_total_; }

  private:
    void refill(uint64_t now_ns) {
        if (now_ns - last_ns_ < interval_ns_) return;
        const uint64_t periods = (now_ns - last_ns_) / interval_ns_;
        credit_ = periods >= burst_ - credit_ ? burst_ : credit_ + uint32_t(periods);
        last_ns_ += periods * interval_ns_;
    }

    uint64_t interval_ns_;
    uint32_t burst_;
    uint32_t credit_;
    uint64_t last_ns_ = 0;
    uint64_t held_back_ = 0;
    uint64_t held_back_total_ = 0;
};

}  // namespace pmdfwd
