// The appliance configuration as plain structs with in-class defaults.
// Filled by config_loader (TOML), checked by plan; no DPDK headers here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "l3_config.hpp"
#include "mac_addr.hpp"
#include "netlog_format.hpp"
#include "source_loc.hpp"
#include "udp_frame.hpp"

namespace pmdfwd {

// Ports one process can have: RTE_MAX_ETHPORTS in Debian's DPDK 22.11 build
// (main.cpp checks it against the header).
constexpr size_t kMaxPorts = 32;

struct EalConfig {
    std::string lcores = "0-2";  // EAL --lcores syntax; first lcore is the main (control) lcore
    uint32_t memory_mb = 512;
    bool hugepages = false;
    std::string file_prefix = "pmdfwd";
    std::vector<std::string> extra_args;
    SourceLoc lcores_loc;
    SourceLoc memory_mb_loc;
    SourceLoc hugepages_loc;
    SourceLoc extra_args_loc;
};

// How the workers that send to a port share its TX queues.
enum class TxMode {
    auto_select,  // "auto": per-worker queues when the device has enough, else owner
    per_worker,   // "per-worker": every sending worker has its own TX queue
    owner,        // "owner": each TX queue is owned by one worker; others hand off to it
};

// How a worker waits when its queues are empty.
enum class PollMode {
    busy,       // spin on rx_burst forever: lowest latency, owns its core
    adaptive,   // spin while traffic flows; after idle_polls empty polls pause, then sleep
    interrupt,  // after idle_polls empty polls arm rx interrupts and wait on them
};

struct PortConfig {
    std::string name;
    std::string devargs;
    uint16_t rx_queues = 1;
    uint16_t rx_desc = 1024;
    uint16_t tx_desc = 1024;
    uint16_t mtu = 1500;
    bool promiscuous = true;
    TxMode tx = TxMode::auto_select;
    // Poll mode of the workers of this port's rx queues: empty takes
    // [poll] mode; one entry applies to every queue; else one per queue.
    std::vector<PollMode> poll;
    // l3 mode: the port's interface addresses, each with its subnet's
    // length ("10.0.0.1/24"); their subnets are connected routes.
    std::vector<IpPrefix> addresses;
    std::vector<SourceLoc> address_locs;
    // l3 mode: the kernel interface that stands for the port (a TAP device
    // of this name); empty: none.
    std::string kernel_interface;
    SourceLoc kernel_interface_loc;
    SourceLoc loc;  // the [[port]] table header
    SourceLoc devargs_loc;
    SourceLoc tx_loc;
    SourceLoc poll_loc;

    PollMode poll_of_queue(uint16_t q, PollMode global) const {
        if (poll.empty()) return global;
        return poll.size() == 1 ? poll.front() : poll.at(q);
    }
};

enum class ForwardMode { patch, l2, l3 };

struct ForwardPair {
    std::string from;
    std::string to;
    SourceLoc loc;
};

struct ForwardConfig {
    ForwardMode mode = ForwardMode::patch;
    uint16_t burst = 32;
    uint16_t tx_retries = 2;       // extra tx_burst calls for a partly sent burst before dropping
    uint32_t handoff_ring = 1024;  // slots of each (sender, owner) handoff ring
    // Per-worker residence-time histogram: one TSC read per poll, about 3% of
    // the rate on a null device, so off unless asked for.
    bool latency = false;
    // Patch mode reads each frame's length, for the byte counts and the
    // oversize test: a few percent of the rate at 64 bytes. false: it never
    // touches a frame, like testpmd's io mode.
    bool read_lengths = true;
    std::vector<ForwardPair> pairs;
    std::map<std::string, MacAddr> next_hop_mac;  // output port name -> next hop (l2 mode)
    SourceLoc mode_loc;
    SourceLoc next_hop_loc;
};

// Empty polls in a row before a worker backs off, when [poll] idle_polls is
// not set. Adaptive waits long (about 1 ms of polling an empty memif queue),
// so that traffic of a few thousand packets per second keeps it spinning;
// interrupt arms soon, as l3fwd-power does: it exists to give the core back.
constexpr uint32_t kAdaptiveIdlePolls = 50000;
constexpr uint32_t kInterruptIdlePolls = 200;

struct PollConfig {
    PollMode mode = PollMode::busy;  // for every worker whose port does not say
    uint32_t idle_polls = 0;         // 0: kAdaptiveIdlePolls / kInterruptIdlePolls
    uint32_t max_sleep_us = 1000;    // adaptive: longest single sleep
    SourceLoc mode_loc;

