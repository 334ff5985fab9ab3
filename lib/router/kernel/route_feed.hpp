// A kernel routing table as a feed of changes (NETLINK_ROUTE, libmnl): a
// socket subscribed to IPv4 and IPv6 routes and next-hop objects, read
// without blocking; and a full read of the table (a dump, on a socket of
// its own, so that changes queue meanwhile and none is lost). When the
// kernel had to drop changes because the subscribed socket's buffer was
// full (ENOBUFS), the feed says so: the caller reads the whole table
// again and keeps what did not change. The control path's thread; no DPDK.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "error.hpp"

struct mnl_socket;
struct nlmsghdr;

namespace pmdfwd {

class RouteFeed {
  public:
    // receive_buffer: the subscribed socket's buffer in bytes (forced past
    // the system's rmem_max where allowed); a table that changes faster
    // than the control path reads overruns it.
    static Result<std::unique_ptr<RouteFeed>> open(size_t receive_buffer);
    ~RouteFeed();
    RouteFeed(const RouteFeed&) = delete;
    RouteFeed& operator=(const RouteFeed&) = delete;

    using OnMessage = std::function<void(const nlmsghdr*)>;

    enum class Read : uint8_t { done, more, overrun };
    // Up to `budget` messages waiting on the subscribed socket, each to
    // on_message: done when none is left, more when the budget ran out,
    // overrun when the kernel dropped messages (read the table again).
    Read read_changes(unsigned budget, const OnMessage& on_message);
    // The whole table now: every next-hop object, then every route (IPv4,
    // IPv6), each to on_message, blocking until the kernel is done. The
    // changes queued before it are dropped first: the table holds them, and
    // a socket that overran stays congested (the kernel drops every later
    // change without a word) until its queue is read empty, so the changes
    // made during the dump would be lost.
    Status read_table(const OnMessage& on_message);

  private:
    RouteFeed(mnl_socket* changes, mnl_socket* dumps);
    Status dump(uint16_t type, uint8_t family, const OnMessage& on_message);

    mnl_socket* changes_;
    mnl_socket* dumps_;
    uint32_t dump_port_id_;
    uint32_t sequence_ = 1;
    std::vector<char> buffer_;
};

}  // namespace pmdfwd
