// A traced packet in words (see trace_text.hpp).
#include "trace_text.hpp"

#include <cstring>
#include <span>

#include "drop_reasons.hpp"
#include "header_text.hpp"
#include "l3_next_hop.hpp"
#include "mac_addr.hpp"
#include "router_counters.hpp"

namespace pmdfwd {

namespace {

std::string mac_text(const uint8_t* b) {
    MacAddr m;
    std::copy(b, b + 6, m.bytes.begin());
    return m.to_string();
}

// "02:..:02 from 02:..:01": a rewrite's destination and source.
std::string macs_text(const uint8_t* dst_src) {
    return mac_text(dst_src) + " from " + mac_text(dst_src + 6);
}

std::string class_text(const TraceStep& s) {
    std::string t;
    switch (TraceClass(s.code)) {
        case TraceClass::ipv4:
            t = "IPv4, to be routed";
            break;
        case TraceClass::ipv6:
            t = "IPv6, to be routed";
            break;
        case TraceClass::control:
            return "ARP or neighbour discovery: the control path's";
        case TraceClass::link_group:
            return "to a link-scope group: the kernel interface's";
        case TraceClass::refused:
            return "refused: " + std::string(to_string(DropReason(s.value)));
    }
    if (s.flag) t += "; TTL or hop limit 1: expires unless it is to the router";
    if (DropReason(s.value) != DropReason::count)
        t += "; " + std::string(to_string(DropReason(s.value))) + " unless it is to the router";
    return t;
}

std::string hop_text(const TraceStep& s, const TracePortNames& ports) {
    const std::string hop = "next hop " + std::to_string(s.value) + ": ";
    switch (NextHopKind(s.code)) {
        case NextHopKind::forward:
            return hop + "forward on " + ports.of_index(s.port) + " to " + macs_text(s.mac);
        case NextHopKind::local:
            return hop + "local: one of the router's addresses";
        case NextHopKind::resolve:
            return hop + "on " + ports.of_index(s.port) + ", its neighbour has no MAC yet";
        case NextHopKind::unreachable:
            return hop + "none: no route";
        case NextHopKind::group:
            return hop + "an equal-cost group";
    }
    return hop + "?";
}

std::string drop_text(const TraceStep& s) {
    std::string t(to_string(DropReason(s.code)));
    constexpr std::string_view kIcmp[] = {"", "; its ICMP error went to the control path",
                                          "; its ICMP error was held back by the rate limit",
                                          "; its ICMP error was lost: the punt ring was full"};
    if (s.flag < std::size(kIcmp)) t += kIcmp[s.flag];
    return t;
}

std::string step_text(const TraceRecord& r, const TraceStep& s, const TracePortNames& ports) {
    switch (s.kind) {
        case TraceStepKind::received:
            return "worker " + std::to_string(r.worker) + ", port " + ports.of_ethdev(s.port) +
                   ", queue " + std::to_string(s.queue) + ", " + std::to_string(r.pkt_len) +
                   " bytes";
        case TraceStepKind::classified:
            return class_text(s);
        case TraceStepKind::looked_up:
            return hop_text(s, ports);
        case TraceStepKind::rewritten:
            return "MACs now " + macs_text(s.mac);
        case TraceStepKind::handed_off:
            return "to the worker of port " + ports.of_ethdev(s.port) + " TX queue " +
                   std::to_string(s.queue);
        case TraceStepKind::punted:
            return std::string(to_string(PuntReason(s.code)));
        case TraceStepKind::transmitted:
            return "port " + ports.of_ethdev(s.port) + ", TX queue " + std::to_string(s.queue);
        case TraceStepKind::dropped:
            return drop_text(s);
    }
    return "?";
}

// Header text in rows of at most max bytes, cut after a ", ".
void add_header_rows(const std::string& text, size_t max, std::vector<TraceRow>& rows) {
    size_t from = 0;
    while (from < text.size()) {
        size_t len = text.size() - from;
        if (len > max) {
            const size_t cut = text.rfind(", ", from + max - 1);
            len = cut != std::string::npos && cut > from ? cut + 2 - from : max;
        }
        std::string piece = text.substr(from, len);
        while (!piece.empty() && (piece.back() == ' ' || piece.back() == ',')) piece.pop_back();
        rows.push_back({"headers", std::move(piece)});
        from += len;
    }
}

}  // namespace

std::string TracePortNames::of_index(size_t i) const {
    return i < by_index.size() ? by_index[i] : "#" + std::to_string(i);
}

std::string TracePortNames::of_ethdev(uint16_t id) const {
    for (size_t i = 0; i < ethdev_ids.size(); ++i)
        if (ethdev_ids[i] == id) return by_index[i];
    return "ethdev " + std::to_string(id);
}

std::vector<TraceRow> trace_rows(const TraceRecord& r, const TracePortNames& ports,
                                 size_t max_detail, const RouteNamer& route_of) {
    std::vector<TraceRow> rows;
    const auto add = [&](std::string step, std::string detail) {
        if (detail.size() > max_detail) detail.resize(max_detail);
        rows.push_back({std::move(step), std::move(detail)});
    };
    add_header_rows(header_text(std::span<const uint8_t>(r.head, r.head_len)), max_detail, rows);
    for (unsigned i = 0; i < r.steps && i < kTraceMaxSteps; ++i) {
        add(std::string(to_string(r.step[i].kind)), step_text(r, r.step[i], ports));
        if (r.step[i].kind != TraceStepKind::looked_up || r.dst_family == 0) continue;
        IpAddress dst;
        dst.family = r.dst_family == 4 ? IpFamily::v4 : IpFamily::v6;
        std::memcpy(dst.bytes.data(), r.dst, r.dst_family == 4 ? 4 : 16);
        const std::string route = route_of ? route_of(dst) : std::string();
        add("route", dst.to_string() + (route.empty() ? ": no route now" : " by " + route));
    }
    return rows;
}

}  // namespace pmdfwd
