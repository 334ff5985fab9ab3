// Cache colouring of mempool objects, as the slab allocator colours its
// slabs. Where objects may not cross a page (IOVA-contiguous objects on
// 4 KB pages, the --no-huge case) DPDK puts one 2368-byte mbuf (with its
// mempool header) on each page, every one at the same page offset, so the
// same line of every mbuf (the header, the frame's first bytes) falls in the
// same L1 set: a burst of 32 fights over 8 or 12 ways and misses on nearly
// every access. Starting each page's first object a number of cache lines
// into the page's slack that follows the page number spreads the mbufs over
// up to 28 page offsets (a default mbuf on a 4 KB page); no object crosses a
// page and no page holds fewer objects than before.
#pragma once

#include <rte_mempool.h>

namespace pmdfwd {

// rte_mempool_op_populate_helper's placement (flags 0), plus, when colored,
// the colour offset on each new page.
int populate_objects(rte_mempool* mp, bool colored, unsigned max_objs, void* vaddr, rte_iova_t iova,
                     size_t len, rte_mempool_populate_obj_cb_t* obj_cb, void* obj_cb_arg);

// The memory populate_objects needs for obj_num objects: DPDK's default
// sizing assumes objects start at the page start and a cache-aligned chunk,
// so the colour offset of the last page could overflow it. Coloured, chunks
// are page-aligned and the last page has room for the largest colour; not
// coloured, DPDK's default.
ssize_t calc_mem_size_for(const rte_mempool* mp, bool colored, uint32_t obj_num, uint32_t pg_shift,
                          size_t* min_chunk_size, size_t* align);

// rte_mempool_ops callbacks: populate_objects and calc_mem_size_for, coloured.
ssize_t calc_mem_size_colored(const rte_mempool* mp, uint32_t obj_num, uint32_t pg_shift,
                              size_t* min_chunk_size, size_t* align);
int populate_colored(rte_mempool* mp, unsigned max_objs, void* vaddr, rte_iova_t iova, size_t len,
                     rte_mempool_populate_obj_cb_t* obj_cb, void* obj_cb_arg);

// Colour offsets (in cache lines) a page of pg_sz bytes leaves for objects of
// total_elt_sz bytes: 1 means no colouring (no slack, or no page limit).
unsigned color_count(size_t pg_sz, size_t total_elt_sz);

// A stock pktmbuf pool (the platform's best mempool ops, as
// rte_pktmbuf_pool_create uses) whose objects are coloured: the same ops
// under the name "<ops>_colored", registered on first use. Ops that place
// objects themselves are used as they are.
rte_mempool* create_colored_pktmbuf_pool(const char* name, unsigned n, unsigned cache_size,
                                         uint16_t data_room_size, int socket_id);

}  // namespace pmdfwd
