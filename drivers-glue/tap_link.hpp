// net_tap's link, read through its kernel interface wherever that lives. The
// 22.11 PMD asks SIOCGIFFLAGS in pmdfwd's own network namespace, so a tap
// interface moved into another namespace reads "down" while it forwards, and
// a deleted one reads the same as one set down. This finds the tun file the
// PMD holds for the interface (/proc/self/fdinfo names it) and asks the
// namespace the device is in (TUNGETDEVNETNS). Main lcore only; no DPDK.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pmdfwd {

enum class TapWhere {
    here,       // in pmdfwd's namespace: the PMD's own link answer is right
    elsewhere,  // moved into another namespace; `up` is read there
    gone,       // deleted: the tun file is detached and every send fails
};

struct TapLink {
    TapWhere where = TapWhere::here;
    bool up = false;  // IFF_UP and IFF_RUNNING (elsewhere only)
};

// The interface name of a tun file's fdinfo text ("iff:\t<name>" line):
// empty for a detached file, nullopt when the text is not a tun file's.
std::optional<std::string> tun_fdinfo_iff(std::string_view fdinfo);

class TapLinkWatch {
public:
    // Finds a tun file of this process attached to `ifname`; nullopt if none.
    static std::optional<TapLinkWatch> find(const std::string& ifname);
    TapLinkWatch(TapLinkWatch&& other) noexcept;
    TapLinkWatch& operator=(TapLinkWatch&&) = delete;
    ~TapLinkWatch();

    TapLink sample();

private:
    explicit TapLinkWatch(int tun_fd) : tun_fd_(tun_fd) {}
    int tun_fd_;             // the PMD's: never closed here
    int ns_socket_ = -1;     // a socket in the namespace the device was last seen in
    unsigned long ns_ino_ = 0;
};

}  // namespace pmdfwd
