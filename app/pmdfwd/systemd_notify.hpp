// pmdfwd's side of systemd's notify protocol (Type=notify, WatchdogSec):
// READY=1 once ports are started and workers run, a one-line STATUS=,
// WATCHDOG=1 only while every worker's loop makes progress, STOPPING=1 on
// the way out. Without NOTIFY_SOCKET (not under systemd) every call is a
// no-op. Main lcore only.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "appliance.hpp"

namespace pmdfwd {

class SystemdNotify {
  public:
    SystemdNotify();
    void ready(const Appliance& app);
    // After each housekeeping: a watchdog ping when one is due and every
    // worker progresses (a due ping waits for that, retried every call), a
    // new STATUS= every few seconds.
    void tick(const Appliance& app);
    void stopping(const std::string& why);

  private:
    using Clock = std::chrono::steady_clock;
    std::string summary(const Appliance& app);

    bool watchdog_ = false;
    Clock::duration ping_every_{};
    Clock::time_point next_ping_{};
    Clock::time_point next_status_{};
    Clock::time_point last_sample_{};
    uint64_t last_rx_ = 0, last_tx_ = 0, last_drops_ = 0;
    bool withheld_logged_ = false;
};

}  // namespace pmdfwd
