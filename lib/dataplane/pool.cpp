// Pool creation and the exact shutdown audit (see pool.hpp). Main lcore only.
#include "pool.hpp"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "mempool_color.hpp"
#include "recycle_mempool.hpp"

namespace pmdfwd {

Result<std::unique_ptr<Pool>> Pool::create(const std::string& name, uint32_t mbufs, uint32_t cache,
                                           uint16_t data_room, int socket, bool color) {
    rte_mempool* mp =
        color ? create_colored_pktmbuf_pool(name.c_str(), mbufs, cache, data_room, socket)
              : rte_pktmbuf_pool_create(name.c_str(), mbufs, cache, 0, data_room, socket);
    if (!mp) {
        const int err = rte_errno;
        return make_error("pool '" + name + "': creating " + std::to_string(mbufs) +
                              " mbufs failed: " + rte_strerror(err) +
                              (err == ENOMEM ? " (raise eal.memory_mb or lower pool.mbufs)" : ""),
                          -err);
    }
    return std::unique_ptr<Pool>(new Pool(mp, name));
}

Result<std::unique_ptr<Pool>> Pool::create_recycle(const std::string& name, uint32_t mbufs,
                                                   uint32_t cache, uint16_t data_room, int socket,
                                                   unsigned owner_lcore, bool color) {
    auto mp = create_recycle_pktmbuf_pool(name.c_str(), mbufs, cache, data_room, socket,
                                          owner_lcore, color);
    if (!mp) return mp.error();
    return std::unique_ptr<Pool>(new Pool(mp.value(), name));
}

bool Pool::recycles() const { return is_recycle_pool(mp_); }

Pool::~Pool() { rte_mempool_free(mp_); }

int64_t unclamped_object_count(const rte_mempool* mp) {
    // rte_mempool_ops_get_count() is internal to DPDK 22.11; its body is this.
    const rte_mempool_ops* ops = rte_mempool_get_ops(mp->ops_index);
    int64_t count = ops->get_count(mp);
    if (mp->cache_size != 0)
        for (unsigned lcore = 0; lcore < RTE_MAX_LCORE; ++lcore)
            count += mp->local_cache[lcore].len;
    return count;
}

PoolAudit Pool::audit() const { return {name_, mp_->size, unclamped_object_count(mp_)}; }

}  // namespace pmdfwd
