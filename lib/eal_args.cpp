// Config -> EAL argv (see eal_args.hpp).
#include "eal_args.hpp"

#include <regex>

namespace pmdfwd {

bool is_pci_devargs(const std::string& devargs) {
    static const std::regex kPci("^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7](,.*)?$");
    return std::regex_match(devargs, kPci);
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
