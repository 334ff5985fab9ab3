// Constant tables made of parts: a record's fields from its identity,
// counter lists and generated groups; the protocol's endpoints from each
// module's. Pure.
#pragma once

#include <array>
#include <cstddef>

namespace pmdfwd {

template <class P>
struct part_size;
template <class T, size_t N>
struct part_size<T[N]> {
    static constexpr size_t value = N;
};
template <class T, size_t N>
struct part_size<std::array<T, N>> {
    static constexpr size_t value = N;
};

// The parts (arrays of T) one after another.
template <class T, class... Parts>
constexpr std::array<T, (part_size<Parts>::value + ...)> join(const Parts&... parts) {
    std::array<T, (part_size<Parts>::value + ...)> all{};
    size_t i = 0;
    const auto append = [&](const auto& part) {
        for (const auto& x : part) all[i++] = x;
    };
    (append(parts), ...);
    return all;
}

}  // namespace pmdfwd
