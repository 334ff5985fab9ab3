// The notify protocol (see systemd_notify.hpp), through libsystemd.
#include "systemd_notify.hpp"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include "record_schemas.hpp"
#include "units.hpp"

namespace pmdfwd {

namespace {

constexpr auto kStatusEvery = std::chrono::seconds(5);

uint64_t number(const Record& r, FieldId f) {
    const uint64_t* v = r.number(f);
    return v ? *v : 0;
}

}  // namespace

SystemdNotify::SystemdNotify() {
    uint64_t usec = 0;
    // Pings at half the interval, as sd_watchdog_enabled(3) advises.
    if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
        watchdog_ = true;
        ping_every_ = std::chrono::microseconds(usec / 2);
        spdlog::info("systemd watchdog: {} ms; pinged every {} ms while every worker progresses",
                     usec / 1000, usec / 2000);
    }
}

std::string SystemdNotify::summary(const Appliance& app) {
    const Record totals = app.totals(Since::start);
    const uint64_t rx = number(totals, kStatsRecord.at("rx_pkts"));
    const uint64_t tx = number(totals, kStatsRecord.at("tx_pkts"));
    const uint64_t drops = number(totals, kStatsRecord.at("drops"));
    const auto now = Clock::now();
    const double s = std::chrono::duration<double>(now - last_sample_).count();
    std::string line = "forwarding: " + std::to_string(app.worker_count()) + " workers, " +
                       std::to_string(app.port_count()) + " ports";
    if (last_sample_ != Clock::time_point{} && s > 0)
        line += "; rx " + human_count(uint64_t(double(rx - last_rx_) / s)) + "pps, tx " +
                human_count(uint64_t(double(tx - last_tx_) / s)) + "pps, drops " +
                human_count(uint64_t(double(drops - last_drops_) / s)) + "/s";
    if (!app.workers_progressing()) line += "; a worker is stalled";
    last_sample_ = now;
    last_rx_ = rx, last_tx_ = tx, last_drops_ = drops;
    return line;
}

void SystemdNotify::ready(const Appliance& app) {
    const std::string msg = "READY=1\nSTATUS=" + summary(app);
    sd_notify(0, msg.c_str());
    next_status_ = Clock::now() + kStatusEvery;
    next_ping_ = Clock::now();
}

void SystemdNotify::tick(const Appliance& app) {
    const auto now = Clock::now();
    if (watchdog_ && now >= next_ping_) {
        if (app.workers_progressing()) {
            sd_notify(0, "WATCHDOG=1");
            next_ping_ = now + ping_every_;
            withheld_logged_ = false;
        } else if (!withheld_logged_) {
            spdlog::warn(
                "systemd watchdog: pings withheld while a worker's loop makes no progress");
            withheld_logged_ = true;
        }
    }
    if (now >= next_status_) {
        sd_notify(0, ("STATUS=" + summary(app)).c_str());
        next_status_ = now + kStatusEvery;
    }
}

void SystemdNotify::stopping(const std::string& why) {
    sd_notify(0, ("STOPPING=1\nSTATUS=stopping: " + why).c_str());
}

}  // namespace pmdfwd
