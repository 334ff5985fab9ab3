// What pmdfwd's telemetry socket lets through to DPDK: the commands it serves
// and the exact shape of each one's parameters. DPDK 22.11's own handlers
// trust their parameters (/eal/heap_info,32 reads past its table and
// crashes the process), so every request is checked here first and anything
// else is answered without DPDK seeing it. Pure: no DPDK, no sockets.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pmdfwd {

// DPDK's table sizes, filled from its headers where DPDK is compiled in.
struct TelemetryLimits {
    size_t max_ports = 0;           // RTE_MAX_ETHPORTS
    size_t max_heaps = 0;           // RTE_MAX_HEAPS
    size_t max_memzones = 0;        // RTE_MAX_MEMZONE
    size_t mempool_name_bytes = 0;  // RTE_MEMPOOL_NAMESIZE, with its NUL
};

// DPDK's telemetry reads a request with read(fd, buf, 1023): anything longer
// would reach it cut, so it never reaches it.
constexpr size_t kTelemetryMaxRequest = 1023;
// Command names are stored in 56-byte slots, NUL included.
constexpr size_t kTelemetryMaxCommand = 55;

struct TelemetryVerdict {
    bool forward = false;  // pass the request to DPDK unchanged
    std::string reply;     // else: the whole reply to send
};

// Forward, or the reply that refuses: {"<cmd>":null}, as DPDK answers an
// unknown command or a rejected parameter, but always valid JSON.
TelemetryVerdict check_telemetry_request(std::string_view request, const TelemetryLimits& limits);

// Whether pmdfwd serves this command: its own /pmdfwd/... and the vetted
// telemetry, EAL, ethdev and mempool commands.
bool telemetry_command_served(std::string_view cmd);

// DPDK's reply to "/" with only the served commands; the text unchanged if it
// is not a command list.
std::string filter_command_list(std::string_view reply);

// {"<cmd>":null} with cmd escaped.
std::string telemetry_null_reply(std::string_view cmd);

// {"<cmd>":{"error":"<sentence>"}}: a request that could not be answered,
// said in words (null would read as a refused parameter).
std::string telemetry_error_reply(std::string_view cmd, std::string_view sentence);

}  // namespace pmdfwd
