// libFuzzer entry: any bytes must give a Config or a located ConfigError,
// never a crash, an abort or undefined behaviour (ASan/UBSan are on).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config_loader.hpp"
#include "plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto r = pmdfwd::parse_config(text, "fuzz.toml");
    if (auto* cfg = std::get_if<pmdfwd::Config>(&r)) {
        auto plan = pmdfwd::build_plan(*cfg);
        if (auto* p = std::get_if<pmdfwd::Plan>(&plan)) (void)pmdfwd::render_plan(*cfg, *p);
    } else {
        const auto& err = std::get<pmdfwd::ConfigError>(r);
        if (err.file != "fuzz.toml") __builtin_trap();
        (void)err.to_string();
    }
    return 0;
}
