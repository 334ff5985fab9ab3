// Send latency of the log channel, pool-first against alloc-first (netpoll
// before and after it took the pool first), as scripts/bench runs it: rounds
// of N records in each mode, alternating, on a net_null port. The refill
// runs on the sender's own thread between sends (a record of the main lcore,
// which refills), or with --refill-cpu on a thread of its own on another cpu
// (a record of a worker, while the main lcore refills), every --refill-us
// (1000; 0: before every record). --dirty-kb K writes K KB between records,
// as a worker's forwarding would between its log lines. --format rfc5424
// times the syslog form (its header: a UTC timestamp, hostname, pid and
// structured data) instead of netconsole's extended one.
// Two windows per record, both printed:
//   send   a datagram's send as the channel times it (its histogram): take a
//          buffer, copy the head and text, fix lengths and checksum, hand it
//          to the TX queue; what netpoll_send_udp does, so the targets apply
//          to it;
//   record what the caller waits for: escape, lock, head, then the send.
// Prints each mode's histogram of sends, exact p50/p99 from the raw
// samples, and the ratios; exit 0 when the targets are met, 1 when not.
#include <pthread.h>
#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "netlog_channel.hpp"

using namespace pmdfwd;

namespace {

struct Options {
    unsigned records = 2000;
    unsigned rounds = 5;
    unsigned gap_us = 20;       // between sends: a log line is not a packet
    int refill_cpu = -1;        // -1: the sender refills between its sends
    unsigned refill_us = 1000;  // how often; 0: before every record (sender only)
    unsigned dirty_kb = 0;      // written between records: the sender's caches after other work
    NetlogFormat format = NetlogFormat::extended;
};

struct Mode {
    const char* name;
    NetlogSendPath path;
    std::vector<uint64_t> samples_ns;  // each datagram's send, as the channel timed it
    std::vector<uint64_t> record_ns;   // each record, as its caller waited for it
    uint64_t not_sent = 0;             // dropped (the refill held the channel): not timed
    Histogram hist;                    // the same sends, in TSC cycles
};

uint64_t percentile(std::vector<uint64_t> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, size_t(p * double(v.size())));
    return v[i];
}

int setup_port(uint16_t port, rte_mempool* rx_pool) {
    rte_eth_conf conf{};
    if (rte_eth_dev_configure(port, 1, 2, &conf) != 0) return -1;
    if (rte_eth_rx_queue_setup(port, 0, 256, SOCKET_ID_ANY, nullptr, rx_pool) != 0) return -1;
    for (uint16_t q = 0; q < 2; ++q)
        if (rte_eth_tx_queue_setup(port, q, 1024, SOCKET_ID_ANY, nullptr) != 0) return -1;
    return rte_eth_dev_start(port);
}

