// Router mode's packets to its own addresses (see router.hpp): echo
// requests answered in place; on a port with a kernel interface the rest
// goes to the kernel, else UDP is answered with port unreachable and the
// rest dropped and counted (local_dropped). The control path thread.
#include "icmp_packet.hpp"
#include "l3_header.hpp"
#include "router.hpp"
#include "router_frames.hpp"
#include "wire_bytes.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

// To one of our addresses (or, with a kernel interface, a link-scope
// group): echo requests are answered in place; the kernel interface takes
// the rest if the port has one; else UDP gets port unreachable (traceroute
// to the router) and the rest is dropped. A
// subnet's network or broadcast address is no host's: nothing is answered
// from it (the workers drop such packets already; this holds for any
// other way in).
void Router::handle_to_us(rte_mbuf* m, int port) {
    if (to_subnet_broadcast(frame_of(m))) {
        counters_.local_dropped++;
        return rte_pktmbuf_free(m);
    }
    const EchoReply r = make_echo_reply_in_place(frame_of(m));
    if (r.reject == EchoReject::none && port >= 0 && ports_[size_t(port)].control_queue >= 0) {
        rte_pktmbuf_trim(m, uint16_t(rte_pktmbuf_data_len(m) - r.frame_len));
        m->pkt_len = m->data_len;
        counters_.echo_replies++;
        return transmit(port, m);
    }
    counters_.echo_rejected.count(r.reject);
    if (kernel_of(port)) {
        to_kernel(port, m);
        return rte_pktmbuf_free(m);
    }
    const auto frame = frame_of(m);
    const L3Header h = parse_l3_header(frame, m->pkt_len, true);
    const uint8_t* ip = frame.data() + h.l3_offset;
    const uint8_t proto = h.l3_header_len == 0            ? 0
                          : h.ethertype == kEtherTypeIpv4 ? Ipv4HeaderView(ip).next_proto_id()
                                                          : Ipv6HeaderView(ip).proto();
    if (proto == kIpProtoUdp) send_icmp_error(m, port, IcmpError::port_unreachable);
    counters_.local_dropped++;
    rte_pktmbuf_free(m);
}

// Whether an IPv4 packet is to one of our subnets' network or broadcast
// addresses, which the bytes alone cannot show.
bool Router::to_subnet_broadcast(std::span<const uint8_t> frame) const {
    const L3Header h = parse_l3_header(frame, uint32_t(frame.size()), true);
    if (h.ethertype != kEtherTypeIpv4 || h.l3_header_len == 0) return false;
    return own_.is_subnet_broadcast(
        load_be32(Ipv4HeaderView(frame.data() + h.l3_offset).dst_addr()));
}

}  // namespace pmdfwd
