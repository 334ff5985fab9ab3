// The ops table's order against a secondary process's (see ops_order.hpp).
#include "ops_order.hpp"

#include <rte_mempool.h>

#include <cstring>
#include <string_view>

#include "recycle_mempool.hpp"

namespace pmdfwd {

bool is_pmdfwd_mempool_ops(const char* name) {
    constexpr std::string_view kColored = "_colored";
    const std::string_view n = name;
    return n == kRecycleOpsName ||
           (n.size() > kColored.size() && n.substr(n.size() - kColored.size()) == kColored);
}

std::string mempool_ops_order_problem() {
    int first_own = -1;
    for (unsigned k = 0; k < rte_mempool_ops_table.num_ops; ++k) {
        const char* name = rte_mempool_ops_table.ops[k].name;
        if (is_pmdfwd_mempool_ops(name)) {
            if (first_own < 0) first_own = int(k);
            continue;
        }
        if (first_own >= 0)
            return std::string("mempool ops '") + name + "' has index " + std::to_string(k) +
                   ", after pmdfwd's own '" + rte_mempool_ops_table.ops[first_own].name +
                   "' (index " + std::to_string(first_own) +
                   "): a secondary process such as dpdk-dumpcap gives it another index, and a "
                   "pool it creates would run the wrong driver here";
    }
    return {};
}

}  // namespace pmdfwd
