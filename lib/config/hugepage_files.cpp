// A file prefix's hugepage files in hugetlbfs (see hugepage_files.hpp).
#include "hugepage_files.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pmdfwd {

namespace {

// Each file of `prefix` in `dirs`, with its size.
template <class Fn>
void for_each_file(const std::string& prefix, const std::vector<std::string>& dirs, Fn&& fn) {
    for (const auto& dir : dirs) {
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
            if (!is_hugepage_file_of(e.path().filename().string(), prefix)) continue;
            std::error_code size_ec;
            const uint64_t size = e.file_size(size_ec);
            fn(e.path(), size_ec ? 0 : size);
        }
    }
}

}  // namespace

std::vector<std::string> hugetlbfs_mounts() {
    std::vector<std::string> mounts;
    std::ifstream in("/proc/mounts");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string device, dir, type;
        if (fields >> device >> dir >> type && type == "hugetlbfs") mounts.push_back(dir);
    }
    return mounts;
}

bool is_hugepage_file_of(std::string_view name, std::string_view prefix) {
    constexpr std::string_view kMap = "map_";
    if (name.substr(0, prefix.size()) != prefix) return false;
    name.remove_prefix(prefix.size());
    if (name.substr(0, kMap.size()) != kMap) return false;
    name.remove_prefix(kMap.size());
    if (name.empty()) return false;
    for (const char c : name)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

HugepageFiles find_hugepage_files(const std::string& prefix, const std::vector<std::string>& dirs) {
    HugepageFiles found;
    for_each_file(prefix, dirs, [&](const std::filesystem::path&, uint64_t size) {
        ++found.count;
        found.bytes += size;
    });
    return found;
}

HugepageFiles remove_hugepage_files(const std::string& prefix,
                                    const std::vector<std::string>& dirs) {
    std::vector<std::pair<std::filesystem::path, uint64_t>> files;
    for_each_file(prefix, dirs, [&](const std::filesystem::path& p, uint64_t size) {
        files.emplace_back(p, size);
    });
    HugepageFiles removed;
    for (const auto& [path, size] : files) {
        std::error_code ec;
        if (!std::filesystem::remove(path, ec)) continue;
        ++removed.count;
        removed.bytes += size;
    }
    return removed;
}

}  // namespace pmdfwd
