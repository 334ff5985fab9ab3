// Precompiled for every EAL test file: Catch2, DPDK's headers and the
// standard headers the tests share, parsed once per build instead of once
// per file (DPDK's headers were half of each file's compile time). Only
// third-party headers: a change to the project's own rebuilds it anyway.
// (No include guard: GCC's PCH is the guard.)
// DPDK's headers are parsed here, before any test file's own defines: the
// experimental calls some use (rte_pktmbuf_pool_create_extbuf, the router's
// tables) must be allowed here or they would come too late.
#define ALLOW_EXPERIMENTAL_API

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_fib6.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
