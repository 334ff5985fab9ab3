// Router mode's IPv6 neighbour discovery (RFC 4861; see router.hpp):
// solicitations for our addresses answered, solicitations and
// advertisements from the link learnt. The control path thread; every ND
// packet it is given is freed here, counted as answered or ignored.
#include <cstring>

#include "nd_packet.hpp"
#include "router.hpp"
#include "router_frames.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

void Router::handle_nd(rte_mbuf* m, int port, uint16_t l3_offset, uint64_t now) {
    const auto frame = frame_of(m);
    const EtherPort ether{ports_[size_t(port)].mac, std::nullopt};
    const NdParse nd = parse_nd(frame.subspan(l3_offset));
    if (nd.reject != NdReject::none) {
        counters_.nd_ignored++;
        counters_.nd_rejected.count(nd.reject);
        return rte_pktmbuf_free(m);
    }
    const NdMessage& msg = nd.message;
    const IpAddress* ours = address_on(port, IpFamily::v6, &msg.target);
    const bool for_us = ours && *ours == msg.target;
    if (msg.type == NdType::solicitation) {
        if (msg.link_layer && on_link(port, msg.src))
            neighbours_.learn({uint16_t(port), msg.src}, *msg.link_layer, now,
                              for_us ? NeighbourHeard::request_for_us : NeighbourHeard::other,
                              actions_);
        if (for_us) {
            MacAddr frame_src;
            std::memcpy(frame_src.bytes.data(), EtherHeaderView(frame.data()).src_addr(), 6);
            if (rte_mbuf* na = alloc_frame()) {
                const size_t len = build_neighbor_advertisement(
                    {rte_pktmbuf_mtod(na, uint8_t*), rte_pktmbuf_tailroom(na)}, ether, msg,
                    frame_src);
                na->data_len = na->pkt_len = uint32_t(len);
                transmit(port, na);
                counters_.nd_solicitations_answered++;
            }
        } else {
            counters_.nd_ignored++;
        }
    } else if (msg.link_layer && on_link(port, msg.target)) {
        neighbours_.learn({uint16_t(port), msg.target}, *msg.link_layer, now,
                          msg.solicited_flag ? NeighbourHeard::answer : NeighbourHeard::other,
                          actions_);
    }
    rte_pktmbuf_free(m);
    apply(actions_);
}

}  // namespace pmdfwd
