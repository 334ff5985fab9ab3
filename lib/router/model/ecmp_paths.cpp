// Weighted rendezvous hashing of buckets onto paths (see ecmp_paths.hpp).
#include "ecmp_paths.hpp"

#include <cmath>
#include <vector>

namespace pmdfwd {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// What names a path (its gateway and port; not its weight, so that a
// reweighted path keeps the buckets its new weight still wins).
uint64_t path_key(const EcmpPath& p) {
    uint64_t h = mix(uint64_t(p.port) << 8 | (p.via ? uint64_t(p.via->family) + 1 : 0));
    if (p.via)
        for (size_t i = 0; i < p.via->bytes.size(); i += 8) {
            uint64_t word = 0;
            for (size_t k = 0; k < 8; ++k) word = word << 8 | p.via->bytes[i + k];
            h = mix(h ^ word);
        }
    return h;
}

}  // namespace

EcmpBuckets ecmp_buckets(std::span<const EcmpPath> paths) {
    EcmpBuckets buckets{};
    std::vector<uint64_t> keys;
    keys.reserve(paths.size());
    for (const EcmpPath& p : paths) keys.push_back(path_key(p));
    for (unsigned b = 0; b < kEcmpBuckets; ++b) {
        double best = -1;
        for (size_t i = 0; i < paths.size() && i < kMaxEcmpPaths; ++i) {
            // A uniform draw in (0, 1) for this bucket and path; the score
            // w / -ln(u) is highest for path i with probability w_i / sum w.
            const uint64_t h = mix(keys[i] ^ mix(b + 1));
            const double u = (double(h >> 11) + 0.5) * 0x1.0p-53;
            const double score = double(paths[i].weight ? paths[i].weight : 1) / -std::log(u);
            if (score > best) {
                best = score;
                buckets[b] = uint8_t(i);
            }
        }
    }
    return buckets;
}

}  // namespace pmdfwd
