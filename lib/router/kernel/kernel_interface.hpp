// A kernel network interface that stands for one of the router's ports
// (`[[port]] kernel_interface`): a TAP device with the port's MAC, MTU and
// addresses, whose carrier follows the port's link. The control path hands
// it what pmdfwd does not answer itself (packets to the router's addresses,
// the link-local groups of routing protocols, a copy of every ARP and ND
// frame) and sends on the port what the kernel sends out of it, so that a
// daemon on the box (BGP, OSPF, BFD, SSH) talks through the port as through
// a kernel port. A TAP file read and written by the control path's own
// thread, not a DPDK port: no queue, lcore or pool of its own, and no
// worker ever touches it. No DPDK.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "error.hpp"
#include "ip_prefix.hpp"
#include "mac_addr.hpp"

namespace pmdfwd {

class RouteNetlink;

class KernelInterface {
  public:
    // Creates the interface, up, with the MAC, MTU and addresses (and the
    // IPv6 link-local address the MAC gives, fe80::/64 by EUI-64, which the
    // router also takes as its own on the port). An interface of that name
    // already there is an error: two owners would steal each other's frames.
    static Result<std::unique_ptr<KernelInterface>> create(const std::string& name,
                                                           const MacAddr& mac, uint16_t mtu,
                                                           std::span<const IpPrefix> addresses,
                                                           RouteNetlink& netlink);
    ~KernelInterface();  // closes the file: the kernel removes the interface
    KernelInterface(const KernelInterface&) = delete;
    KernelInterface& operator=(const KernelInterface&) = delete;

    const std::string& name() const { return name_; }
    unsigned ifindex() const { return ifindex_; }

    // Hands a frame to the kernel as received on the interface; false
    // when the kernel did not take it (its backlog full, the frame refused).
    bool deliver(std::span<const uint8_t> frame);
    // The next frame the kernel sent out of the interface, copied into
    // `into`: its length, 0 when none waits; a frame longer than `into` is
    // cut (and counted by the caller as oversize by its length).
    size_t take(std::span<uint8_t> into, size_t* full_length);
    // The port's link, as the interface's carrier.
    void set_carrier(bool up);
    bool carrier() const { return carrier_; }

  private:
    KernelInterface(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}

    std::string name_;
    int fd_;
    unsigned ifindex_ = 0;
    bool carrier_ = true;
};

// fe80::/64 with the interface identifier of a MAC (RFC 4291 appendix A):
// the link-local address the kernel gives the interface by default too.
IpPrefix eui64_link_local(const MacAddr& mac);

}  // namespace pmdfwd
