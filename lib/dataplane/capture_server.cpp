// rte_pdump_init / rte_pdump_uninit around the appliance's running life (see
// capture_server.hpp). Main lcore.
#include "capture_server.hpp"

#include <rte_errno.h>
#include <rte_pdump.h>

#include "ops_order.hpp"

namespace pmdfwd {

Result<std::unique_ptr<CaptureServer>> CaptureServer::open() {
    // Checked once every pool exists (the coloured ops register with the
    // first pool that needs them).
    if (const std::string problem = mempool_ops_order_problem(); !problem.empty())
        return make_error("capture: " + problem);
    if (rte_pdump_init() != 0)
        return make_error(std::string("capture: rte_pdump_init failed: ") + rte_strerror(rte_errno),
                          -rte_errno);
    return std::unique_ptr<CaptureServer>(new CaptureServer());
}

CaptureServer::~CaptureServer() { rte_pdump_uninit(); }

}  // namespace pmdfwd
