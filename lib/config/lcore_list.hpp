// Parses the EAL --lcores syntax ("0-2", "0,2,4", "0@0,(1-2)@1") into the
// ordered list of lcore ids it defines, with the CPUs each runs on. No DPDK:
// checked before EAL starts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmdfwd {

struct LcoreListResult {
    std::vector<unsigned> lcores;  // in the order given; the first is the main lcore
    // The CPUs each lcore may run on, in the same order: "N" alone is CPU N,
    // a group "(a,b)" alone runs each of its lcores on all of a and b (as
    // EAL does), and "set@cpus" runs each lcore of set on cpus.
    std::vector<std::vector<unsigned>> cpus;
    std::string error;  // empty when the text parsed
};

constexpr unsigned kMaxLcoreId = 127;  // RTE_MAX_LCORE in Debian's DPDK 22.11 build

LcoreListResult parse_lcore_list(std::string_view text);

}  // namespace pmdfwd
