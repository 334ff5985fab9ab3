"""scripts/bench's command line: the options, their defaults, the usage
text, and the checks on the values given."""
import os
import re
import sys

import bench_common as common

USAGE = """\
usage: scripts/bench [options]

Alternates A and B runs (A B, B A, A B ...: each side goes first in every other
round) of each comparison in each set-up and
prints the median Mpps of each peer and their ratio. Every peer forwards
port 0 -> port 1 with one forwarding lcore on cpu {worker_cpu} (control on cpu
{main_cpu}), burst {burst}, a pool of {mbufs} mbufs with a per-lcore cache of {cache},
{desc} rx/tx descriptors; port 1 is a TX-only sink (net_null1,no-rx=1). The
rate is port 1's opackets over the window, read through each process's
telemetry socket.

set-ups (--setups, comma separated; default {setups}):
  null        port 0 = net_null0 (64-byte mbufs), no hugepages
  null-huge   the same with hugepages (reserved here, restored on exit)
  pcap        port 0 = net_pcap0 replaying a capture of --flows IPv4/UDP flows
              (64-byte frames) with infinite_rx=1, no hugepages
  pcap-huge   the same with hugepages

options:
  --pairs N          A/B pairs per comparison (default {pairs})
  --window S         measurement window in seconds (default {window})
  --warmup S         seconds of traffic before the window opens (default {warmup})
  --setups LIST      set-ups to run (default {setups})
  --comparisons LIST patch,patch-nolen,l2,handoff,netlog,latency,color,poll,capture,
                     metrics,l3,l3-v6,l3-routes,fib,exception,full-table,
                     handoff-steps,instructions,scaling (default {comparisons})
                     patch-nolen: pmdfwd patch with [forward] read_lengths =
                     false (no frame read: no byte counts, no oversize test,
                     testpmd io's own work) against testpmd io. Target >= 1.0x.
                     l3: router mode against DPDK's l3fwd example
                     (--lookup=lpm), pcap set-ups only: a capture of --flows
                     IPv4/UDP flows to 198.18.n.1 (flow n), both routing the
                     same {l3_routes} IPv4 and {l3_routes} IPv6 routes (flow n hits
                     route n; scripts/lib/bench_l3_routes.py) to
                     port 1; pmdfwd via four static neighbours on port 1,
                     port 0 receive-only (no addresses). Target: pmdfwd >=
                     1.1 x l3fwd.
                     l3-v6: the same with IPv6/UDP flows to 2001:2:0:n::1. No
                     target: l3fwd's IPv6 path (one rte_lpm6_lookup per
                     packet) leaves the hop limit alone, pmdfwd decrements it.
                     l3-routes: pmdfwd l3 alone with {l3_routes}, {l3_routes_1k},
                     {l3_routes_max} and {l3_routes_100k} IPv4 routes, the same flows
                     (pmdfwd reads at most 1 MiB of config, about 20000 routes:
                     the 100000-route table adds the rest at run time). No target.
                     fib: the lookup alone, rte_fib against rte_lpm (l3fwd's,
                     and pmdfwd's for IPv4), IPv4 and IPv6, 512 and 100000 routes, bursts
                     of 32 (build/test/fib_lookup_bench on cpu {worker_cpu}; runs
                     once, not per set-up; AVX-512 rows where the CPU has
                     it). No target.
                     exception: the router's exception path, a port's kernel
                     interface (TAP) read and written by the control path's
                     thread, against the workers' path on the same rig:
                     iperf3 TCP for --window s and 200 UDP round trips from
                     a namespace, to a daemon on the box and to a host
                     routed by the workers, --pairs rounds
                     (scripts/lib/bench_exception.sh; runs once). No target.
                     full-table: scripts/full-table's 1,000,000 IPv4 and
                     200,000 IPv6 routes into a kernel table pmdfwd mirrors
                     while its worker forwards flows through unchanged
                     routes: the load's lag behind the kernel, --pairs rounds
                     of --window s without and with churn (updates a second,
                     rate B/A, drops), a forced overrun's re-read, and pmdctl
                     route load (scripts/lib/bench_full_table.sh; runs once).
                     Targets: lag <= 10 s, B/A >= 0.95, no drop.
                     instructions: every program of the pcap set-up once
                     under callgrind (pmdfwd patch, l2, l3 IPv4 and IPv6;
                     testpmd io, l2fwd, l3fwd IPv4 and IPv6), 2,000,000
                     packets or more each: instructions a packet in all, in
                     the two drivers (measured: the calls into net_pcap and
                     net_null with all they call) and the program's own, and
                     pmdfwd's own over its peer's (scripts/lib/
                     bench_callgrind.py; runs once, not per set-up; set-ups
                     and --pairs do not apply). Targets, own instructions:
                     l3 IPv4 <= l3fwd's, l3 IPv6 <= l3 IPv4 + 10, l2 <= 0.8 x
                     l2fwd's, patch <= 10.
                     scaling: pmdfwd patch with 1, 2, 4, 8, 12 and 16
                     workers, each polling its own rx queue of net_null0 (as
                     RSS spreads flows) on cpus 1..N; three variants: each
                     worker its own pool and TX queue (stock), one shared pool
                     (shared), and every burst handed to one more worker that
                     owns port 1's only TX queue (owner, recycle pools). Runs
                     the counts the machine has CPUs for (N + 1; owner N + 2);
                     null set-ups only. No target: the figures confirm or
                     refute docs/performance.md's model ("Many workers").
                     handoff-steps: a handoff's cost step by step, and each
                     pool's return path with no forwarding around it
                     (build/test/handoff_bench: lcore A on cpu {main_cpu} hands
                     bursts to lcore B on cpu {worker_cpu}), with 4 KB pages and
                     with hugepages; runs once, not per set-up. No target.
                     handoff: two workers on two CPUs; worker A polls port 0 on
                     cpu {main_cpu} and hands every burst to worker B on cpu {worker_cpu},
                     which owns port 1's only TX queue (tx = "owner"), so every
                     buffer is freed on the wrong core. Runs pool model
                     recycle, shared and per-worker-stock in turn, and the
                     same-core path (recycle, tx = "per-worker", worker A on
                     cpu {worker_cpu}) as the ceiling. Targets: recycle >= 1.2x
                     shared, recycle >= 0.9x same-core.
                     netlog: the log channel's send latency, pool-first vs
                     alloc-first, {netlog_records} records x {netlog_rounds} rounds each, alternating,
                     on net_null (runs once, not per set-up), three times: the
                     sender refilling between its sends (a main-lcore record),
                     the refill on cpu {main_cpu} (a worker's record), and that
                     with 4 MB written between records (a worker's log line
                     amid forwarding). Targets, on a datagram's send (take
                     buffer .. tx_burst; the whole record is printed too):
                     pool-first p50 <= 1 us, alloc-first / pool-first at p50
                     >= 1.3.
                     latency: the cost of the per-worker residence histogram:
                     pmdfwd patch with [forward] latency = true vs the default
                     (off). Target: on >= 0.98 x off (over 2%, it has to be a
                     switch: it is, and off by default).
                     color: what cache-coloured pools bring: pmdfwd l2 with
                     [pool] color = true (the default) vs false (DPDK's own
                     placement). Target: on >= 0.98 x off (never a loss).
                     poll: pmdgen <-> pmdfwd (one worker) per poll mode, over
                     memif (busy, adaptive) and over tap ports fed through
                     AF_PACKET (busy, adaptive, interrupt): latency at a low
                     fixed rate and at the highest rate with 0% loss, max delay
                     variation, the worker's CPU share, and idle CPU share
                     (scripts/lib/bench_poll.py; runs once, not per set-up).
                     Targets: busy p99 <= 0.5 x interrupt p99 at the low rate;
                     adaptive idle CPU share <= 5% with p99 at the low rate
                     within 2 x busy.
                     capture: what serving dpdk-dumpcap costs, in the *-huge
                     set-ups only (capture needs hugepages): pmdfwd patch with
                     [control] capture = false, = true with no capture
                     attached, and = true with dpdk-dumpcap (on cpu {main_cpu},
                     writing to /dev/null) capturing port 0 through the
                     BPF filter 'udp port 9' (it matches none of net_null's
                     frames: the filter runs on every packet, nothing is
                     copied), then with no filter (every packet copied, as
                     far as dumpcap's ring and pool take them). All four
                     use lcores 64 and 65, apart from dumpcap's lcore 0.
                     Target: capture on, none attached >= 0.98 x off.
                     metrics: pmdfwd patch with [control] metrics scraped
                     10 times a second (curl on cpu {main_cpu}, 150 times
                     Prometheus's default rate) against the same without
                     the endpoint. Target: scraped >= 0.98 x unscraped.
                     base-patch, base-l2, base-l3: this tree's pmdfwd against
                     another build of it (--baseline), patch, l2 and l3 mode
                     (l3: the pcap set-ups, the l3 comparison's config), the
                     same config: what a change costs the fast path. Target:
                     this tree >= 0.98 x the baseline.
  --baseline BIN     the pmdfwd binary of the base-* comparisons (for instance
                     one built from an earlier commit in a git worktree)
  --flows N          flows in the generated capture (default {flows})
  --hugepages N      2 MB pages to have reserved for the -huge set-ups (default {hugepages})
  --min-share F      rerun a window in which the forwarding thread ran less than
                     this share of the time (other load on cpu {worker_cpu}; default {min_share})
  --retries N        reruns allowed per disturbed window (default {retries})
  --wait-idle S      before each run, wait up to S seconds for the machine to be idle
                     (other work on it; 0: don't wait; default {wait_idle})
  --no-build         don't run ninja for pmdfwd (l2fwd and the capture are still
                     made when missing)
  --quick            smoke run: 1 pair, 2 s windows, 1 s warm-up, 1 retry,
                     5 s idle wait (options after it still apply)
  -h, --help         this text

Results: a table on stdout, and in {out_rel}/results.txt (table, machine,
command) and {out_rel}/runs.tsv (every run); peer logs in {out_rel}/logs/.
Exit status: 0 all targets met, 1 a target missed, 2 the benchmark failed.
"""

