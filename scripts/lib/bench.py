#!/usr/bin/python3
"""scripts/bench: 64-byte forwarding on one worker lcore, pmdfwd against the
DPDK peers on the same two virtual ports, as ratios measured in one run
(docs/performance.md; --help lists the comparisons and options).

The order of a run: the command line and the machine's fitness; pmdfwd, the
DPDK examples, captures and route tables; the once-only programs; then, per
set-up, every comparison's A/B rounds; last the results. Exit status 0 when
every target is met, 1 when one is missed, 2 when the benchmark failed,
130 when interrupted. Whatever way it ends, the peer running stops and the
hugepages are given back."""
import os
import shutil
import signal
import subprocess
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_artefacts  # noqa: E402
import bench_common as common  # noqa: E402
import bench_options  # noqa: E402
import bench_programs  # noqa: E402
import bench_report  # noqa: E402
from bench_common import MAIN_CPU, WORKER_CPU, die, log  # noqa: E402
from bench_hugepages import Hugepages  # noqa: E402
from bench_measure import Measurer  # noqa: E402
from bench_peers import Peers, SetUp, peers_of  # noqa: E402

# A comparison's peers by their place in a round (scaling has up to 18).
SIDES = tuple(chr(ord("A") + i) for i in range(26))


def check_machine():
    if os.geteuid() != 0:
        die("needs root (DPDK EAL, hugepages)")
    if os.sysconf("SC_NPROCESSORS_CONF") <= WORKER_CPU:
        die(f"needs cpu {WORKER_CPU}")
    if shutil.which("dpdk-testpmd") is None:
        die("dpdk-testpmd not found (Debian package dpdk-dev)")
    found = subprocess.run(["pkg-config", "--exists", "libdpdk"], stdin=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL).returncode == 0
    if not found:
        die("libdpdk not found by pkg-config (Debian package libdpdk-dev)")
    if not os.access(common.PY, os.X_OK):
        die(f"{common.PY} not found")


def skipped(comp: str, setup: SetUp) -> bool:
    """Comparisons a set-up cannot run say so and are left out of it."""
    if comp == "capture" and not setup.huge:
        log(f"capture needs hugepages: not measured in set-up {setup.name} "
            "(use null-huge or pcap-huge)")
        return True
    if comp == "scaling" and setup.port0_name != "net_null0":
        log(f"scaling gives each worker an rx queue of net_null0: not measured in set-up "
            f"{setup.name} (use null or null-huge)")
        return True
    if comp == "scaling" and len(peers_of(comp)) <= 3:
        log(f"scaling: {os.cpu_count()} CPUs take one worker at most beside the main lcore's: "
            "measured for 1 worker only; the model's other counts need a larger machine")
    if (comp.startswith("l3") or comp == "base-l3") and setup.port0_name != "net_pcap0":
        log(f"{comp} routes the pcap set-ups' flows: not measured in set-up {setup.name} "
            "(use pcap or pcap-huge)")
        return True
    return False


def run_rounds(measurer: Measurer, setup: SetUp, comp: str, pairs: int):
    """A B, then B A, ...: no side always runs first in its round, so
    whatever the host does to the first (or second) run of a round falls on
    both."""
    peers = peers_of(comp)
    for pair in range(1, pairs + 1):
        for k in range(len(peers)):
            i = len(peers) - 1 - k if pair % 2 == 0 else k
            measurer.measure(setup, comp, pair, SIDES[i], peers[i])


class Bench:
    """One run, and what its cleanup has to undo."""

    def __init__(self, paths: common.Paths, opts: bench_options.Options):
        self.paths = paths
        self.opts = opts
        self.hugepages = Hugepages(int(opts.hugepages))
        self.peers = None
        self.measurer = None

    def run(self) -> int:
        paths, opts = self.paths, self.opts
        art = bench_artefacts.prepare(paths, opts)
        self.peers = Peers(paths, art, opts)
        self.measurer = Measurer(paths, opts, self.peers)
        started = bench_report.started_at()
        sys.stderr.write(bench_report.machine_info(opts, art, started))
        sys.stderr.flush()
        outputs = bench_programs.Outputs(paths)
        bench_programs.run_once_only(paths, opts, outputs, self.hugepages, self.measurer.wait_idle,
                                     art, self.peers)
        for name in opts.setup_list:
            setup = SetUp(name, art.pcap)
            if setup.huge:
                self.hugepages.reserve()
            for comp in opts.comparison_list:
                if comp in bench_programs.ONCE_ONLY or skipped(comp, setup):
                    continue
                run_rounds(self.measurer, setup, comp, int(opts.pairs))
            if setup.huge:
                self.hugepages.restore()
        return bench_report.write_results(paths, opts, art, outputs, self.measurer.runs, started)

    def cleanup(self):
        """Stops what still runs and gives the hugepages back; a second
        signal meanwhile ends it at once."""
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if self.measurer is not None:
            self.measurer.stop_rate()
        if self.peers is not None:
            self.peers.stop()
        self.hugepages.restore()


def interrupted(signum, frame):
    raise common.Interrupted()


def main(argv) -> int:
    paths = common.Paths()
    opts = bench_options.parse(argv, paths)
    bench = Bench(paths, opts)
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    status = 2
    try:
        bench_options.check(opts)
        check_machine()
        # This process and its helpers stay on the control CPU; EAL pins the lcores.
        os.sched_setaffinity(0, {MAIN_CPU})
        status = bench.run()
    except common.BenchFailed as failure:
        if failure.message:
            print(f"{common.PROG}: {failure.message}", file=sys.stderr, flush=True)
        status = failure.status
    except common.Interrupted:
        log("interrupted")
        status = 130
    except Exception:
        # A fault of the benchmark itself, not a missed target.
        traceback.print_exc()
        status = 2
    finally:
        bench.cleanup()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
