// DPDK's log stream into spdlog (see dpdk_log.hpp). The write function runs
// on any thread that calls rte_log (main, EAL's interrupt and telemetry
// threads, a worker when a PMD logs from its burst functions), under the
// FILE's lock. A line is passed on once its newline has come; one longer
// than kLineMax is passed on in pieces. Nothing is dropped but empty lines.
#include "dpdk_log.hpp"

#include <rte_log.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace pmdfwd {

namespace {

// DPDK's longest lines (a device's capabilities, a mempool's dump) are a
// few hundred bytes.
constexpr size_t kLineMax = 1024;

// Per thread: rte_vlog holds the FILE's lock for one message only, so two
// threads' unfinished lines must not share a buffer.
struct PartialLine {
    char text[kLineMax];
    size_t len = 0;
    spdlog::level::level_enum level = spdlog::level::info;
};
thread_local PartialLine t_line;
// Set while this thread passes a line to spdlog: a sink that reached rte_log
// (the log channel's tx_burst, should a PMD log there) must not come back in.
thread_local bool t_forwarding = false;

FILE* g_stream = nullptr;

spdlog::level::level_enum level_of(int rte_level) {
    switch (rte_level) {
        case RTE_LOG_EMERG:
        case RTE_LOG_ALERT:
        case RTE_LOG_CRIT:
            return spdlog::level::critical;
        case RTE_LOG_ERR:
            return spdlog::level::err;
        case RTE_LOG_WARNING:
            return spdlog::level::warn;
        case RTE_LOG_NOTICE:  // spdlog has no notice
        case RTE_LOG_INFO:
            return spdlog::level::info;
        case RTE_LOG_DEBUG:
            return spdlog::level::debug;
        default:  // written to the stream without rte_log: no level of its own
            return spdlog::level::info;
    }
}

void pass_on(PartialLine& line) {
    size_t len = line.len;
    line.len = 0;
    while (len != 0 && (line.text[len - 1] == '\r' || line.text[len - 1] == ' ')) --len;
    if (len == 0) return;
    spdlog::default_logger_raw()->log(line.level, "dpdk: {}", std::string_view(line.text, len));
}

ssize_t write_lines(void*, const char* data, size_t size) {
    if (t_forwarding) {
        (void)!::write(STDERR_FILENO, data, size);
        return ssize_t(size);
    }
    t_forwarding = true;
    PartialLine& line = t_line;
    const spdlog::level::level_enum level = level_of(rte_log_cur_msg_loglevel());
    for (size_t i = 0; i < size;) {
        if (line.len == 0) line.level = level;  // the level of the message that starts the line
        const char* nl = static_cast<const char*>(std::memchr(data + i, '\n', size - i));
        const size_t end = nl ? size_t(nl - data) : size;
        const size_t n = std::min(end - i, kLineMax - line.len);
        std::memcpy(line.text + line.len, data + i, n);
        line.len += n;
        i += n;
        if (i == end && nl) {
            pass_on(line);
            ++i;
        } else if (line.len == kLineMax) {
            pass_on(line);
        }
    }
    t_forwarding = false;
    return ssize_t(size);
}

}  // namespace

Status route_dpdk_log() {
    if (g_stream) {  // routed before, and kept open since
        rte_openlog_stream(g_stream);
        return Ok{};
    }
    cookie_io_functions_t io{};
    io.write = write_lines;
    FILE* f = fopencookie(nullptr, "w", io);
    if (!f)
        return make_error(std::string("cannot open a stream for DPDK's log: ") + strerror(errno));
    // Unbuffered: each rte_log message reaches write_lines inside its own
    // vfprintf, under the FILE's lock, never mixed with another thread's.
    setvbuf(f, nullptr, _IONBF, 0);
    if (rte_openlog_stream(f) != 0) {
        fclose(f);
        return make_error("rte_openlog_stream refused the stream for DPDK's log");
    }
    g_stream = f;
    return Ok{};
}

void unroute_dpdk_log() {
    if (!g_stream) return;
    rte_openlog_stream(stderr);
    // The stream stays open: a thread that took it just before may still be
    // writing to it.
}

}  // namespace pmdfwd
