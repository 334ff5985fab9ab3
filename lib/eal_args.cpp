// Config -> EAL argv (see eal_args.hpp).
#include "eal_args.hpp"

#include <cctype>
#include <string_view>

namespace pmdfwd {

namespace {
// Consumes exactly `n` hex digits from s; false if they are not there.
bool hex_digits(std::string_view& s, size_t n) {
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
        if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    s.remove_prefix(n);
    return true;
}
bool eat(std::string_view& s, char c) {
    if (s.empty() || s.front() != c) return false;
    s.remove_prefix(1);
    return true;
}
}  // namespace

// [DDDD:]BB:DD.F[,options]
bool is_pci_devargs(const std::string& devargs) {
    const std::string name = devargs_name(devargs);
    std::string_view s = name;
    if (s.size() == 12) {
        if (!hex_digits(s, 4) || !eat(s, ':')) return false;
    }
    return hex_digits(s, 2) && eat(s, ':') && hex_digits(s, 2) && eat(s, '.') && s.size() == 1 &&
           s[0] >= '0' && s[0] <= '7';
}

std::string devargs_name(const std::string& devargs) { return devargs.substr(0, devargs.find(',')); }

std::vector<std::string> build_eal_args(const Config& cfg, const Plan& plan) {
    std::vector<std::string> a = {"pmdfwd",        "--lcores",           cfg.eal.lcores,
                                  "--main-lcore",  std::to_string(plan.main_lcore),
                                  "--file-prefix", cfg.eal.file_prefix,  "-m",
                                  std::to_string(cfg.eal.memory_mb)};
    if (cfg.eal.hugepages)
        a.push_back("--huge-unlink");
    else
        a.push_back("--no-huge");
    if (!cfg.control.telemetry) a.push_back("--no-telemetry");
    bool any_pci = false;
    for (const auto& p : cfg.ports) {
        if (is_pci_devargs(p.devargs)) {
            any_pci = true;
            a.insert(a.end(), {"-a", p.devargs});
        } else {
            a.insert(a.end(), {"--vdev", p.devargs});
        }
    }
    if (!any_pci) a.push_back("--no-pci");
    a.insert(a.end(), cfg.eal.extra_args.begin(), cfg.eal.extra_args.end());
    return a;
}

}  // namespace pmdfwd
