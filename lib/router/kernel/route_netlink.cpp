// NETLINK_ROUTE requests (see route_netlink.hpp).
#include "route_netlink.hpp"

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace pmdfwd {

Result<std::unique_ptr<RouteNetlink>> RouteNetlink::open() {
    mnl_socket* s = mnl_socket_open(NETLINK_ROUTE);
    if (!s) return make_error(std::string("netlink: socket: ") + std::strerror(errno), -errno);
    if (mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
        const int e = errno;
        mnl_socket_close(s);
        return make_error(std::string("netlink: bind: ") + std::strerror(e), -e);
    }
    return std::unique_ptr<RouteNetlink>(new RouteNetlink(s));
}

RouteNetlink::RouteNetlink(mnl_socket* socket)
    : socket_(socket), port_id_(mnl_socket_get_portid(socket)) {}

RouteNetlink::~RouteNetlink() { mnl_socket_close(socket_); }

Status RouteNetlink::request(nlmsghdr* message, const std::string& what) {
    message->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
    message->nlmsg_seq = sequence_++;
    if (mnl_socket_sendto(socket_, message, message->nlmsg_len) < 0)
        return make_error("netlink: " + what + ": " + std::strerror(errno), -errno);
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    for (;;) {
        const ssize_t n = mnl_socket_recvfrom(socket_, buf.data(), buf.size());
        if (n < 0) return make_error("netlink: " + what + ": " + std::strerror(errno), -errno);
        // An acknowledgement is an error message with error 0; mnl_cb_run
        // turns a nonzero one into -1 with errno set.
        const int rc =
            mnl_cb_run(buf.data(), size_t(n), message->nlmsg_seq, port_id_, nullptr, nullptr);
        if (rc == MNL_CB_ERROR)
            return make_error("netlink: " + what + ": " + std::strerror(errno), -errno);
        if (rc == MNL_CB_STOP) return Ok{};
    }
}

Status RouteNetlink::add_address(unsigned ifindex, const IpPrefix& address) {
    char buf[MNL_SOCKET_BUFFER_SIZE];
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_NEWADDR;
    nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
    auto* ifa = static_cast<ifaddrmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifaddrmsg)));
    const bool v4 = address.address.family == IpFamily::v4;
    ifa->ifa_family = v4 ? AF_INET : AF_INET6;
    ifa->ifa_prefixlen = address.length;
    ifa->ifa_scope = RT_SCOPE_UNIVERSE;
    ifa->ifa_index = ifindex;
    const size_t len = v4 ? 4 : 16;
    mnl_attr_put(nlh, IFA_LOCAL, len, address.address.bytes.data());
    mnl_attr_put(nlh, IFA_ADDRESS, len, address.address.bytes.data());
    if (!v4) ifa->ifa_flags = IFA_F_NODAD;
    mnl_attr_put_u32(nlh, IFA_FLAGS, v4 ? 0 : IFA_F_NODAD);
    const Status st = request(nlh, "add address " + address.to_string());
    if (!st && st.error().code == -EEXIST) return Ok{};
    return st;
}

}  // namespace pmdfwd
