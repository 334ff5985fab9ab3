// Logger construction (see logging.hpp). Main thread, before EAL.
#include "logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace pmdfwd {

Status setup_logging(const LogConfig& cfg) {
    std::vector<spdlog::sink_ptr> sinks;
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    if (!cfg.file.empty()) {
        try {
            sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(cfg.file));
        } catch (const spdlog::spdlog_ex& e) {
            return make_error("log file '" + cfg.file + "': " + e.what());
        }
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

}  // namespace pmdfwd
