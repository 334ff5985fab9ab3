// The link of a port that is a kernel interface, read from the kernel where
// the 22.11 PMD reads it wrong. net_tap asks SIOCGIFFLAGS in pmdfwd's own
// network namespace, so a tap interface moved into another namespace reads
// "down" while it forwards, and a deleted one reads the same as one set down:
// TapLinkWatch finds the tun file the PMD holds for the interface
// (/proc/self/fdinfo names it) and asks the namespace the device is in
// (TUNGETDEVNETNS). net_af_packet says "up" whatever its interface does,
// even after a veth's peer went down or the pair was deleted:
// interface_link() asks the interface itself. Main lcore only; no DPDK.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pmdfwd {

enum class IfaceWhere {
    here,       // in pmdfwd's namespace
    elsewhere,  // a tap interface moved into another namespace; `up` is read there
    gone,       // deleted: every send fails
};

struct KernelLink {
    IfaceWhere where = IfaceWhere::here;
    bool up = false;  // IFF_UP and IFF_RUNNING (TapLinkWatch: elsewhere only)
};

// An interface in pmdfwd's namespace: gone when there is none of that name,
// else up when IFF_UP and IFF_RUNNING (carrier: a veth whose peer is down
// has none); nullopt when the kernel cannot be asked.
std::optional<KernelLink> interface_link(const std::string& ifname);

// The interface name of a tun file's fdinfo text ("iff:\t<name>" line):
// empty for a detached file, nullopt when the text is not a tun file's.
std::optional<std::string> tun_fdinfo_iff(std::string_view fdinfo);

class TapLinkWatch {
  public:
    // Finds a tun file of this process attached to `ifname`; nullopt if none.
    static std::optional<TapLinkWatch> find(const std::string& ifname);

    // gone once the file is detached (its interface deleted, alone or with
    // its namespace); nullopt when this sample cannot tell (the fdinfo could
    // not be read, no TUNGETDEVNETNS): then the PMD's answer stands.
    std::optional<KernelLink> sample() const;

  private:
    explicit TapLinkWatch(int tun_fd) : tun_fd_(tun_fd) {}
    int tun_fd_;  // the PMD's: never closed here
};

}  // namespace pmdfwd
