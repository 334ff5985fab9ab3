// See fib_groups.hpp.
#include "fib_groups.hpp"

#include <rte_rcu_qsbr.h>

namespace pmdfwd {

FibGroups::FibGroups(uint32_t total, rte_rcu_qsbr* rcu) : total_(total), rcu_(rcu) {
    free_.reserve(total);
    for (uint32_t g = total; g > 0; --g) free_.push_back(g - 1);
}

std::optional<uint32_t> FibGroups::take() {
    if (free_.empty()) {
        if (!retired_.empty() && rcu_) rte_rcu_qsbr_check(rcu_, retired_.back().token, true);
        reclaim();
        if (free_.empty()) return std::nullopt;
    }
    const uint32_t group = free_.back();
    free_.pop_back();
    return group;
}

void FibGroups::retire(uint32_t group) {
    retired_.push_back({rcu_ ? rte_rcu_qsbr_start(rcu_) : 0, group});
}

void FibGroups::reclaim() {
    while (!retired_.empty() &&
           (!rcu_ || rte_rcu_qsbr_check(rcu_, retired_.front().token, false) == 1)) {
        free_.push_back(retired_.front().group);
        retired_.pop_front();
    }
}

}  // namespace pmdfwd
