// Sampling the heartbeats and reporting stalls (see stall_watch.hpp). Main
// lcore only.
#include "stall_watch.hpp"

#include <rte_cycles.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "units.hpp"

namespace pmdfwd {

StallWatch::StallWatch(std::vector<const WorkerContext*> workers, std::vector<std::string> names,
                       uint64_t stall_cycles, uint64_t tsc_hz)
    : workers_(std::move(workers)),
      names_(std::move(names)),
      state_(workers_.size()),
      stall_cycles_(stall_cycles),
      hz_(tsc_hz) {}

uint64_t StallWatch::period_ms() const {
    const uint64_t half_ms = stall_cycles_.load(std::memory_order_relaxed) / 2 * 1000 / hz_;
    return std::clamp<uint64_t>(half_ms, 1, 20);
}

void StallWatch::sample() {
    const uint64_t now = rte_rdtsc();
    bool progressing = true;
    for (size_t i = 0; i < workers_.size(); ++i) {
        const uint64_t quiet = loop_quiet_cycles(workers_[i]->beat, now);
        State& s = state_[i];
        if (quiet > stall_cycles_.load(std::memory_order_relaxed)) {
            progressing = false;
            if (!s.seen || quiet >= s.quiet_seen) {
                s.phase_seen = workers_[i]->beat.phase.load(std::memory_order_relaxed);
                s.quiet_seen = quiet;
            }
            s.seen = true;
        }
        if (s.last_report == 0 || now - s.last_report >= hz_) report(i, now, quiet);
    }
    all_progressing_ = progressing;
}

void StallWatch::report(size_t i, uint64_t now, uint64_t quiet) {
    State& s = state_[i];
    const auto ns = [&](uint64_t cycles) {
        return human_ns(uint64_t(double(cycles) * 1e9 / double(hz_)));
    };
    if (quiet >= kHungAfterMs * hz_ / 1000) {
        spdlog::error("{}: no progress for {}, in phase {} (hung)", names_[i], (ns(quiet)),
                      to_string(s.phase_seen));
        s.last_report = now;
        return;
    }
    const uint64_t stalls = workers_[i]->stats.read().stalls;
    if (stalls == s.reported_stalls) return;
    const uint64_t last = workers_[i]->beat.last_stall.load(std::memory_order_relaxed);
    const uint64_t since = s.last_report ? now - s.last_report : 0;
    spdlog::warn("{}: {} stall(s) of over {} {}; the last lasted {}, {}", names_[i],
                 stalls - s.reported_stalls, (ns(stall_cycles_.load(std::memory_order_relaxed))),
                 since ? "in the last " + (ns(since)) : std::string("so far"), (ns(last)),
                 s.seen ? "seen in phase " + std::string(to_string(s.phase_seen))
                        : std::string("too short to be seen in its phase"));
    s.reported_stalls = stalls;
    s.last_report = now;
    s.seen = false;
    s.quiet_seen = 0;
}

}  // namespace pmdfwd
