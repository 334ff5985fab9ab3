// Cache-coloured mempool population (see mempool_color.hpp). Control path only.
#include "mempool_color.hpp"

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_spinlock.h>

#include <cstdio>
#include <cstring>

namespace pmdfwd {

unsigned color_count(size_t pg_sz, size_t total_elt_sz) {
    if (pg_sz == 0 || total_elt_sz == 0 || total_elt_sz > pg_sz) return 1;
    const size_t slack = pg_sz - pg_sz / total_elt_sz * total_elt_sz;
    return unsigned(slack / RTE_CACHE_LINE_SIZE) + 1;
}

int populate_objects(rte_mempool* mp, bool colored, unsigned max_objs, void* vaddr, rte_iova_t iova,
                     size_t len, rte_mempool_populate_obj_cb_t* obj_cb, void* obj_cb_arg) {
    size_t pg_sz = 0;
    if (const int rc = rte_mempool_get_page_size(mp, &pg_sz); rc < 0) return rc;
    const size_t total = mp->header_size + mp->elt_size + mp->trailer_size;
    const unsigned colors = colored ? color_count(pg_sz, total) : 1;
    auto* va = static_cast<char*>(vaddr);
    size_t off = 0;
    unsigned i = 0;
    for (; i < max_objs; ++i) {
        if (pg_sz != 0 && total <= pg_sz) {
            size_t in_page = uintptr_t(va + off) & (pg_sz - 1);
            if (in_page + total > pg_sz) {  // never across a page: on to the next
                off += pg_sz - in_page;
                in_page = 0;
            }
            // The colour follows the page number, so neighbouring pages (the
            // objects a LIFO cache hands out together) differ.
            if (in_page == 0 && colors > 1)
                off += uintptr_t(va + off) / pg_sz % colors * RTE_CACHE_LINE_SIZE;
        }
        if (off + total > len) break;
        off += mp->header_size;
        void* obj = va + off;
        obj_cb(mp, obj_cb_arg, obj, iova == RTE_BAD_IOVA ? RTE_BAD_IOVA : iova + off);
        rte_mempool_ops_enqueue_bulk(mp, &obj, 1);
        off += mp->elt_size + mp->trailer_size;
    }
    return int(i);
}

ssize_t calc_mem_size_for(const rte_mempool* mp, bool colored, uint32_t obj_num, uint32_t pg_shift,
                          size_t* min_chunk_size, size_t* align) {
    const size_t total = mp->header_size + mp->elt_size + mp->trailer_size;
    const size_t pg_sz = pg_shift == 0 ? 0 : size_t(1) << pg_shift;
    const unsigned colors = colored ? color_count(pg_sz, total) : 1;
    if (colors == 1 || obj_num == 0)
        return rte_mempool_op_calc_mem_size_default(mp, obj_num, pg_shift, min_chunk_size, align);
    const size_t per_page = pg_sz / total;
    const size_t pages = (obj_num + per_page - 1) / per_page;
    const size_t in_last = obj_num - (pages - 1) * per_page;
    *min_chunk_size = pg_sz;  // any chunk holds a whole page
    *align = pg_sz;
    return ssize_t((pages - 1) * pg_sz + (colors - 1) * RTE_CACHE_LINE_SIZE + in_last * total);
}

ssize_t calc_mem_size_colored(const rte_mempool* mp, uint32_t obj_num, uint32_t pg_shift,
                              size_t* min_chunk_size, size_t* align) {
    return calc_mem_size_for(mp, true, obj_num, pg_shift, min_chunk_size, align);
}

int populate_colored(rte_mempool* mp, unsigned max_objs, void* vaddr, rte_iova_t iova, size_t len,
                     rte_mempool_populate_obj_cb_t* obj_cb, void* obj_cb_arg) {
    return populate_objects(mp, true, max_objs, vaddr, iova, len, obj_cb, obj_cb_arg);
}

namespace {

rte_spinlock_t g_register_lock = RTE_SPINLOCK_INITIALIZER;

// The index of "<base>_colored": base's functions, populate_colored.
int colored_ops_index(const char* base) {
    char name[RTE_MEMPOOL_OPS_NAMESIZE];
    if (std::snprintf(name, sizeof(name), "%s_colored", base) >= int(sizeof(name)))
        return -ENAMETOOLONG;
    rte_spinlock_lock(&g_register_lock);
    int index = -ENOENT;
    const rte_mempool_ops* found = nullptr;
    for (unsigned k = 0; k < rte_mempool_ops_table.num_ops; ++k) {
        if (std::strcmp(rte_mempool_ops_table.ops[k].name, name) == 0) index = int(k);
        if (std::strcmp(rte_mempool_ops_table.ops[k].name, base) == 0)
            found = &rte_mempool_ops_table.ops[k];
    }
    // A driver with its own placement or sizing (bucket's blocks, hardware
    // pools) keeps them.
    if (index < 0 && found && (found->populate != nullptr || found->calc_mem_size != nullptr))
        index = int(found - rte_mempool_ops_table.ops);
    if (index < 0 && found) {
        rte_mempool_ops ops = *found;
        std::memcpy(ops.name, name, sizeof(ops.name));
        ops.populate = populate_colored;
        ops.calc_mem_size = calc_mem_size_colored;
        index = rte_mempool_register_ops(&ops);
    }
    rte_spinlock_unlock(&g_register_lock);
    return index;
}

}  // namespace

rte_mempool* create_colored_pktmbuf_pool(const char* name, unsigned n, unsigned cache_size,
                                         uint16_t data_room_size, int socket_id) {
    const int index = colored_ops_index(rte_mbuf_best_mempool_ops());
    if (index < 0) {
        rte_errno = -index;
        return nullptr;
    }
    rte_pktmbuf_pool_private priv{};
    priv.mbuf_data_room_size = data_room_size;
    priv.mbuf_priv_size = 0;
    rte_mempool* mp = rte_mempool_create_empty(name, n, unsigned(sizeof(rte_mbuf)) + data_room_size,
                                               cache_size, sizeof(priv), socket_id, 0);
    if (!mp) return nullptr;
    int rc = rte_mempool_set_ops_byname(mp, rte_mempool_ops_table.ops[index].name, nullptr);
    if (rc == 0) {
        rte_pktmbuf_pool_init(mp, &priv);
        rc = rte_mempool_populate_default(mp);
    }
    if (rc < 0) {
        rte_mempool_free(mp);
        rte_errno = -rc;
        return nullptr;
    }
    rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
    return mp;
}

}  // namespace pmdfwd
