// Router mode's ICMP errors (RFC 1812 4.3, RFC 4443; see router.hpp): time
// exceeded, unreachable and parameter problem about a packet the workers
// dropped or the control path could not deliver, from our address on the
// port it came in by, a token bucket per port and family. The control
// path thread; the packet an error is about stays the caller's.
#include <cstring>

#include "icmp_packet.hpp"
#include "l3_header.hpp"
#include "router.hpp"
#include "router_frames.hpp"
#include "wire_headers.hpp"

namespace pmdfwd {

// The ICMP error about m, from our address on the port it came in by, back
// to the hop it came from; m stays the caller's. Every error not sent is
// counted by why: vetoed, unsendable, rate limited (a bucket per port and
// family), no buffer; the workers count theirs (icmp_errors_gated,
// icmp_errors_punt_full).
void Router::send_icmp_error(rte_mbuf* m, int port, IcmpError error) {
    const auto frame = frame_of(m);
    if (port < 0 || ports_[size_t(port)].control_queue < 0) {
        counters_.icmp_errors_unsendable++;
        return;
    }
    if (const IcmpErrorVeto veto = may_send_icmp_error(frame, to_subnet_broadcast(frame));
        veto != IcmpErrorVeto::none) {
        counters_.icmp_errors_vetoed++;
        counters_.icmp_errors_vetoed_by.count(veto);
        return;
    }
    const L3Header h = parse_l3_header(frame, m->pkt_len, true);
    const IpFamily family = h.ethertype == kEtherTypeIpv4 ? IpFamily::v4 : IpFamily::v6;
    const IpAddress* from = address_on(port, family, nullptr);
    if (!from) {
        counters_.icmp_errors_unsendable++;
        return;
    }
    // The bucket takes rate 0 as no limit; l3.icmp_rate_limit 0 sends none.
    TokenBucket& bucket = icmp_buckets_[size_t(port) * 2 + (family == IpFamily::v6)];
    if (icmp_rate_limit_ == 0 || !bucket.take(now_ms() * 1000000)) {
        counters_.icmp_errors_rate_limited++;
        return;
    }
    rte_mbuf* e = alloc_frame();
    if (!e) {
        counters_.icmp_errors_no_buffer++;
        return;
    }
    MacAddr back;
    std::memcpy(back.bytes.data(), EtherHeaderView(frame.data()).src_addr(), 6);
    const uint32_t pointer =
        error == IcmpError::parameter_problem && family == IpFamily::v4 && h.l3_header_len
            ? uint32_t(ipv4_option_problem(frame.data() + h.l3_offset, h.l3_header_len))
            : 0;
    const size_t len =
        build_icmp_error({rte_pktmbuf_mtod(e, uint8_t*), rte_pktmbuf_tailroom(e)}, error, frame,
                         *from, EtherPort{ports_[size_t(port)].mac, std::nullopt}, back, pointer);
    if (len == 0) {
        counters_.icmp_errors_vetoed++;
        return rte_pktmbuf_free(e);
    }
    e->data_len = e->pkt_len = uint32_t(len);
    counters_.icmp_errors_sent++;
    transmit(port, e);
}

}  // namespace pmdfwd
