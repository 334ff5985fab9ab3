// An mbuf pool (stock DPDK ops, or the recycle driver owned by one worker
// lcore), and the exact audit used at shutdown. Created and destroyed on the
// main lcore.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "error.hpp"
#include "pool_audit.hpp"

struct rte_mempool;

namespace pmdfwd {

class Pool {
  public:
    // Stock: the default mempool ops (ring_mp_mc) behind DPDK's lcore caches,
    // with coloured placement unless color is false.
    // color: objects cache-coloured within their pages (mempool_color.hpp).
    static Result<std::unique_ptr<Pool>> create(const std::string& name, uint32_t mbufs,
                                                uint32_t cache, uint16_t data_room, int socket,
                                                bool color = true);
    // The pmdfwd_recycle driver, owned by owner_lcore.
    static Result<std::unique_ptr<Pool>> create_recycle(const std::string& name, uint32_t mbufs,
                                                        uint32_t cache, uint16_t data_room,
                                                        int socket, unsigned owner_lcore,
                                                        bool color = true);
    ~Pool();
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    rte_mempool* mempool() const { return mp_; }
    bool recycles() const;
    const std::string& name() const { return name_; }
    PoolAudit audit() const;

  private:
    Pool(rte_mempool* mp, std::string name) : mp_(mp), name_(std::move(name)) {}
    rte_mempool* mp_;
    std::string name_;
};

// rte_mempool_avail_count() clamps at the pool size and would hide a double
// free; this does not.
int64_t unclamped_object_count(const rte_mempool* mp);

}  // namespace pmdfwd