void run_round(Mode& m, uint16_t port, rte_mempool* reserve, const Options& o) {
    NetlogSetup s;
    s.config.enabled = true;
    s.config.src_ip = *Ipv4Addr::parse("10.0.0.1");
    s.config.dst_ip = *Ipv4Addr::parse("10.0.0.2");
    s.config.dst_mac = *MacAddr::parse("02:00:00:00:00:02");
    s.config.rate_limit = 0;
    s.config.send_path = m.path;
    s.config.format = o.format;
    s.port_id = port;
    s.queue = uint16_t(m.path == NetlogSendPath::pool_first ? 0 : 1);
    s.reserve = reserve;
    auto ch = NetlogChannel::create(s);
    if (!ch) {
        std::fprintf(stderr, "netlog_bench: %s\n", ch.error().message.c_str());
        std::exit(2);
    }
    const std::string text =
        "worker 3 on lcore 4: pool 'pmdfwd_w3' exhausted: 8192 of 8192 mbufs in use, 32 "
        "allocation failures";
    NetlogChannel& channel = *ch.value();
    // One datagram per record, so that a record has one send to time: checked
    // on the widest head the round formats.
    NetlogRecord widest;
    widest.seq = 1000000 + o.records;
    widest.timestamp_us = 86400000000 + uint64_t(o.records) * o.gap_us;
    widest.text = text;
    widest.worker = "3";
    const std::string host(kSyslogHostnameMax, 'h');
    const SyslogOrigin longest_host{SyslogFacility::daemon, host, 4194304};
    if (for_each_datagram(
            widest, o.format, [](auto&&...) {}, &longest_host) != 1) {
        std::fprintf(stderr, "netlog_bench: a record takes more than one datagram\n");
        std::exit(2);
    }
    // Every millisecond by default: the stack (64) never runs dry at one
    // record per gap. (The appliance's main lcore refills every 20 ms: up to
    // 3200 records a second come from the stack.)
    const uint64_t hz = rte_get_tsc_hz();
    const uint64_t refill_every = hz * o.refill_us / 1000000;
    std::vector<uint8_t> dirt(size_t(o.dirty_kb) * 1024);
    const bool refill_here = o.refill_cpu < 0;
    uint64_t next_refill = rte_rdtsc() + refill_every;
    std::atomic<bool> done{false};
    std::thread refiller;
    if (!refill_here)
        refiller = std::thread([&] {
            cpu_set_t cpus;
            CPU_ZERO(&cpus);
            CPU_SET(o.refill_cpu, &cpus);
            pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
            while (!done.load(std::memory_order_relaxed)) {
                channel.refill();
                usleep(o.refill_us);
            }
        });
    for (unsigned i = 0; i < o.records; ++i) {
        NetlogRecord r;
        // As on an appliance up for a day that has logged a million records:
        // the head's numbers have their real widths.
        r.seq = 1000000 + i;
        r.level = 4;
        r.timestamp_us = 86400000000 + uint64_t(i) * o.gap_us;
        r.worker = "3";
        r.text = text;
        // The send's own time is exact in the histogram's sum: one datagram.
        const uint64_t timed_before = channel.latency().sum;
        const uint64_t t0 = rte_rdtsc();
        const size_t sent = channel.send(r);
        const uint64_t ns = (rte_rdtsc() - t0) * 1000000000 / hz;
        if (sent == 0) {
            ++m.not_sent;
        } else {
            const uint64_t send_tsc = channel.latency().sum - timed_before;
            m.samples_ns.push_back(send_tsc * 1000000000 / hz);
            m.hist.record(send_tsc);
            m.record_ns.push_back(ns);
        }
        rte_delay_us_block(o.gap_us);
        if (refill_here && rte_rdtsc() >= next_refill) {
            channel.refill();  // outside the timed send
            next_refill = rte_rdtsc() + refill_every;
        }
        // Last before the next send: the refill must not warm what it evicts.
        for (size_t b = 0; b < dirt.size(); b += 64) dirt[b] = uint8_t(dirt[b] + i);
    }
    done.store(true, std::memory_order_relaxed);
    if (refiller.joinable()) refiller.join();
}

void report(const Mode& m) {
    const HistogramView s = histogram_view(m.hist.read(), rte_get_tsc_hz());
    std::printf("%s: %zu records of one datagram (%llu not sent, not counted)\n", m.name,
                m.samples_ns.size(), (unsigned long long)m.not_sent);
    for (const auto& line : histogram_bars(s)) std::printf("  %s\n", line.c_str());
    std::printf("  send:   p50 %llu ns  p99 %llu ns  max %llu ns (exact, from every sample)\n",
                (unsigned long long)percentile(m.samples_ns, 0.50),
                (unsigned long long)percentile(m.samples_ns, 0.99), (unsigned long long)s.max_ns);
    std::printf("  record: p50 %llu ns  p99 %llu ns\n",
                (unsigned long long)percentile(m.record_ns, 0.50),
                (unsigned long long)percentile(m.record_ns, 0.99));
}

