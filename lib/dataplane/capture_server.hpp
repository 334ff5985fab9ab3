// The rte_pdump server that lets a stock dpdk-dumpcap, a DPDK secondary
// process, capture from pmdfwd's ports: its requests add (and remove) rx and
// tx callbacks that copy matching packets into the capture's own pool and
// ring, so pmdfwd's mbufs are only read. Opened and closed on the main lcore.
#pragma once

#include <memory>

#include "error.hpp"

namespace pmdfwd {

class CaptureServer {
  public:
    // rte_pdump_init: from here on, dumpcap's requests are served.
    static Result<std::unique_ptr<CaptureServer>> open();
    // rte_pdump_uninit. It frees the statistics that a capture's callbacks
    // update on every burst, and a capture still attached keeps its
    // callbacks: close only once no thread receives or transmits any more
    // (workers stopped, rx queues drained, the log channel gone), and before
    // the ports close.
    ~CaptureServer();
    CaptureServer(const CaptureServer&) = delete;
    CaptureServer& operator=(const CaptureServer&) = delete;

  private:
    CaptureServer() = default;
};

}  // namespace pmdfwd
