// A NETLINK_ROUTE socket (Debian's libmnl) for what the router asks of the
// kernel: an interface's addresses now, its routing tables later. Requests
// wait for the kernel's acknowledgement, so a refusal is an Error naming
// what was asked. The control path's thread or the main lcore; no DPDK.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "error.hpp"
#include "ip_prefix.hpp"

struct mnl_socket;
struct nlmsghdr;

namespace pmdfwd {

class RouteNetlink {
  public:
    static Result<std::unique_ptr<RouteNetlink>> open();
    ~RouteNetlink();
    RouteNetlink(const RouteNetlink&) = delete;
    RouteNetlink& operator=(const RouteNetlink&) = delete;

    // The address on the interface, with its prefix length; an IPv6 one
    // without duplicate address detection (the port answers for it
    // already). One that is there already is no error.
    Status add_address(unsigned ifindex, const IpPrefix& address);

  private:
    explicit RouteNetlink(mnl_socket* socket);
    // Sends one request and reads until its acknowledgement.
    Status request(nlmsghdr* message, const std::string& what);

    mnl_socket* socket_;
    uint32_t port_id_;
    uint32_t sequence_ = 1;
};

}  // namespace pmdfwd
