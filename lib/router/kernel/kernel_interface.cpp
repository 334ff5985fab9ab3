// The kernel interface of a port (see kernel_interface.hpp): a TAP device
// without packet information headers, non-blocking, set up with ioctls and
// (addresses) netlink.
#include "kernel_interface.hpp"

#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "route_netlink.hpp"

namespace pmdfwd {

namespace {

Error errno_error(const std::string& name, const std::string& what) {
    const int e = errno;
    return make_error("kernel interface '" + name + "': " + what + ": " + std::strerror(e), -e);
}

// An ioctl on an interface by name, through a throwaway datagram socket.
bool interface_ioctl(unsigned long request, ifreq& ifr) {
    const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return false;
    const int rc = ioctl(s, request, &ifr);
    const int e = errno;
    close(s);
    errno = e;
    return rc == 0;
}

ifreq named(const std::string& name) {
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, name.data(), std::min(name.size(), size_t(IFNAMSIZ - 1)));
    return ifr;
}

}  // namespace

IpPrefix eui64_link_local(const MacAddr& mac) {
    IpPrefix p;
    p.address.family = IpFamily::v6;
    p.length = 64;
    auto& b = p.address.bytes;
    b[0] = 0xfe;
    b[1] = 0x80;
    b[8] = uint8_t(mac.bytes[0] ^ 0x02);  // the universal/local bit, inverted
    b[9] = mac.bytes[1];
    b[10] = mac.bytes[2];
    b[11] = 0xff;
    b[12] = 0xfe;
    b[13] = mac.bytes[3];
    b[14] = mac.bytes[4];
    b[15] = mac.bytes[5];
    return p;
}

Result<std::unique_ptr<KernelInterface>> KernelInterface::create(
    const std::string& name, const MacAddr& mac, uint16_t mtu, std::span<const IpPrefix> addresses,
    RouteNetlink& netlink) {
    if (name.empty() || name.size() >= IFNAMSIZ)
        return make_error("kernel interface '" + name + "': a name of 1 to " +
                          std::to_string(IFNAMSIZ - 1) + " characters");
    if (if_nametoindex(name.c_str()) != 0)
        return make_error("kernel interface '" + name +
                          "': an interface of that name exists already");
    const int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno_error(name, "open /dev/net/tun");
    std::unique_ptr<KernelInterface> k(new KernelInterface(name, fd));
    ifreq ifr = named(name);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) return errno_error(name, "TUNSETIFF");

    ifr = named(name);
    ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
    std::memcpy(ifr.ifr_hwaddr.sa_data, mac.bytes.data(), 6);
    if (!interface_ioctl(SIOCSIFHWADDR, ifr)) return errno_error(name, "set MAC");
    ifr = named(name);
    ifr.ifr_mtu = mtu;
    if (!interface_ioctl(SIOCSIFMTU, ifr)) return errno_error(name, "set MTU");
    ifr = named(name);
    if (!interface_ioctl(SIOCGIFFLAGS, ifr)) return errno_error(name, "get flags");
    ifr.ifr_flags = short(ifr.ifr_flags | IFF_UP);
    if (!interface_ioctl(SIOCSIFFLAGS, ifr)) return errno_error(name, "set up");
    k->ifindex_ = if_nametoindex(name.c_str());
    if (k->ifindex_ == 0) return errno_error(name, "if_nametoindex");

    if (auto st = netlink.add_address(k->ifindex_, eui64_link_local(mac)); !st)
        return make_error("kernel interface '" + name + "': " + st.error().message,
                          st.error().code);
    for (const IpPrefix& a : addresses)
        if (auto st = netlink.add_address(k->ifindex_, a); !st)
            return make_error("kernel interface '" + name + "': " + st.error().message,
                              st.error().code);
    return k;
}

KernelInterface::~KernelInterface() { close(fd_); }

bool KernelInterface::deliver(std::span<const uint8_t> frame) {
    return ::write(fd_, frame.data(), frame.size()) == ssize_t(frame.size());
}

size_t KernelInterface::take(std::span<uint8_t> into, size_t* full_length) {
    // MSG_TRUNC-like length: readv into the buffer and a spill area tells a
    // cut frame from one that fitted exactly.
    uint8_t spill[64];
    iovec iov[2] = {{into.data(), into.size()}, {spill, sizeof spill}};
    const ssize_t n = ::readv(fd_, iov, 2);
    if (n <= 0) {
        *full_length = 0;
        return 0;
    }
    *full_length = size_t(n);
    return std::min(size_t(n), into.size());
}

void KernelInterface::set_carrier(bool up) {
    if (up == carrier_) return;
    int on = up ? 1 : 0;
    if (ioctl(fd_, TUNSETCARRIER, &on) == 0) carrier_ = up;
}

}  // namespace pmdfwd
