// The groups of a route table (Ipv4Fib's, Ipv6Fib's): handed out, and
// taken back only after every worker has passed a quiescent point, so that
// a worker that read the entry pointing at a retired group never reads
// that group serving another prefix. Control side only.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

struct rte_rcu_qsbr;

namespace pmdfwd {

// Groups a table has past its limit, for those in their grace period when
// a change needs one again: reclaim() runs before every change (and the
// control path's poll), so a grace period rarely holds many.
constexpr uint32_t kFibGraceGroups = 1024;

class FibGroups {
  public:
    // `total` groups, 0 .. total - 1; no `rcu`: retired groups come back
    // at the next reclaim() (tests).
    FibGroups(uint32_t total, rte_rcu_qsbr* rcu);

    // A free group. When only retired ones are left, waits for the
    // workers' next quiescent point (they pass one every poll) rather
    // than leave a change half made; none when all are in use.
    std::optional<uint32_t> take();
    // No entry points at `group` any more.
    void retire(uint32_t group);
    // Takes back the retired groups no worker can hold now; never waits.
    void reclaim();

    // In use or waiting for the workers' quiescent point.
    uint32_t in_use() const { return total_ - uint32_t(free_.size()); }
    uint32_t retired() const { return uint32_t(retired_.size()); }

  private:
    uint32_t total_;
    rte_rcu_qsbr* rcu_;
    std::vector<uint32_t> free_;  // handed out last first
    struct Retired {
        uint64_t token;
        uint32_t group;
    };
    std::deque<Retired> retired_;  // in retirement order, so tokens only grow
};

}  // namespace pmdfwd
