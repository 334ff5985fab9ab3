// Checks against the running system (see system_check.hpp). Main thread,
// before EAL, in --check and at start alike, so both say the same thing.
#include "system_check.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "file_check.hpp"
#include "hugepage_files.hpp"
#include "lcore_list.hpp"

namespace pmdfwd {

namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;

std::optional<std::string> read_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    return line;
}

std::optional<std::vector<unsigned>> read_cpu_list(const std::string& path) {
    const auto line = read_line(path);
    return line ? parse_cpu_list(*line) : std::nullopt;
}

// The cpuset cgroup's effective CPUs (v2, else v1), if the process has one.
std::optional<std::vector<unsigned>> cgroup_cpus() {
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("0::", 0) == 0) {
            if (auto cpus =
                    read_cpu_list("/sys/fs/cgroup" + line.substr(3) + "/cpuset.cpus.effective"))
                return cpus;
        }
        const size_t mark = line.find(":cpuset:");
        if (mark != std::string::npos)
            if (auto cpus = read_cpu_list("/sys/fs/cgroup/cpuset" + line.substr(mark + 8) +
                                          "/cpuset.effective_cpus"))
                return cpus;
    }
    return std::nullopt;
}

std::vector<unsigned> available_cpus() {
    auto cpus = read_cpu_list("/sys/devices/system/cpu/online");
    if (!cpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
        cpus.emplace();
        for (unsigned c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) cpus->push_back(c);
    }
    if (const auto allowed = cgroup_cpus())
        cpus->erase(std::remove_if(cpus->begin(), cpus->end(),
                                   [&](unsigned c) {
                                       return !std::binary_search(allowed->begin(), allowed->end(),
                                                                  c);
                                   }),
                    cpus->end());
    return *cpus;
}

uint64_t free_hugepage_bytes() {
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/sys/kernel/mm/hugepages", ec)) {
        // hugepages-2048kB
        const std::string name = e.path().filename().string();
        const uint64_t kb = std::strtoull(name.c_str() + name.find('-') + 1, nullptr, 10);
        const auto free = read_line(e.path().string() + "/free_hugepages");
        if (free) total += std::strtoull(free->c_str(), nullptr, 10) * kb * 1024;
    }
    return total;
}

std::string mib(uint64_t bytes) { return std::to_string(bytes / kMiB) + " MiB"; }

std::optional<ConfigError> check_lcores(const Config& cfg, const SystemFacts& facts) {
    if (facts.cpus.empty()) return std::nullopt;
    const auto parsed = parse_lcore_list(cfg.eal.lcores);
    for (size_t i = 0; i < parsed.lcores.size(); ++i) {
        for (const unsigned cpu : parsed.cpus[i]) {
            if (std::binary_search(facts.cpus.begin(), facts.cpus.end(), cpu)) continue;
            const bool in_file = cfg.eal.lcores_loc.line != 0;
            return ConfigError{
                cfg.source_name, in_file ? cfg.eal.lcores_loc.line : 1,
                in_file ? cfg.eal.lcores_loc.column : 1, "eal.lcores",
                "lcore " + std::to_string(parsed.lcores[i]) + " would run on CPU " +
                    std::to_string(cpu) + ", which this process cannot use (it may use CPUs " +
                    format_cpu_list(facts.cpus) +
                    "); use only those, or put several lcores on one CPU with lcore@cpu, e.g. "
                    "\"0@0,1@0,2@1\"" +
                    (in_file ? ""
                             : " (eal.lcores is not set, so its default \"" + cfg.eal.lcores +
                                   "\" applies)")};
        }
    }
    return std::nullopt;
}

