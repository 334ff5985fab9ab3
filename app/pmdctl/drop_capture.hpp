// pmdctl drops --pcap FILE: the packets pmdfwd drops, copied on its workers
// (at most `rate` a second each, `count` in all) and fetched over
// /pmdfwd/drops in rows of 48 bytes, written as pcapng with a comment a
// packet naming its drop reason, worker, port, queue and time.
#pragma once

#include <cstdint>
#include <string>

#include "telemetry_client.hpp"

namespace pmdctl {

struct DropCaptureArgs {
    std::string pcap;
    uint64_t count = 100;
    uint64_t rate = 1000;
    std::string reason;    // empty: every reason
    double timeout_s = 0;  // 0: until count, or interrupted
    bool json = false;
};

// Starts the capture, writes what comes until count, the timeout or
// SIGINT/SIGTERM, stops it and says what was written and what was not
// copied; a Failure for what pmdfwd refused.
void run_drop_capture(TelemetryClient& client, const DropCaptureArgs& args);

}  // namespace pmdctl
