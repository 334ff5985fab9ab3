// What a cross-core handoff costs, step by step, with no forwarding around
// it: lcore A (the first worker lcore) hands bursts of 32 mbufs to lcore B
// (the second) over an SPSC ring, as a worker hands bursts to the owner of
// a TX queue. Give A and B two CPUs of their own (EAL: --lcores 0@0,1@0,2@1:
// the main lcore only launches and sleeps).
//
// Steps, each adding one thing to the one before:
//   ring    pointers only: B sends each burst back over a second ring and
//           A reuses it; no mbuf is touched
//   read    A writes each mbuf's first line (as an rx writes its lengths),
//           B reads it
//   write   and B writes it (as rte_pktmbuf_free's checks and the next
//           reset do)
//   line2   and B writes the second line too (pool, next)
// and the lines of a real round trip, apart from that ladder:
//   reset   A writes both header lines (as rte_pktmbuf_reset does: the
//           second holds next and tx_offload), B reads both (as
//           rte_pktmbuf_free does: refcnt and pool, then next)
//   data    and A writes the frame's first 64 bytes too (as an rx copies a
//           frame in), which B never touches
// Then the return path of each pool, the ring gone: A allocates
// (rte_pktmbuf_alloc_bulk) and writes the first line and the first data
// line (as net_pcap's rx does), B frees each mbuf (rte_pktmbuf_free, as
// net_null's tx does); and the same on A alone (same-core, the floor):
//   stock    DPDK's ring_mp_mc behind per-lcore caches of --cache (what
//            pmdfwd's shared and per-worker-stock models are with one sender)
//   recycle  pmdfwd_recycle owned by A, B's frees deferred and pushed back
//            once a burst (flush_deferred, as the worker loop does)
// each with cache-coloured placement and with DPDK's own; and the coloured
// stock pool once more with its free objects in a random order (a stock
// ring hands them out in the order it was filled, by address at first):
// what the order of reuse is worth, apart from any line crossing cores.
// Each step runs --rounds times, alternating; prints the median and range of
// ns per packet on A, and Mpps. No target: docs/performance.md reads the
// cost of each step off the differences.
//
// Every round starts with a probe, a short run of the ring step, because on
// a virtual machine the two CPUs may be two threads of one core or two
// cores, as the host places them, and a line moves between two cores at
// several times the cost: rounds whose probe is over 1.5 x the fastest
// probe are "far", the others "near", and each step's median is printed
// for both.
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "pool.hpp"
#include "recycle_mempool.hpp"