SETUP_NAMES = ("null", "null-huge", "pcap", "pcap-huge")
# Every comparison the command line takes, in the order the error message lists them.
COMPARISON_NAMES = ("patch", "patch-nolen", "l2", "handoff", "netlog", "latency", "color", "poll",
                    "capture", "metrics", "l3", "l3-v6", "l3-routes", "fib", "exception",
                    "full-table",
                    "handoff-steps", "instructions", "scaling",
                    "base-patch", "base-l2", "base-l3")
# Options with a value: option -> attribute.
VALUED = {"--pairs": "pairs", "--window": "window", "--warmup": "warmup", "--setups": "setups",
          "--comparisons": "comparisons", "--flows": "flows", "--hugepages": "hugepages",
          "--min-share": "min_share", "--retries": "retries", "--wait-idle": "wait_idle",
          "--baseline": "baseline"}


class Options:
    """The values as given, kept as text: the results quote them as typed."""

    def __init__(self, argv):
        self.command = " ".join([common.PROG] + list(argv))
        self.pairs = "3"
        self.window = "10"
        self.warmup = "3"
        self.setups = "null,null-huge,pcap,pcap-huge"
        self.comparisons = "patch,patch-nolen,l2,handoff,netlog,latency,color,poll"
        self.flows = "256"
        self.hugepages = "1024"
        self.min_share = "0.95"
        self.retries = "3"
        self.wait_idle = "60"
        self.do_build = True
        self.baseline = ""

    @property
    def setup_list(self):
        return split_list(self.setups)

    @property
    def comparison_list(self):
        return split_list(self.comparisons)


