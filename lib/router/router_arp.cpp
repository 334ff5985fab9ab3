// Router mode's ARP (RFC 826; see router.hpp): requests for our IPv4
// addresses answered, senders on the link learnt, replies to our requests
// handed to the neighbour table. The control path thread; every ARP packet
// it is given is freed here, counted as answered or ignored.
#include "arp_packet.hpp"
#include "router.hpp"
#include "router_frames.hpp"

namespace pmdfwd {

void Router::handle_arp(rte_mbuf* m, int port, uint16_t l3_offset, uint64_t now) {
    const auto frame = frame_of(m);
    const EtherPort ether{ports_[size_t(port)].mac, std::nullopt};
    const ArpParse a = parse_arp(frame.subspan(l3_offset));
    const IpAddress target = v4_address(a.packet.target_ip);
    const bool for_us = a.reject == ArpReject::none && address_on(port, IpFamily::v4, &target) &&
                        *address_on(port, IpFamily::v4, &target) == target;
    if (a.reject != ArpReject::none) {
        counters_.arp_ignored++;
        counters_.arp_rejected.count(a.reject);
        return rte_pktmbuf_free(m);
    }
    const IpAddress sender = v4_address(a.packet.sender_ip);
    // A reply to our address answers our request; anything else for us
    // only says the sender is there, which anyone may claim.
    const NeighbourHeard heard = !for_us                       ? NeighbourHeard::other
                                 : a.packet.op == ArpOp::reply ? NeighbourHeard::answer
                                                               : NeighbourHeard::request_for_us;
    if (on_link(port, sender))
        neighbours_.learn({uint16_t(port), sender}, a.packet.sender_mac, now, heard, actions_);
    if (for_us && a.packet.op == ArpOp::request) {
        if (rte_mbuf* reply = alloc_frame()) {
            const size_t len = build_arp_reply(
                {rte_pktmbuf_mtod(reply, uint8_t*), rte_pktmbuf_tailroom(reply)}, ether, a.packet);
            reply->data_len = reply->pkt_len = uint32_t(len);
            transmit(port, reply);
            counters_.arp_requests_answered++;
        }
    } else if (!for_us) {
        counters_.arp_ignored++;
    }
    rte_pktmbuf_free(m);
    apply(actions_);
}

}  // namespace pmdfwd
