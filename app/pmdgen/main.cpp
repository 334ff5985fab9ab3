// pmdgen: a traffic generator and latency probe. Sends numbered, timestamped
// UDP frames on one DPDK port, at a fixed rate or as fast as the device takes
// them, receives what comes back on another (or the same) port, and reports
// loss, reordering, duplicates, one-way latency and jitter once a second and
// at the end. Runs on one lcore: sending and receiving share the loop, so at a
// fixed rate the latency includes at most one loop iteration of its own.
// Exit codes: 0 done, 1 EAL or device failure, 2 bad usage.
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "eal_args.hpp"
#include "pool.hpp"
#include "port.hpp"
#include "report.hpp"
#include "version.hpp"

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

struct Options {
    std::string tx_devargs, rx_devargs;
    uint64_t rate = 0;
    uint16_t size = pmdfwd::kMinProbeFrame;
    uint32_t flows = 1;
    uint16_t burst = 32;
    double duration_s = 10;
    double warmup_s = 0;
    double interval_s = 1;
    uint32_t drain_ms = 200;
    uint32_t link_wait_s = 10;
    bool json = false;
    bool histogram = false;
    std::string file_prefix = "pmdgen";
    unsigned lcore = 0;
    uint32_t memory_mb = 256;
    bool hugepages = false;
    std::string src_mac = "02:00:00:00:00:01", dst_mac = "02:00:00:00:00:02";
    std::string src_ip = "198.18.0.1", dst_ip = "198.18.0.2";
    uint16_t src_port = 1024, dst_port = 9;
};

std::vector<std::string> eal_args(const Options& o) {
    std::vector<std::string> a = {"pmdgen",
                                  "-l",
                                  std::to_string(o.lcore),
                                  "--file-prefix",
                                  o.file_prefix,
                                  "-m",
                                  std::to_string(o.memory_mb),
                                  "--log-level",
                                  "*:warning",
                                  "--no-telemetry"};
    if (!o.hugepages) a.push_back("--no-huge");
    bool pci = false;
    for (const auto* d : {&o.tx_devargs, &o.rx_devargs}) {
        if (d->empty() || (d == &o.rx_devargs && *d == o.tx_devargs)) continue;
        pci = pci || pmdfwd::is_pci_devargs(*d);
        a.insert(a.end(), {pmdfwd::is_pci_devargs(*d) ? "-a" : "--vdev", *d});
    }
    if (!pci) a.push_back("--no-pci");
    return a;
}

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "pmdgen: %s\n", what.c_str());
    std::exit(kExitFailed);
}

std::unique_ptr<pmdfwd::Port> open_port(const std::string& name, const std::string& devargs,
                                        rte_mempool* pool,
                                        std::vector<std::unique_ptr<pmdfwd::Pool>>& pools) {
    static std::vector<pmdfwd::PortConfig> configs;  // the Port keeps a pointer
    configs.reserve(2);
    pmdfwd::PortConfig pc;
    pc.name = name;
    pc.devargs = devargs;
    pc.rx_queues = 1;
    configs.push_back(pc);
    pmdfwd::PortSetup setup;
    setup.config = &configs.back();
    setup.plan.rx_queues = 1;
    setup.plan.tx_queues = 1;
    setup.rx_pools = {pool};
    setup.make_spare_pool = [&, name](uint32_t mbufs) -> pmdfwd::Result<rte_mempool*> {
        auto spare =
            pmdfwd::Pool::create("pmdgen_" + name + "_spare", mbufs, 0, 2176, SOCKET_ID_ANY);
        if (!spare) return spare.error();
        pools.push_back(std::move(spare.value()));
        return pools.back()->mempool();
    };
    auto port = pmdfwd::Port::open(setup);
    if (!port) die(port.error().message);
    return std::move(port.value());
}