namespace {

using pmdfwd::Pool;

constexpr unsigned kBurst = 32;
constexpr unsigned kRingSize = 1024;  // a handoff ring's (lib/dataplane/handoff_ring.cpp)
constexpr unsigned kInFlight = 4096;  // mbufs the ring steps pass around

enum class Step { ring, read, write, line2, reset, data, pool_handoff, pool_same_core };

struct Options {
    bool probe_only = false;  // --probe: print the probe's median and stop
    unsigned rounds = 5;
    uint64_t packets = 1u << 24;  // per step and round
    uint32_t mbufs = 8192;        // scripts/bench's pool
    uint32_t cache = 256;
};

// What both lcores of one run share; each flag on a line of its own.
struct Run {
    Step step = Step::ring;
    uint64_t packets = 0;
    rte_ring* ab = nullptr;  // A -> B
    rte_ring* ba = nullptr;  // B -> A (the ring steps)
    rte_mempool* mp = nullptr;
    std::vector<rte_mbuf*> objects;  // the ring steps' mbufs
    alignas(64) std::atomic<bool> go{false};
    alignas(64) std::atomic<bool> sent_all{false};
    alignas(64) std::atomic<bool> b_done{false};
    alignas(64) uint64_t a_tsc = 0;
    uint64_t sink = 0;  // B's reads, so that they are not optimised away
};

// What an rx writes into a fresh mbuf: its lengths (first line) and the
// frame's first 64 bytes.
inline void fill_like_rx(rte_mbuf* m, bool data) {
    m->data_len = 64;
    m->pkt_len = 64;
    m->port = 0;
    if (data) std::memset(rte_pktmbuf_mtod(m, void*), 0x5a, 64);
}

void send_burst(rte_ring* r, rte_mbuf** b, unsigned n) {
    unsigned done = 0;
    while (done < n)
        done += rte_ring_sp_enqueue_burst(r, reinterpret_cast<void**>(b + done), n - done, nullptr);
}

int lcore_b(void* arg) {
    Run& r = *static_cast<Run*>(arg);
    pmdfwd::DeferFlush flush;
    const bool recycles = r.mp && pmdfwd::is_recycle_pool(r.mp);
    if (recycles) flush = pmdfwd::make_defer_flush(r.mp, rte_lcore_id());
    while (!r.go.load(std::memory_order_acquire)) rte_pause();
    rte_mbuf* b[kBurst];
    uint64_t sink = 0;
    for (;;) {
        const unsigned n =
            rte_ring_sc_dequeue_burst(r.ab, reinterpret_cast<void**>(b), kBurst, nullptr);
        if (n == 0) {
            if (r.sent_all.load(std::memory_order_acquire) && rte_ring_empty(r.ab)) break;
            continue;
        }
        for (unsigned i = 0; i < n; ++i) {
            rte_mbuf* m = b[i];
            switch (r.step) {
                case Step::ring:
                    break;
                case Step::read:
                    sink += m->data_len;
                    break;
                case Step::write:
                    sink += m->data_len;
                    m->ol_flags = 0;
                    break;
                case Step::line2:
                    sink += m->data_len;
                    m->ol_flags = 0;
                    m->next = nullptr;
                    break;
                case Step::reset:
                case Step::data:
                    sink += m->data_len + reinterpret_cast<uintptr_t>(m->next);
                    break;
                case Step::pool_handoff:
                case Step::pool_same_core:
                    rte_pktmbuf_free(m);
                    break;
            }
        }
        if (r.step == Step::pool_handoff) {
            if (recycles) pmdfwd::flush_deferred(flush);
        } else {
            send_burst(r.ba, b, n);
        }
    }
    if (recycles) pmdfwd::push_deferred(flush);
    r.sink = sink;
    r.b_done.store(true, std::memory_order_release);
    return 0;
}

// A's side of the ring steps: sends until `packets` have come back.
void a_ring(Run& r) {
    std::vector<rte_mbuf*> free = r.objects;
    free.reserve(r.objects.size() + kBurst);  // no allocation while timed
    rte_mbuf* b[kBurst];
    uint64_t sent = 0, back = 0;
    const bool write = r.step != Step::ring;
    const bool line2 = r.step == Step::reset || r.step == Step::data;
    const bool data = r.step == Step::data;
    while (back < r.packets) {
        const unsigned n =
            rte_ring_sc_dequeue_burst(r.ba, reinterpret_cast<void**>(b), kBurst, nullptr);
        free.insert(free.end(), b, b + n);
        back += n;
        if (sent < r.packets && free.size() >= kBurst) {
            rte_mbuf** top = free.data() + free.size() - kBurst;
            if (write)
                for (unsigned i = 0; i < kBurst; ++i) {
                    fill_like_rx(top[i], data);
                    if (line2) {
                        top[i]->next = nullptr;
                        top[i]->tx_offload = 0;
                    }
                }
            send_burst(r.ab, top, kBurst);
            free.resize(free.size() - kBurst);
            sent += kBurst;
        }
    }
    r.sent_all.store(true, std::memory_order_release);
}

// A's side of the pool steps: allocates and fills, then hands over (or, on
// the same core, frees itself).
void a_pool(Run& r) {
    rte_mbuf* b[kBurst];
    for (uint64_t sent = 0; sent < r.packets;) {
        if (rte_pktmbuf_alloc_bulk(r.mp, b, kBurst) != 0) continue;  // B's frees are on the way
        for (unsigned i = 0; i < kBurst; ++i) fill_like_rx(b[i], true);
        if (r.step == Step::pool_same_core) {
            for (unsigned i = 0; i < kBurst; ++i) rte_pktmbuf_free(b[i]);
        } else {
            send_burst(r.ab, b, kBurst);
        }
        sent += kBurst;
    }
    r.sent_all.store(true, std::memory_order_release);
}

int lcore_a(void* arg) {
    Run& r = *static_cast<Run*>(arg);
    while (!r.go.load(std::memory_order_acquire)) rte_pause();
    const uint64_t t0 = rte_rdtsc_precise();
    if (r.step == Step::pool_handoff || r.step == Step::pool_same_core)
        a_pool(r);
    else
        a_ring(r);
    r.a_tsc = rte_rdtsc_precise() - t0;
    if (r.mp && pmdfwd::is_recycle_pool(r.mp)) {
        // Everything B freed is back in reach before the owner lets go.
        if (r.step == Step::pool_handoff)
            while (!r.b_done.load(std::memory_order_acquire)) rte_pause();
        pmdfwd::recycle_owner_retire(r.mp);
    }
    return 0;
}

// The main lcore sleeps while A and B run, so that it takes no CPU from A
// when the two share one.
void wait_sleeping(unsigned lcore) {
    while (rte_eal_get_lcore_state(lcore) == RUNNING) usleep(1000);
    rte_eal_wait_lcore(lcore);
}

struct Variant {
    std::string name;
    Step step;
    std::unique_ptr<Pool> pool;  // the pool steps'; the ring steps take mbufs from `ring_pool`
    std::vector<double> ns;      // per round
};

double run_once(Variant& v, const Options& o, unsigned a, unsigned b, rte_ring* ab, rte_ring* ba,
                rte_mempool* ring_pool) {
    Run r;
    r.step = v.step;
    r.packets = o.packets;
    r.ab = ab;
    r.ba = ba;
    if (v.pool) {
        r.mp = v.pool->mempool();
    } else {
        r.objects.resize(kInFlight);
        if (rte_pktmbuf_alloc_bulk(ring_pool, r.objects.data(), kInFlight) != 0) return -1;
    }
    if (v.step != Step::pool_same_core) rte_eal_remote_launch(lcore_b, &r, b);
    rte_eal_remote_launch(lcore_a, &r, a);
    r.go.store(true, std::memory_order_release);
    wait_sleeping(a);
    if (v.step != Step::pool_same_core) wait_sleeping(b);
    if (!r.objects.empty()) rte_pktmbuf_free_bulk(r.objects.data(), kInFlight);
    return double(r.a_tsc) * 1e9 / double(rte_get_tsc_hz()) / double(o.packets);
}

// Puts every free object of mp back in a random order.
bool shuffle_free_order(rte_mempool* mp, uint32_t mbufs) {
    std::vector<rte_mbuf*> all(mbufs);
    rte_mempool_cache_flush(nullptr, mp);
    if (rte_pktmbuf_alloc_bulk(mp, all.data(), mbufs) != 0) return false;
    std::shuffle(all.begin(), all.end(), std::mt19937(1));
    rte_pktmbuf_free_bulk(all.data(), mbufs);
    rte_mempool_cache_flush(nullptr, mp);
    return true;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int usage() {
    std::fprintf(stderr,
                 "usage: handoff_bench [--probe] [--rounds N] [--packets N] [--mbufs N] "
                 "[--cache N] -- EAL args (three lcores: the main one, A and B; A and B on two "
                 "CPUs)\n--probe: only the placement probe, --rounds times; prints "
                 "\"link_ns <median>\"\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::vector<char*> eal;
    const auto option = [&o](const std::string& opt, unsigned long long v) {
        if (opt == "--probe")
            o.probe_only = true;
        else if (opt == "--rounds" && v > 0)
            o.rounds = unsigned(v);
        else if (opt == "--packets" && v >= kBurst)
            o.packets = v / kBurst * kBurst;
        else if (opt == "--mbufs" && v >= 2 * kInFlight)
            o.mbufs = uint32_t(v);
        else if (opt == "--cache" && v <= RTE_MEMPOOL_CACHE_MAX_SIZE)
            o.cache = uint32_t(v);
        else
            return false;
        return true;
    };
    if (!bench::parse_args(argc, argv, {"--probe"}, option, eal)) return usage();
    if (rte_eal_init(int(eal.size()), eal.data()) < 0) {
        std::fprintf(stderr, "handoff_bench: rte_eal_init failed\n");
        return 1;
    }
    const unsigned a = rte_get_next_lcore(-1, 1, 0);
    const unsigned b = rte_get_next_lcore(a, 1, 0);
    if (a >= RTE_MAX_LCORE || b >= RTE_MAX_LCORE) {
        std::fprintf(stderr, "handoff_bench: needs two worker lcores (A and B)\n");
        return usage();
    }
    rte_ring* ab =
        rte_ring_create("hb_ab", kRingSize, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    rte_ring* ba =
        rte_ring_create("hb_ba", kInFlight, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    auto ring_pool = Pool::create("hb_ring", kInFlight + 1024, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                  SOCKET_ID_ANY, true);
    if (!ab || !ba || !ring_pool) {
        std::fprintf(stderr, "handoff_bench: rings or pool failed (raise -m)\n");
        return 1;
    }

    Variant probe{"probe", Step::ring, nullptr, {}};
    Options probe_o = o;
    probe_o.packets = std::max<uint64_t>(kBurst, o.packets / 16 / kBurst * kBurst);
    rte_mempool* ring_mp = ring_pool.value()->mempool();
    if (o.probe_only) {
        for (unsigned round = 0; round < o.rounds; ++round) {
            const double p = run_once(probe, probe_o, a, b, ab, ba, ring_mp);
            if (p < 0) return 1;
            probe.ns.push_back(p);
        }
        std::printf("link_ns %.2f\n", median(probe.ns));
        ring_pool.value().reset();
        rte_ring_free(ab);
        rte_ring_free(ba);
        rte_eal_cleanup();
        return 0;
    }

    std::vector<Variant> vs;
    vs.push_back({"ring: pointers only", Step::ring, nullptr, {}});
    vs.push_back({"read: + B reads line 1", Step::read, nullptr, {}});
    vs.push_back({"write: + B writes line 1", Step::write, nullptr, {}});
    vs.push_back({"line2: + B writes line 2", Step::line2, nullptr, {}});
    vs.push_back({"reset: A writes lines 1-2, B reads", Step::reset, nullptr, {}});
    vs.push_back({"data: + A writes a data line", Step::data, nullptr, {}});
    for (const bool color : {true, false}) {
        const std::string c = color ? "coloured" : "dpdk placement";
        for (const bool recycle : {false, true}) {
            for (const Step s : {Step::pool_handoff, Step::pool_same_core}) {
                const std::string name = std::string(recycle ? "recycle" : "stock") + ", " + c +
                                         (s == Step::pool_handoff ? ", A -> B" : ", same core");
                const std::string pool_name = "hb_" + std::to_string(vs.size());
                auto p = recycle ? Pool::create_recycle(pool_name, o.mbufs, o.cache,
                                                        RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY, a,
                                                        color)
                                 : Pool::create(pool_name, o.mbufs, o.cache,
                                                RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY, color);
                if (!p) {
                    std::fprintf(stderr, "handoff_bench: %s\n", p.error().message.c_str());
                    return 1;
                }
                vs.push_back({name, s, std::move(p.value()), {}});
            }
        }
    }
    auto shuffled = Pool::create("hb_shuffled", o.mbufs, o.cache, RTE_MBUF_DEFAULT_BUF_SIZE,
                                 SOCKET_ID_ANY, true);
    if (!shuffled || !shuffle_free_order(shuffled.value()->mempool(), o.mbufs)) {
        std::fprintf(stderr, "handoff_bench: the shuffled pool failed (raise -m)\n");
        return 1;
    }
    vs.push_back(
        {"stock, coloured, shuffled, A -> B", Step::pool_handoff, std::move(shuffled.value()), {}});

    std::printf(
        "ns per packet on A (lcore %u) handing to B (lcore %u), bursts of %u, %llu "
        "packets a run, median of %u rounds (range); pools of %u mbufs, cache %u; "
        "tsc %.2f GHz\n",
        a, b, kBurst, static_cast<unsigned long long>(o.packets), o.rounds, o.mbufs, o.cache,
        double(rte_get_tsc_hz()) / 1e9);
    // One untimed pass first: the first touch of every pool's memory (page
    // faults without hugepages) belongs to no step.
    for (auto& v : vs)
        if (run_once(v, probe_o, a, b, ab, ba, ring_mp) < 0) return 1;
    for (unsigned round = 0; round < o.rounds; ++round) {
        const double p = run_once(probe, probe_o, a, b, ab, ba, ring_mp);
        if (p < 0) return 1;
        probe.ns.push_back(p);
        for (size_t k = 0; k < vs.size(); ++k) {
            // Alternate the order, so that no variant always runs first.
            Variant& v = vs[round % 2 ? vs.size() - 1 - k : k];
            const double ns = run_once(v, o, a, b, ab, ba, ring_mp);
            if (ns < 0) {
                std::fprintf(stderr, "handoff_bench: %s: no mbufs\n", v.name.c_str());
                return 1;
            }
            v.ns.push_back(ns);
        }
    }
    const double fastest = *std::min_element(probe.ns.begin(), probe.ns.end());
    std::vector<bool> far;
    std::printf("probe (ring step, %llu packets) per round, ns:",
                static_cast<unsigned long long>(probe_o.packets));
    for (const double p : probe.ns) {
        far.push_back(p > 1.5 * fastest);
        std::printf(" %.2f%s", p, far.back() ? "*" : "");
    }
    const auto far_rounds = unsigned(std::count(far.begin(), far.end(), true));
    std::printf("  (* far: over 1.5 x the fastest)\n");
    std::printf("%-40s %24s %10s %14s %14s\n", "step", "all rounds: median (range)", "Mpps",
                "near median", "far median");
    for (const auto& v : vs) {
        const auto [lo, hi] = std::minmax_element(v.ns.begin(), v.ns.end());
        const double med = median(v.ns);
        std::vector<double> near_ns, far_ns;
        for (size_t r = 0; r < v.ns.size(); ++r) (far[r] ? far_ns : near_ns).push_back(v.ns[r]);
        char near_s[32] = "-", far_s[32] = "-";
        if (!near_ns.empty()) std::snprintf(near_s, sizeof near_s, "%.2f", median(near_ns));
        if (!far_ns.empty()) std::snprintf(far_s, sizeof far_s, "%.2f", median(far_ns));
        std::printf("%-40s %8.2f ns (%.2f-%.2f) %10.2f %14s %14s\n", v.name.c_str(), med, *lo, *hi,
                    1e3 / med, near_s, far_s);
    }
    std::printf("rounds: %u near, %u far\n", o.rounds - far_rounds, far_rounds);
    for (auto& v : vs) {
        if (!v.pool) continue;
        const pmdfwd::PoolAudit audit = v.pool->audit();
        if (audit.missing() != 0) {
            std::fprintf(stderr, "handoff_bench: %s: %lld mbufs not back\n", v.name.c_str(),
                         static_cast<long long>(audit.missing()));
            return 1;
        }
    }
    vs.clear();
    ring_pool.value().reset();
    rte_ring_free(ab);
    rte_ring_free(ba);
    rte_eal_cleanup();
    return 0;
}
