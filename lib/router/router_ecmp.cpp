// Router mode's equal-cost routes (see router.hpp): one group per set of
// paths, its buckets spread over the paths by rendezvous hashing
// (ecmp_paths.hpp), each bucket holding the next hop its path takes now.
// A neighbour that resolves, changes or goes re-points only its paths'
// buckets; a route whose paths change moves to the group of its new
// paths, whose buckets keep every remaining path's flows where they were.
// The control path thread and telemetry threads, under the router's lock.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "flow_hash.hpp"
#include "l3_header.hpp"
#include "router.hpp"

namespace pmdfwd {

// The next hop a path's buckets hold: its neighbour's when resolved, else
// its port's resolve hop (the control path then resolves the neighbour
// the packet's bucket names).
uint32_t Router::path_hop(const EcmpPath& path) const {
    if (path.via) {
        const auto a = adjacencies_.find({path.port, *path.via});
        if (a != adjacencies_.end()) return a->second.next_hop;
    }
    return resolve_hops_[path.port];
}

Router::EcmpGroup* Router::group_for(std::vector<EcmpPath> paths) {
    std::sort(paths.begin(), paths.end());
    if (const auto it = groups_.find(paths); it != groups_.end()) return &it->second;
    EcmpGroup g;
    g.path_of = ecmp_buckets(paths);
    for (const EcmpPath& p : paths) g.hops.push_back(path_hop(p));
    std::array<uint32_t, kEcmpBuckets> members{};
    for (unsigned b = 0; b < kEcmpBuckets; ++b) members[b] = g.hops[g.path_of[b]];
    auto hop = tables_->add_group(members);
    if (!hop) {
        counters_.ecmp_groups_full++;
        spdlog::warn("{}: an equal-cost route takes its first path only", hop.error().message);
        return nullptr;
    }
    g.next_hop = hop.value();
    auto [it, fresh] = groups_.emplace(std::move(paths), std::move(g));
    it->second.paths = &it->first;
    return &it->second;
}

void Router::release_group(EcmpGroup* group) {
    if (!group || group->routes != 0) return;
    tables_->retire_next_hop(group->next_hop);  // its buckets go with it
    groups_.erase(groups_.find(*group->paths));
}

void Router::repoint_groups(const NeighbourKey& key) {
    for (auto& [paths, g] : groups_)
        for (size_t i = 0; i < paths.size(); ++i) {
            const EcmpPath& p = paths[i];
            if (p.port != key.port || !p.via || *p.via != key.address) continue;
            const uint32_t hop = path_hop(p);
            if (hop == g.hops[i]) continue;
            for (unsigned b = 0; b < kEcmpBuckets; ++b)
                if (g.path_of[b] == i) tables_->set_group_bucket(g.next_hop, b, hop);
            g.hops[i] = hop;
        }
}

// The worker's choice again, from the same bytes (flow_hash.hpp).
const EcmpPath& Router::path_of_packet(const EcmpGroup& group, const rte_mbuf* m) const {
    const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
    const L3Header h = parse_l3_header({f, rte_pktmbuf_data_len(m)}, m->pkt_len, true);
    const uint32_t len = rte_pktmbuf_data_len(m) - h.l3_offset;
    uint32_t hash = 0;
    if (h.ethertype == kEtherTypeIpv4 && h.l3_header_len)
        hash = flow_hash_v4(f + h.l3_offset, len);
    else if (h.ethertype == kEtherTypeIpv6 && h.l3_header_len)
        hash = flow_hash_v6(f + h.l3_offset, len);
    return (*group.paths)[group.path_of[hash % kEcmpBuckets]];
}

}  // namespace pmdfwd
