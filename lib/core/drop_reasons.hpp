// Every reason a worker drops a packet, declared once. Stats, telemetry, the
// CLI and docs/cli.md all read this table (VPP error tables, OVS coverage).
#pragma once

#include <cstddef>

namespace pmdfwd {

#define PMDFWD_DROP_REASONS(X)                                                                     \
    X(tx_full, "the TX ring stayed full after tx_retries extra tx_burst calls")                    \
    X(handoff_full, "the handoff ring to the owner of the output TX queue was full")               \
    X(no_route, "the rx port is the source of no forwarding pair")                                 \
    X(runt, "l2 mode: the first segment is shorter than an Ethernet header")                       \
    X(oversize, "longer than the output port's mtu allows (mtu + Ethernet header + one VLAN tag)") \
    X(link_down,                                                                                   \
      "the TX queue took no more while the output port's link was down or its interface gone")

enum class DropReason : unsigned {
#define PMDFWD_DROP_ENUM(name, help) name,
    PMDFWD_DROP_REASONS(PMDFWD_DROP_ENUM)
#undef PMDFWD_DROP_ENUM
        count
};

constexpr size_t kDropReasonCount = static_cast<size_t>(DropReason::count);

struct DropReasonInfo {
    const char* name;
    const char* help;
};

constexpr DropReasonInfo kDropReasons[kDropReasonCount] = {
#define PMDFWD_DROP_INFO(name, help) {#name, help},
    PMDFWD_DROP_REASONS(PMDFWD_DROP_INFO)
#undef PMDFWD_DROP_INFO
};

}  // namespace pmdfwd
