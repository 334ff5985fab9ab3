// Config -> EAL argv (see eal_args.hpp).
#include "eal_args.hpp"

#include <string_view>

namespace pmdfwd {

namespace {

// EAL options (22.11) that pmdfwd sets itself, or that would undo what its
// plan, ports and control assume, with the reason shown to the operator.
struct OwnedOption {
    const char* name;  // long name without "--", or one letter for a short option
    const char* why;
};
constexpr OwnedOption kOwnedLong[] = {
    {"lcores", "pmdfwd sets it from eal.lcores"},
    {"main-lcore", "pmdfwd sets it to the first lcore of eal.lcores"},
    {"file-prefix", "pmdfwd sets it from eal.file_prefix"},
    {"socket-mem", "pmdfwd sets -m from eal.memory_mb, and EAL refuses both"},
    {"no-huge", "pmdfwd sets it from eal.hugepages"},
    {"huge-unlink", "pmdfwd sets it from eal.hugepages"},
    {"in-memory", "it would hide the runtime directory that pmdctl uses; use eal.hugepages"},
    {"no-shconf", "it would hide the runtime directory that pmdctl uses"},
    {"telemetry", "pmdfwd sets it from control.telemetry"},
    {"no-telemetry", "pmdfwd sets it from control.telemetry"},
    {"proc-type", "pmdfwd runs only as the primary process"},
    {"vdev", "ports come from [[port]] devargs"},
    {"allow", "ports come from [[port]] devargs"},
    {"block", "ports come from [[port]] devargs"},
    {"no-pci", "pmdfwd sets it when no port is a PCI device"},
    {"help", "EAL would print its usage and exit"},
    {"version", "EAL would print its version instead of pmdfwd's"},
};
constexpr OwnedOption kOwnedShort[] = {
    {"l", "pmdfwd sets --lcores from eal.lcores"},
    {"c", "pmdfwd sets --lcores from eal.lcores"},
    {"m", "pmdfwd sets it from eal.memory_mb"},
    {"a", "ports come from [[port]] devargs"},
    {"b", "ports come from [[port]] devargs"},
    {"h", "EAL would print its usage and exit"},
    {"v", "EAL would print its version instead of pmdfwd's"},
};
// EAL's short options that take a value ("-d lib.so" or "-dlib.so").
constexpr std::string_view kShortWithValue = "abcdlmnrsS";

}  // namespace

std::string owned_eal_option(std::string_view arg) {
    if (arg.size() < 2 || arg[0] != '-') return {};
    if (arg[1] == '-') {
        const std::string_view name = arg.substr(2, arg.find('=') - 2);
        if (name.empty()) return {};  // "--" ends the options
        // getopt_long takes an exact name first, else any unambiguous prefix.
        for (const auto& o : kOwnedLong)
            if (name == o.name) return "'" + std::string(arg) + "' sets --" + o.name + ": " + o.why;
        for (const auto& o : kOwnedLong)
            if (std::string_view(o.name).substr(0, name.size()) == name)
                return "'" + std::string(arg) + "' abbreviates --" + o.name + ": " + o.why;
        return {};
    }
    // Short options may be bundled ("-vh"); a value ends the bundle ("-d-v").
    for (const char c : arg.substr(1)) {
        for (const auto& o : kOwnedShort)
            if (c == o.name[0]) return "'" + std::string(arg) + "' sets -" + o.name + ": " + o.why;
        if (kShortWithValue.find(c) != std::string_view::npos) break;
    }
    return {};
}

std::vector<std::string> build_eal_args(const Config& cfg, const Plan& plan) {
    std::vector<std::string> a = {"pmdfwd",
                                  "--lcores",
                                  cfg.eal.lcores,
                                  "--main-lcore",
                                  std::to_string(plan.main_lcore),
                                  "--file-prefix",
                                  cfg.eal.file_prefix,
                                  "-m",
                                  std::to_string(cfg.eal.memory_mb)};
    // A secondary process (dpdk-dumpcap) opens the hugepage files by name
    // to map the same memory: they stay linked while capture is served.
    if (cfg.eal.hugepages) {
        if (!cfg.control.capture) a.push_back("--huge-unlink");
    } else
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
