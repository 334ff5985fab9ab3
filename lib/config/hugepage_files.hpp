// The files EAL keeps in hugetlbfs, one per hugepage (or per memseg list with
// --single-file-segments), named <file_prefix>map_<n>. With [control] capture
// they stay linked, so a secondary process (dpdk-dumpcap) can map them; EAL
// then leaves them behind at exit, and after a crash, holding their pages.
// Main thread, before EAL (the memory check) and after rte_eal_cleanup.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pmdfwd {

// Where hugetlbfs is mounted, from /proc/mounts (EAL's --huge-dir is one).
std::vector<std::string> hugetlbfs_mounts();

// "<prefix>map_<digits>": not the files of another prefix that merely starts
// with this one ("pmdfwd" against "pmdfwd-demomap_0" or "pmdfwdmap_1map_0").
bool is_hugepage_file_of(std::string_view name, std::string_view prefix);

struct HugepageFiles {
    size_t count = 0;
    uint64_t bytes = 0;  // their sizes: what their pages hold
};

// The files of `prefix` in those directories.
HugepageFiles find_hugepage_files(const std::string& prefix, const std::vector<std::string>& dirs);

// Unlinks them; returns what it removed. Pages still mapped by a process go
// back to the pool when it unmaps them.
HugepageFiles remove_hugepage_files(const std::string& prefix,
                                    const std::vector<std::string>& dirs);

}  // namespace pmdfwd