double p50_ratio(const std::vector<uint64_t>& slow, const std::vector<uint64_t>& fast) {
    const uint64_t f = percentile(fast, 0.5);
    return f ? double(percentile(slow, 0.5)) / double(f) : 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::vector<char*> eal_args = {argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--records" && i + 1 < argc)
            o.records = unsigned(std::atoi(argv[++i]));
        else if (a == "--rounds" && i + 1 < argc)
            o.rounds = unsigned(std::atoi(argv[++i]));
        else if (a == "--gap-us" && i + 1 < argc)
            o.gap_us = unsigned(std::atoi(argv[++i]));
        else if (a == "--refill-cpu" && i + 1 < argc)
            o.refill_cpu = std::atoi(argv[++i]);
        else if (a == "--refill-us" && i + 1 < argc)
            o.refill_us = unsigned(std::atoi(argv[++i]));
        else if (a == "--dirty-kb" && i + 1 < argc)
            o.dirty_kb = unsigned(std::atoi(argv[++i]));
        else if (a == "--format" && i + 1 < argc && std::string(argv[i + 1]) == "rfc5424" && ++i)
            o.format = NetlogFormat::rfc5424;
        else if (a == "--format" && i + 1 < argc && std::string(argv[i + 1]) == "extended" && ++i)
            o.format = NetlogFormat::extended;
        else if (a == "--") {
            for (++i; i < argc; ++i) eal_args.push_back(argv[i]);
        } else {
            std::fprintf(stderr,
                         "usage: netlog_bench [--records N] [--rounds R] [--gap-us U] "
                         "[--refill-cpu C] [--refill-us U] [--dirty-kb K] "
                         "[--format extended|rfc5424] -- EAL args\n");
            return 2;
        }
    }
    if (o.refill_cpu >= 0 && o.refill_us == 0) {
        std::fprintf(stderr,
                     "netlog_bench: --refill-us 0 (before every record) needs the "
                     "sender to refill: no --refill-cpu\n");
        return 2;
    }
    if (rte_eal_init(int(eal_args.size()), eal_args.data()) < 0) return 2;
    uint16_t port = 0;
    rte_mempool* rx_pool = rte_pktmbuf_pool_create("nb_rx", 1024, 0, 0, 2048, SOCKET_ID_ANY);
    // The channel's reserve, as the appliance makes it: no lcore cache.
    rte_mempool* reserve =
        rte_pktmbuf_pool_create("nb_reserve", 512, 0, 0, 128 + 1088, SOCKET_ID_ANY);
    if (!rx_pool || !reserve || rte_eth_dev_get_port_by_name("net_null0", &port) != 0 ||
        setup_port(port, rx_pool) != 0) {
        std::fprintf(stderr, "netlog_bench: needs --vdev net_null0 and memory\n");
        return 2;
    }
    Mode modes[2] = {{"pool-first", NetlogSendPath::pool_first, {}, {}, 0, {}},
                     {"alloc-first", NetlogSendPath::alloc_first, {}, {}, 0, {}}};
    if (o.refill_cpu < 0 && o.refill_us == 0)
        std::printf("refill: on the sender's thread, before every record\n");
    else if (o.refill_cpu < 0)
        std::printf("refill: on the sender's thread, between its sends, every %u us\n",
                    o.refill_us);
    else
        std::printf("refill: a thread of its own on cpu %d, every %u us\n", o.refill_cpu,
                    o.refill_us);
    if (o.dirty_kb) std::printf("between records: %u KB written\n", o.dirty_kb);
    std::printf("format: %s\n", o.format == NetlogFormat::rfc5424 ? "rfc5424" : "extended");
    for (unsigned r = 0; r < o.rounds; ++r)
        for (auto& m : modes) run_round(m, port, reserve, o);  // A B A B
    for (const auto& m : modes) report(m);
    const uint64_t p50_pool = percentile(modes[0].samples_ns, 0.5);
    const double ratio = p50_ratio(modes[1].samples_ns, modes[0].samples_ns);
    const bool met = p50_pool <= 1000 && ratio >= 1.3;
    std::printf(
        "record: alloc-first / pool-first at p50 %.2fx (no target: escape and head are "
        "the same work on both paths)\n",
        p50_ratio(modes[1].record_ns, modes[0].record_ns));
    std::printf(
        "result: pool-first send p50 %llu ns (target <= 1000), alloc-first / pool-first "
        "at p50 %.2fx (target >= 1.3): %s\n",
        (unsigned long long)p50_pool, ratio, met ? "PASS" : "MISS");
    rte_eth_dev_stop(port);
    rte_eth_dev_close(port);
    rte_eal_cleanup();
    return met ? 0 : 1;
}
