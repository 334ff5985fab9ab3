// The ethdev counters of one port as pmdfwd reports them. Pure.
#pragma once

#include <cstdint>

namespace pmdfwd {

struct PortStats {
    uint64_t ipackets = 0, opackets = 0, ibytes = 0, obytes = 0;
    uint64_t imissed = 0, ierrors = 0, oerrors = 0, rx_nombuf = 0;

    PortStats minus(const PortStats& b) const {
        return {ipackets - b.ipackets, opackets - b.opackets,  ibytes - b.ibytes,
                obytes - b.obytes,     imissed - b.imissed,    ierrors - b.ierrors,
                oerrors - b.oerrors,   rx_nombuf - b.rx_nombuf};
    }
};

}  // namespace pmdfwd
