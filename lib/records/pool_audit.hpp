// The exact count of one pool's free objects at shutdown, against its size.
// Pure.
#pragma once

#include <cstdint>
#include <string>

namespace pmdfwd {

struct PoolAudit {
    std::string name;
    uint64_t size = 0;
    int64_t present = 0;  // unclamped: ring/stack count plus every lcore cache
    int64_t missing() const { return int64_t(size) - present; }  // < 0 means a double free
};

}  // namespace pmdfwd
