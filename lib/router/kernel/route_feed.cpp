// A kernel routing table as a feed of changes (see route_feed.hpp).
#include "route_feed.hpp"

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace pmdfwd {

namespace {

// Big enough for the largest datagram the kernel sends on a route socket
// (a dump packs many messages in one).
constexpr size_t kBufferSize = 64 * 1024;

Error netlink_error(const std::string& what) {
    const int e = errno;
    return make_error("kernel routes: " + what + ": " + std::strerror(e), -e);
}

struct Callback {
    const RouteFeed::OnMessage* fn;
};

int each_message(const nlmsghdr* nlh, void* data) {
    (*static_cast<Callback*>(data)->fn)(nlh);
    return MNL_CB_OK;
}

}  // namespace

Result<std::unique_ptr<RouteFeed>> RouteFeed::open(size_t receive_buffer) {
    mnl_socket* changes = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (!changes) return netlink_error("socket");
    const unsigned groups = 0;
    if (mnl_socket_bind(changes, groups, MNL_SOCKET_AUTOPID) < 0) {
        auto e = netlink_error("bind");
        mnl_socket_close(changes);
        return e;
    }
    for (const int group : {RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE, RTNLGRP_NEXTHOP}) {
        if (mnl_socket_setsockopt(changes, NETLINK_ADD_MEMBERSHIP, const_cast<int*>(&group),
                                  sizeof group) < 0) {
            auto e = netlink_error("join group " + std::to_string(group));
            mnl_socket_close(changes);
            return e;
        }
    }
    // Past net.core.rmem_max too when the process may (CAP_NET_ADMIN).
    const int size = int(receive_buffer);
    if (setsockopt(mnl_socket_get_fd(changes), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
        setsockopt(mnl_socket_get_fd(changes), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    mnl_socket* dumps = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
    if (!dumps || mnl_socket_bind(dumps, 0, MNL_SOCKET_AUTOPID) < 0) {
        auto e = netlink_error("dump socket");
        if (dumps) mnl_socket_close(dumps);
        mnl_socket_close(changes);
        return e;
    }
    return std::unique_ptr<RouteFeed>(new RouteFeed(changes, dumps));
}

RouteFeed::RouteFeed(mnl_socket* changes, mnl_socket* dumps)
    : changes_(changes),
      dumps_(dumps),
      dump_port_id_(mnl_socket_get_portid(dumps)),
      buffer_(kBufferSize) {}

RouteFeed::~RouteFeed() {
    mnl_socket_close(changes_);
    mnl_socket_close(dumps_);
}

RouteFeed::Read RouteFeed::read_changes(unsigned budget, const OnMessage& on_message) {
    unsigned seen = 0;
    while (seen < budget) {
        const ssize_t n = mnl_socket_recvfrom(changes_, buffer_.data(), buffer_.size());
        if (n < 0) {
            if (errno == ENOBUFS) return Read::overrun;
            return Read::done;  // EAGAIN: nothing waits
        }
        // Notifications: every message of the datagram, whatever its
        // sequence number.
        int left = int(n);
        for (auto* nlh = reinterpret_cast<const nlmsghdr*>(buffer_.data()); mnl_nlmsg_ok(nlh, left);
             nlh = mnl_nlmsg_next(nlh, &left)) {
            on_message(nlh);
            ++seen;
        }
    }
    return Read::more;
}

Status RouteFeed::dump(uint16_t type, uint8_t family, const OnMessage& on_message) {
    char request[MNL_SOCKET_BUFFER_SIZE];
    nlmsghdr* nlh = mnl_nlmsg_put_header(request);
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    nlh->nlmsg_seq = sequence_++;
    if (type == RTM_GETNEXTHOP) {
        auto* nhm = static_cast<nhmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(nhmsg)));
        nhm->nh_family = family;
    } else {
        auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
        rtm->rtm_family = family;
    }
    if (mnl_socket_sendto(dumps_, nlh, nlh->nlmsg_len) < 0) return netlink_error("dump request");
    Callback cb{&on_message};
    for (;;) {
        const ssize_t n = mnl_socket_recvfrom(dumps_, buffer_.data(), buffer_.size());
        if (n < 0) return netlink_error("dump");
        const int rc =
            mnl_cb_run(buffer_.data(), size_t(n), nlh->nlmsg_seq, dump_port_id_, each_message, &cb);
        if (rc == MNL_CB_STOP) return Ok{};
        if (rc == MNL_CB_ERROR) {
            // A kernel without next-hop objects refuses their dump: none.
            if (type == RTM_GETNEXTHOP && (errno == EINVAL || errno == EOPNOTSUPP)) return Ok{};
            return netlink_error("dump");
        }
    }
}

Status RouteFeed::read_table(const OnMessage& on_message) {
    while (mnl_socket_recvfrom(changes_, buffer_.data(), buffer_.size()) >= 0 || errno == ENOBUFS ||
           errno == EINTR) {
    }
    if (auto st = dump(RTM_GETNEXTHOP, AF_UNSPEC, on_message); !st) return st;
    for (const uint8_t family : {uint8_t(AF_INET), uint8_t(AF_INET6)})
        if (auto st = dump(RTM_GETROUTE, family, on_message); !st) return st;
    return Ok{};
}

}  // namespace pmdfwd