def split_list(text: str):
    """A comma-separated list as the shell's read -a splits it: a trailing
    comma adds no empty item, an inner empty item stays (and is refused)."""
    items = text.split(",")
    if items[-1] == "":
        items.pop()
    return items


def usage(opts: Options, paths: common.Paths) -> str:
    """The help text, with the values in effect where it was asked for."""
    values = {name: getattr(common, name.upper()) for name in (
        "main_cpu", "worker_cpu", "burst", "mbufs", "cache", "desc", "l3_routes",
        "l3_routes_1k", "l3_routes_max", "l3_routes_100k", "netlog_records", "netlog_rounds")}
    values.update({name: getattr(opts, name) for name in (
        "pairs", "window", "warmup", "setups", "comparisons", "flows", "hugepages", "min_share",
        "retries", "wait_idle")})
    return USAGE.format(out_rel=paths.out_rel, **values)


def usage_error(message: str):
    print(f"{common.PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def parse(argv, paths: common.Paths) -> Options:
    """The options, in order (--quick sets what later options may change);
    --help prints the usage and exits 0, a mistake exits 2."""
    opts = Options(argv)
    args = list(argv)
    while args:
        arg = args[0]
        if arg in VALUED:
            if len(args) < 2:
                usage_error(f"{arg} needs a value")
            setattr(opts, VALUED[arg], args[1])
            del args[:2]
        elif arg == "--no-build":
            opts.do_build = False
            del args[0]
        elif arg == "--quick":
            opts.pairs, opts.window, opts.warmup = "1", "2", "1"
            opts.retries, opts.wait_idle = "1", "5"
            del args[0]
        elif arg in ("-h", "--help"):
            sys.stdout.write(usage(opts, paths))
            sys.exit(0)
        else:
            usage_error(f"unknown option '{arg}' (see --help)")
    return opts


def is_executable(path: str) -> bool:
    return bool(path) and os.access(path, os.X_OK)


def check(opts: Options):
    """The values' form, and the set-ups and comparisons named."""
    for name in ("pairs", "flows", "hugepages"):
        value = getattr(opts, name)
        if not (re.fullmatch(r"[0-9]+", value) and int(value) > 0):
            common.die(f"--{name} needs a positive integer, not '{value}'")
    for name in ("retries", "wait_idle"):
        value = getattr(opts, name)
        if not re.fullmatch(r"[0-9]+", value):
            common.die(f"--{name.replace('_', '-')} needs an integer >= 0, not '{value}'")
    for name in ("window", "warmup", "min_share"):
        value = getattr(opts, name)
        if not re.fullmatch(r"[0-9]+([.][0-9]+)?", value):
            common.die(f"--{name.replace('_', '-')} needs a number, not '{value}'")
    for setup in opts.setup_list:
        if setup not in SETUP_NAMES:
            common.die(f"unknown set-up '{setup}'")
    for comp in opts.comparison_list:
        if comp not in COMPARISON_NAMES:
            common.die(f"unknown comparison '{comp}' ({', '.join(COMPARISON_NAMES)})")
        if comp.startswith("base-") and not is_executable(opts.baseline):
            common.die(f"{comp} needs --baseline BIN (an executable pmdfwd)")
        if comp in ("l3", "l3-v6", "l3-routes", "base-l3") and int(opts.flows) > 256:
            common.die(f"{comp}: the router captures have at most 256 flows (one per /24)")
