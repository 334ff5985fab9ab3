// Where a key sits in the config file, so cross-field errors can point at it.
#pragma once

#include <cstdint>

namespace pmdfwd {

struct SourceLoc {
    uint32_t line = 0;
    uint32_t column = 0;
};

}  // namespace pmdfwd