    uint32_t idle_polls_for(PollMode m) const {
        if (idle_polls) return idle_polls;
        return m == PollMode::interrupt ? kInterruptIdlePolls : kAdaptiveIdlePolls;
    }
};

enum class PoolModel {
    recycle,           // one pool per worker on the pmdfwd_recycle driver
    shared,            // one stock DPDK pool (default ops) for all workers
    per_worker_stock,  // one stock DPDK pool per worker
};

// The smallest [pool] data_room: with RTE_PKTMBUF_HEADROOM's 128 before
// the data, every received frame has 128 bytes of buffer from its start
// whatever its length (the router's plain path reads a header's worth
// before its length test).
constexpr uint16_t kMinDataRoom = 256;

struct PoolConfig {
    // The default is the model no topology measured slower than DPDK's
    // stock pool (docs/performance.md, "The handoff step by step"): recycle
    // costs 0.86-0.93 x stock where buffers are freed on another core.
    PoolModel model = PoolModel::per_worker_stock;
    SourceLoc model_loc;    // where [pool] model was set; line 0: the default
    uint32_t mbufs = 8192;  // per pool: per worker, or the one pool of model "shared"
    uint32_t cache = 256;
    uint16_t data_room = 2176;  // includes RTE_PKTMBUF_HEADROOM
    bool color = true;          // cache-colour mbufs within their pages
    SourceLoc loc;              // the [pool] table, for sizing errors
    SourceLoc mbufs_loc, data_room_loc;
};

struct ControlConfig {
    bool telemetry = true;
    uint32_t stats_log_interval_s = 0;  // 0: no periodic stats line in the log
    // The telemetry socket: a client that sends nothing this long is closed,
    // and past max_clients the longest-idle one makes room for a newcomer.
    uint32_t telemetry_idle_s = 60;
    uint32_t telemetry_max_clients = 256;
    // The Prometheus endpoint (http://<metrics>/metrics); empty: none. Only a
    // loopback address unless metrics_allow_remote: it has no authentication.
    std::string metrics;
    bool metrics_allow_remote = false;
    // Who may scrape: clients whose address lies in one of these; empty:
    // any that can reach the address.
    std::vector<IpPrefix> metrics_allow;
    // A worker loop gap longer than this is a stall: counted, and logged at
    // most once a second; the systemd watchdog is not fed while one lasts.
    uint32_t stall_us = 10000;
    // Serve rte_pdump, so that a stock dpdk-dumpcap (a secondary process)
    // can capture from the ports: needs hugepages, kept linked in hugetlbfs.
    bool capture = false;
    SourceLoc capture_loc;
};

struct LogConfig {
    std::string level = "info";
    std::string file;  // empty: console only
    SourceLoc file_loc;
};

// How a log record gets its buffer: "pool-first" takes a pre-filled one and
// refills in the background (the default); "alloc-first" allocates, and tops
// the pre-filled stack up inline, as netpoll did before it changed: kept for
// the benchmark that compares them.
enum class NetlogSendPath { pool_first, alloc_first };

// Descriptors of the log channel's TX queue: few, so that a device that frees
// sent buffers late cannot keep much of the reserve.
constexpr uint16_t kNetlogTxDesc = 128;

struct NetlogConfig {
    bool enabled = false;
    std::string port;  // a configured [[port]]: the channel gets its own TX queue there
    Ipv4Addr src_ip, dst_ip;
    MacAddr dst_mac;
    uint16_t src_port = 6665;  // netconsole's defaults
    uint16_t dst_port = 6666;
    std::string level = "info";  // lowest level sent
    NetlogFormat format = NetlogFormat::extended;
    SyslogFacility facility = SyslogFacility::daemon;  // rfc5424's PRI
    uint32_t reserve = 512;                            // mbufs in the channel's own pool
    uint32_t prefill = 64;       // of those, kept pre-filled with headers, ready to send
    uint32_t rate_limit = 2000;  // datagrams per second; 0: no limit
    uint32_t rate_burst = 200;   // datagrams that may go at once after a quiet spell
    NetlogSendPath send_path = NetlogSendPath::pool_first;
    SourceLoc loc;  // the [netlog] table
    SourceLoc port_loc;
};

struct Config {
    std::string source_name;  // file the config came from, for messages
    EalConfig eal;
    std::vector<PortConfig> ports;
    ForwardConfig forward;
    PollConfig poll;
    PoolConfig pool;
    ControlConfig control;
    LogConfig log;
    NetlogConfig netlog;
    std::vector<RouteConfig> routes;
    std::vector<NeighbourConfig> neighbours;
    L3Config l3;
    SourceLoc l3_loc;

    const PortConfig* find_port(const std::string& name) const {
        for (const auto& p : ports)
            if (p.name == name) return &p;
        return nullptr;
    }
};

const char* to_string(ForwardMode mode);
const char* to_string(TxMode mode);
const char* to_string(PollMode mode);
const char* to_string(PoolModel model);
const char* to_string(NetlogFormat format);
const char* to_string(SyslogFacility facility);
const char* to_string(NetlogSendPath path);

}  // namespace pmdfwd
