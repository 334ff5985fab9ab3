// An equal-cost multipath route's paths, spread over kEcmpBuckets buckets
// that a packet's flow hash (flow_hash.hpp) picks from. Each bucket goes
// to the path that scores highest for it, a path's score for a bucket
// depending on nothing but the two and the path's weight (weighted
// rendezvous hashing). So the same paths always give the same buckets,
// whatever came before; a path that goes away gives up only its own
// buckets, each to the next best path, and a path added takes its share
// from the others and nothing more: only the flows of the path that
// changed move. Pure, no DPDK.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <span>

#include "ip_prefix.hpp"

namespace pmdfwd {

// 256 buckets: a path's share is right to within a few percent for up to
// dozens of paths, and a bucket index is the hash's low byte.
constexpr unsigned kEcmpBuckets = 256;
// Paths of one route, at most (more are left out, counted).
constexpr unsigned kMaxEcmpPaths = 64;

struct EcmpPath {
    // none: on-link, each destination its own neighbour.
    std::optional<IpAddress> via;
    uint16_t port = 0;    // config port index
    uint16_t weight = 1;  // relative share of flows, 1 or more
    auto operator<=>(const EcmpPath&) const = default;
};

// buckets[b]: the index into `paths` of bucket b's path. paths: 1 to
// kMaxEcmpPaths of them, weights of 1 or more.
using EcmpBuckets = std::array<uint8_t, kEcmpBuckets>;
EcmpBuckets ecmp_buckets(std::span<const EcmpPath> paths);

}  // namespace pmdfwd