std::optional<ConfigError> check_memory(const Config& cfg, const SystemFacts& facts) {
    const EalConfig& eal = cfg.eal;
    const uint64_t want = uint64_t(eal.memory_mb) * kMiB;
    const SourceLoc loc = eal.memory_mb_loc.line   ? eal.memory_mb_loc
                          : eal.hugepages_loc.line ? eal.hugepages_loc
                                                   : SourceLoc{1, 1};
    const auto error = [&](std::string message) {
        return ConfigError{cfg.source_name, loc.line, loc.column, "eal.memory_mb",
                           std::move(message)};
    };
    if (eal.hugepages) {
        const uint64_t free = facts.free_hugepage_bytes + facts.prefix_hugepage_bytes;
        const std::string left =
            facts.prefix_hugepage_bytes == 0
                ? ""
                : ", " + mib(facts.prefix_hugepage_bytes) + " of them in files an earlier run " +
                      "of file prefix '" + eal.file_prefix + "' left, which start removes";
        if (want > free)
            return error("memory_mb " + std::to_string(eal.memory_mb) +
                         " does not fit in this machine's free hugepages (" + mib(free) + left +
                         "); reserve more (dpdk-hugepages.py --reserve) or lower memory_mb");
        return std::nullopt;
    }
    if (facts.memory_bytes && want > facts.memory_bytes)
        return error("memory_mb " + std::to_string(eal.memory_mb) +
                     " is more than this machine's memory (" + mib(facts.memory_bytes) +
                     "); without hugepages EAL takes it from ordinary memory at start");
    return std::nullopt;
}

// Each kernel_interface is made at start: the tun device must open, and no
// interface may have its name already.
std::optional<ConfigError> check_kernel_interfaces(const Config& cfg, const SystemFacts& facts) {
    for (size_t p = 0; p < cfg.ports.size(); ++p) {
        const PortConfig& port = cfg.ports[p];
        if (port.kernel_interface.empty()) continue;
        const std::string key = "port[" + std::to_string(p) + "].kernel_interface";
        const SourceLoc loc = port.kernel_interface_loc;
        if (!facts.tun_device)
            return ConfigError{cfg.source_name, loc.line, loc.column, key,
                               "needs /dev/net/tun, which does not open here (the tun module, "
                               "or a container without the device)"};
        if (std::find(facts.interfaces.begin(), facts.interfaces.end(), port.kernel_interface) !=
            facts.interfaces.end())
            return ConfigError{cfg.source_name, loc.line, loc.column, key,
                               "an interface named '" + port.kernel_interface +
                                   "' exists already; pmdfwd makes its kernel interface itself "
                                   "(is another pmdfwd running with this config?)"};
    }
    return std::nullopt;
}

}  // namespace

SystemFacts read_system_facts(const std::string& file_prefix) {
    SystemFacts f;
    if (!file_prefix.empty())
        f.prefix_hugepage_bytes = find_hugepage_files(file_prefix, hugetlbfs_mounts()).bytes;
    f.cpus = available_cpus();
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) f.memory_bytes = uint64_t(pages) * uint64_t(page);
    f.free_hugepage_bytes = free_hugepage_bytes();
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/sys/class/net", ec))
        f.interfaces.push_back(e.path().filename().string());
    f.tun_device = access("/dev/net/tun", R_OK | W_OK) == 0;
    return f;
}

std::optional<ConfigError> check_against_system(const Config& cfg, const SystemFacts& facts) {
    if (auto e = check_lcores(cfg, facts)) return e;
    if (auto e = check_memory(cfg, facts)) return e;
    if (auto e = check_kernel_interfaces(cfg, facts)) return e;
    if (!cfg.log.file.empty())
        if (auto p = log_file_problem(cfg.log.file); !p.empty()) {
            const SourceLoc loc = cfg.log.file_loc.line ? cfg.log.file_loc : SourceLoc{1, 1};
            return ConfigError{cfg.source_name, loc.line, loc.column, "log.file", p};
        }
    return std::nullopt;
}

std::optional<std::vector<unsigned>> parse_cpu_list(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    std::vector<unsigned> cpus;
    if (text.empty()) return cpus;
    std::istringstream in{std::string(text)};
    std::string part;
    while (std::getline(in, part, ',')) {
        unsigned lo = 0, hi = 0;
        char dash = 0, extra = 0;
        const int n = std::sscanf(part.c_str(), "%u%c%u%c", &lo, &dash, &hi, &extra);
        if (n == 1)
            hi = lo;
        else if (n != 3 || dash != '-' || hi < lo || hi - lo > 1u << 16)
            return std::nullopt;
        for (unsigned c = lo; c <= hi; ++c) cpus.push_back(c);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

std::string format_cpu_list(const std::vector<unsigned>& cpus) {
    std::string out;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (j > i) out += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

}  // namespace pmdfwd
