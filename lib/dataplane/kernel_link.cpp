// Links read from the kernel (see kernel_link.hpp). Main lcore.
#include "kernel_link.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

namespace pmdfwd {

namespace {

// nullopt when it cannot be read (out of fds, say): not a fact about the file.
std::optional<std::string> read_small_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    char buf[1024];
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    ::close(fd);
    if (n < 0) return std::nullopt;
    return std::string(buf, size_t(n));
}

// The interface a tun file is attached to (empty: detached); nullopt when
// the fd is no tun file or its fdinfo could not be read.
std::optional<std::string> iff_of_fd(int fd) {
    const auto text = read_small_file("/proc/self/fdinfo/" + std::to_string(fd));
    return text ? tun_fdinfo_iff(*text) : std::nullopt;
}

bool is_tun_file(int fd) {
    char target[64];
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
    return n > 0 && std::string_view(target, size_t(n)) == "/dev/net/tun";
}

// IFF_UP and IFF_RUNNING of `ifname` through `sock`; nullopt when the
// socket's namespace has no such interface.
std::optional<bool> flags_up(int sock, const std::string& ifname) {
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    if (sock < 0 || ::ioctl(sock, SIOCGIFFLAGS, &ifr) != 0) return std::nullopt;
    return (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
}

unsigned long inode_of(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 ? st.st_ino : 0;
}

// A datagram socket in the namespace `ns_fd` names (-1 if none can be made):
// made on a short-lived thread that enters it, since setns would move the
// main lcore itself. It is made anew for every sample and closed after it:
// a socket kept open would keep the namespace alive after `ip netns del`,
// and with it a tap interface that should have gone with the namespace.
int socket_in_namespace(int ns_fd) {
    int fd = -1;
    try {
        std::thread([&] {
            if (::setns(ns_fd, CLONE_NEWNET) == 0)
                fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        }).join();
    } catch (const std::system_error&) {
        return -1;  // no thread to be had: this sample cannot tell
    }
    return fd;
}

}  // namespace

std::optional<std::string> tun_fdinfo_iff(std::string_view fdinfo) {
    constexpr std::string_view kKey = "iff:\t";
    size_t at = 0;
    while (at < fdinfo.size()) {
        const size_t end = std::min(fdinfo.find('\n', at), fdinfo.size());
        const std::string_view line = fdinfo.substr(at, end - at);
        if (line.substr(0, kKey.size()) == kKey) return std::string(line.substr(kKey.size()));
        at = end + 1;
    }
    return std::nullopt;
}

std::optional<TapLinkWatch> TapLinkWatch::find(const std::string& ifname) {
    DIR* dir = ::opendir("/proc/self/fd");
    if (!dir) return std::nullopt;
    std::optional<TapLinkWatch> found;
    while (const dirent* e = ::readdir(dir)) {
        char* end = nullptr;
        const long fd = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || fd == ::dirfd(dir)) continue;
        if (is_tun_file(int(fd)) && iff_of_fd(int(fd)) == ifname) {
            found.emplace(TapLinkWatch(int(fd)));
            break;
        }
    }
    ::closedir(dir);
    return found;
}

std::optional<KernelLink> TapLinkWatch::sample() const {
    const auto iff = iff_of_fd(tun_fd_);
    if (!iff) return std::nullopt;
    if (iff->empty()) return KernelLink{IfaceWhere::gone, false};
    const int ns_fd = ::ioctl(tun_fd_, TUNGETDEVNETNS);
    if (ns_fd < 0) return std::nullopt;  // an old kernel: trust the PMD
    struct stat own {};
    if (::stat("/proc/self/ns/net", &own) == 0 && own.st_ino == inode_of(ns_fd)) {
        ::close(ns_fd);
        return KernelLink{IfaceWhere::here, false};
    }
    const int sock = socket_in_namespace(ns_fd);
    ::close(ns_fd);
    const auto up = flags_up(sock, *iff);
    if (sock >= 0) ::close(sock);
    return KernelLink{IfaceWhere::elsewhere, up.value_or(false)};
}

std::optional<KernelLink> interface_link(const std::string& ifname) {
    const int sock = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0) return std::nullopt;
    const auto up = flags_up(sock, ifname);
    const int err = errno;
    ::close(sock);
    if (up) return KernelLink{IfaceWhere::here, *up};
    if (err == ENODEV) return KernelLink{IfaceWhere::gone, false};
    return std::nullopt;
}

}  // namespace pmdfwd