void wait_for_links(const std::vector<pmdfwd::Port*>& ports, uint32_t seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (auto* p : ports)
        for (p->watch_link(); p->link() != pmdfwd::LinkState::up; p->watch_link()) {
            if (g_stop.load() || std::chrono::steady_clock::now() > until)
                die("port '" + p->name() + "' (" + p->driver() + ") has no link after " +
                    std::to_string(seconds) + " s: is the other side up?");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
}

pmdfwd::UdpEndpoints endpoints(const Options& o) {
    pmdfwd::UdpEndpoints ep;
    const auto parse_mac = [](const std::string& s, const char* opt) {
        const auto m = pmdfwd::MacAddr::parse(s);
        if (!m) throw CLI::ValidationError(opt, "'" + s + "' is not a MAC address");
        return *m;
    };
    const auto parse_ip = [](const std::string& s, const char* opt) {
        const auto a = pmdfwd::Ipv4Addr::parse(s);
        if (!a) throw CLI::ValidationError(opt, "'" + s + "' is not an IPv4 address");
        return *a;
    };
    ep.src_mac = parse_mac(o.src_mac, "--src-mac");
    ep.dst_mac = parse_mac(o.dst_mac, "--dst-mac");
    ep.src_ip = parse_ip(o.src_ip, "--src-ip");
    ep.dst_ip = parse_ip(o.dst_ip, "--dst-ip");
    ep.src_port = o.src_port;
    ep.dst_port = o.dst_port;
    return ep;
}

// Figures over [base, now) for one report.
pmdgen::Report make_report(const pmdfwd::TrafficGen& gen, const pmdfwd::HistogramSnapshot& lat,
                           uint64_t sent_before, uint64_t received_before, double t_s,
                           double span_s, bool final) {
    pmdgen::Report r;
    r.final = final;
    r.t_s = t_s;
    r.span_s = span_s;
    r.counters = gen.counters();
    const auto& s = gen.sequence();
    r.received = s.received();
    r.unique = s.unique();
    r.reordered = s.reordered();
    r.duplicates = s.duplicates();
    r.late = s.late();
    r.sent_in_span = r.counters.sent - sent_before;
    r.received_in_span = r.received - received_before;
    r.latency = pmdfwd::summarize(lat, rte_get_tsc_hz());
    r.histogram = pmdfwd::histogram_view(lat, rte_get_tsc_hz());
    r.jitter_ns = gen.jitter_cycles() * 1e9 / double(rte_get_tsc_hz());
    return r;
}

void print(const pmdgen::Report& r, bool json) {
    if (json)
        std::cout << pmdgen::report_json(r).dump() << '\n';
    else
        std::cout << pmdgen::report_line(r) << '\n';
    std::cout.flush();
}

int run(const Options& o, const pmdfwd::UdpEndpoints& ep) {
    std::vector<std::string> args = eal_args(o);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    if (rte_eal_init(int(argv.size()), argv.data()) < 0)
        die(std::string("rte_eal_init failed: ") + rte_strerror(rte_errno));
    int rc = 0;
    {
        std::vector<std::unique_ptr<pmdfwd::Pool>> pools;
        // Room for the largest frame asked for (and at least a standard one,
        // for whatever else arrives).
        const auto data_room =
            uint16_t(RTE_PKTMBUF_HEADROOM + std::max<unsigned>(2048, o.size - pmdfwd::kFcsLen));
        auto pool = pmdfwd::Pool::create("pmdgen_pool", 16384, 256, data_room, SOCKET_ID_ANY);
        if (!pool) die(pool.error().message);
        rte_mempool* mp = pool.value()->mempool();
        pools.push_back(std::move(pool.value()));
        auto tx = open_port("tx", o.tx_devargs, mp, pools);
        std::unique_ptr<pmdfwd::Port> rx_own;
        const bool loopback = o.rx_devargs.empty() || o.rx_devargs == o.tx_devargs;
        if (!loopback) rx_own = open_port("rx", o.rx_devargs, mp, pools);
        pmdfwd::Port& rx = loopback ? *tx : *rx_own;
        wait_for_links(loopback ? std::vector{tx.get()} : std::vector{tx.get(), &rx},
                       o.link_wait_s);

        pmdfwd::GenConfig gc;
        gc.tx_port = tx->id();
        gc.rx_port = rx.id();
        gc.pool = mp;
        gc.endpoints = ep;
        gc.flows = o.flows;
        gc.frame_size = o.size;
        gc.rate_pps = o.rate;
        gc.burst = o.burst;
        auto gen = std::make_unique<pmdfwd::TrafficGen>(gc);

        const uint64_t hz = rte_get_tsc_hz();
        const uint64_t start = rte_rdtsc();
        const uint64_t end = start + uint64_t(o.duration_s * double(hz));
        const auto interval = uint64_t(o.interval_s * double(hz));
        uint64_t next_report = interval ? start + interval : UINT64_MAX, last_report = start;
        pmdfwd::HistogramSnapshot last_lat;
        uint64_t last_sent = 0, last_received = 0;
        // The summary's rates and latency leave the warm-up out (loss and
        // order count from the first probe).
        const uint64_t warm_end = start + uint64_t(o.warmup_s * double(hz));
        bool warm = o.warmup_s <= 0;
        pmdfwd::HistogramSnapshot warm_lat;
        uint64_t warm_sent = 0, warm_received = 0, measured_from = start;
        gen->start(start, end);
        uint64_t now = start;
        while (!g_stop.load(std::memory_order_relaxed) && now < end) {
            gen->poll(true);
            now = rte_rdtsc();
            if (!warm && now >= warm_end) {
                warm = true;
                warm_lat = gen->latency().read();
                warm_sent = gen->counters().sent;
                warm_received = gen->sequence().received();
                measured_from = now;
            }
            if (now < next_report) continue;
            const pmdfwd::HistogramSnapshot lat = gen->latency().read();
            print(make_report(*gen, lat.minus(last_lat), last_sent, last_received,
                              double(now - start) / double(hz),
                              double(now - last_report) / double(hz), false),
                  o.json);
            last_lat = lat;
            last_sent = gen->counters().sent;
            last_received = gen->sequence().received();
            last_report = now;
            next_report += interval;
        }
        const uint64_t sent_end = rte_rdtsc();
        // The drain: what is still on its way, until drain_ms pass with
        // nothing new or every probe is back.
        uint64_t quiet_since = sent_end;
        const uint64_t drain = uint64_t(o.drain_ms) * hz / 1000;
        while (!g_stop.load(std::memory_order_relaxed) && rte_rdtsc() - quiet_since < drain &&
               gen->sequence().unique() < gen->counters().sent)
            if (gen->receive()) quiet_since = rte_rdtsc();
        pmdgen::Report total = make_report(*gen, gen->latency().read().minus(warm_lat), warm_sent,
                                           warm_received, double(sent_end - start) / double(hz),
                                           double(sent_end - measured_from) / double(hz), true);
        print(total, o.json);
        if (o.histogram && !o.json)
            for (const auto& line : pmdfwd::histogram_bars(total.histogram))
                std::cout << line << '\n';
        gen.reset();
        tx.reset();
        rx_own.reset();
        for (const auto& p : pools)
            if (p->audit().missing() != 0) {
                std::fprintf(stderr, "pmdgen: pool '%s': %lld mbufs missing at exit\n",
                             p->name().c_str(), (long long)p->audit().missing());
                rc = kExitFailed;
            }
    }
    rte_eal_cleanup();
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App cli{"pmdgen: DPDK traffic generator and latency probe"};
    Options o;
    cli.add_option("--tx", o.tx_devargs,
                   "Device to send on (DPDK devargs, e.g. "
                   "net_memif0,role=client,socket=/run/a.sock)")
        ->required();
    cli.add_option("--rx", o.rx_devargs, "Device to receive on (default: the --tx device)");
    cli.add_option("-r,--rate", o.rate, "Packets per second; 0: as fast as the device takes them")
        ->capture_default_str();
    cli.add_option("-s,--size", o.size, "Frame size in bytes, FCS included")
        ->check(CLI::Range(pmdfwd::kMinProbeFrame, pmdfwd::kMaxProbeFrame))
        ->capture_default_str();
    cli.add_option("-f,--flows", o.flows, "Flows (UDP source ports)")
        ->check(CLI::Range(1, 65535))
        ->capture_default_str();
    cli.add_option("-b,--burst", o.burst, "Most packets per tx_burst/rx_burst")
        ->check(CLI::Range(1, 512))
        ->capture_default_str();
    cli.add_option("-d,--duration", o.duration_s, "Seconds of sending")
        ->check(CLI::Range(0.001, 86400.0))
        ->capture_default_str();
    cli.add_option("-w,--warmup", o.warmup_s,
                   "Seconds at the start left out of the summary's rates and latency")
        ->check(CLI::Range(0.0, 3600.0))
        ->capture_default_str();
    cli.add_option("-i,--interval", o.interval_s, "Seconds between reports; 0: only the summary")
        ->check(CLI::Range(0.0, 3600.0))
        ->capture_default_str();
    cli.add_option("--drain-ms", o.drain_ms, "After sending, wait this long for stragglers")
        ->check(CLI::Range(0, 60000))
        ->capture_default_str();
    cli.add_option("--link-wait", o.link_wait_s, "Seconds to wait for the links to come up")
        ->capture_default_str();
    cli.add_flag("--json", o.json, "One JSON object per report line");
    cli.add_flag(
        "--histogram", o.histogram,
        "After the summary, its latency histogram as bars (--json: always in the summary)");
    cli.add_option("--file-prefix", o.file_prefix, "EAL file prefix")->capture_default_str();
    cli.add_option("--lcore", o.lcore, "The one lcore pmdgen runs on")->capture_default_str();
    cli.add_option("--memory-mb", o.memory_mb, "EAL memory")
        ->check(CLI::Range(64, 1 << 20))
        ->capture_default_str();
    cli.add_flag("--hugepages", o.hugepages, "Use hugepages (default: --no-huge)");
    cli.add_option("--src-mac", o.src_mac)->capture_default_str();
    cli.add_option("--dst-mac", o.dst_mac)->capture_default_str();
    cli.add_option("--src-ip", o.src_ip)->capture_default_str();
    cli.add_option("--dst-ip", o.dst_ip)->capture_default_str();
    cli.add_option("--src-port", o.src_port, "UDP source port of flow 0")->capture_default_str();
    cli.add_option("--dst-port", o.dst_port)->capture_default_str();
    cli.set_version_flag("--version", std::string("pmdgen ") + pmdfwd::kVersion);
    pmdfwd::UdpEndpoints ep;
    try {
        cli.parse(argc, argv);
        ep = endpoints(o);
    } catch (const CLI::ParseError& e) {
        return cli.exit(e) == 0 ? 0 : kExitUsage;
    }
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    return run(o, ep);
}
