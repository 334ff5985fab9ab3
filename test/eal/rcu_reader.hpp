// One RCU reader for the route tables' tests: a QSBR variable with thread
// 0 registered and online, so that what a table retires stays retired
// until the test says the reader moved on (quiescent()).
#pragma once

#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include <catch2/catch.hpp>

struct RcuReader {
    explicit RcuReader(const char* name) {
        rcu = static_cast<rte_rcu_qsbr*>(
            rte_zmalloc(name, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE));
        REQUIRE(rcu);
        REQUIRE(rte_rcu_qsbr_init(rcu, 1) == 0);
        REQUIRE(rte_rcu_qsbr_thread_register(rcu, 0) == 0);
        rte_rcu_qsbr_thread_online(rcu, 0);
    }
    ~RcuReader() {
        rte_rcu_qsbr_thread_offline(rcu, 0);
        rte_free(rcu);
    }
    RcuReader(const RcuReader&) = delete;
    RcuReader& operator=(const RcuReader&) = delete;

    void quiescent() { rte_rcu_qsbr_quiescent(rcu, 0); }

    rte_rcu_qsbr* rcu = nullptr;
};
