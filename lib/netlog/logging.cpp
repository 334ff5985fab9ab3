// Logger construction (see logging.hpp). Main thread: before EAL, and on
// the main lcore's loop for a reopen.
#include "logging.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

#include "file_check.hpp"

namespace pmdfwd {

namespace {

// The [log] file, written straight to its descriptor (the logger flushes at
// every info record, so a stdio buffer saved little), and opened again by
// path on SIGHUP: logrotate renames the old file and expects the writer to
// create a new one at the path.
class ReopenableFileSink final : public spdlog::sinks::base_sink<std::mutex> {
  public:
    ReopenableFileSink(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
    ~ReopenableFileSink() override { ::close(fd_); }
    const std::string& path() const { return path_; }
    // Records go to the old file until the new one is open, then to the new.
    void replace_fd(int fd) {
        std::lock_guard lock(mutex_);
        std::swap(fd, fd_);
        ::close(fd);
    }

  protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        spdlog::memory_buf_t buf;
        formatter_->format(msg, buf);
        const char* p = buf.data();
        size_t left = buf.size();
        while (left != 0) {
            const ssize_t n = ::write(fd_, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;  // a full disk loses the record rather than the process
            p += n;
            left -= size_t(n);
        }
    }
    void flush_() override {}

  private:
    std::string path_;
    int fd_;
};

std::shared_ptr<ReopenableFileSink> g_file_sink;
spdlog::sink_ptr g_console_sink;

}  // namespace

Status setup_logging(const LogConfig& cfg) {
    std::vector<spdlog::sink_ptr> sinks;
    g_console_sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    sinks.push_back(g_console_sink);
    if (!cfg.file.empty()) {
        auto fd = open_log_file_nonblocking(cfg.file);  // never waits on a fifo
        if (!fd) return fd.error();
        g_file_sink = std::make_shared<ReopenableFileSink>(cfg.file, fd.value());
        sinks.push_back(g_file_sink);
    }
    // Each sink keeps the configured level; the log channel's sink, added
    // later, may lower the logger's own.
    for (auto& sink : sinks) sink->set_level(spdlog::level::from_str(cfg.level));
    auto logger = std::make_shared<spdlog::logger>("pmdfwd", sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::from_str(cfg.level));
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%t] %v");
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
    return Ok{};
}

void set_log_level(const std::string& level) {
    auto logger = spdlog::default_logger();
    const auto l = spdlog::level::from_str(level);
    if (g_console_sink) g_console_sink->set_level(l);
    if (g_file_sink) g_file_sink->set_level(l);
    lower_logger_to_sinks();
}

void lower_logger_to_sinks() {
    auto logger = spdlog::default_logger();
    auto lowest = spdlog::level::off;
    for (const auto& sink : logger->sinks()) lowest = std::min(lowest, sink->level());
    logger->set_level(lowest);
}

Status reopen_log_file() {
    if (!g_file_sink) return make_error("no [log] file is configured");
    auto fd = open_log_file_nonblocking(g_file_sink->path());
    if (!fd) return fd.error();
    g_file_sink->replace_fd(fd.value());
    return Ok{};
}

}  // namespace pmdfwd
