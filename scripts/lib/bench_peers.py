"""The peers: the set-ups' ports, which peers each comparison runs, and
starting and stopping one peer (with its dumpcap or metrics scraper)."""
import glob
import os
import signal
import stat
import subprocess
import time

import bench_common as common
from bench_common import (BURST, CACHE, DESC, MAIN_CPU, MBUFS, MEM_MB, NEXT_HOP_MAC, PORT1,
                          WORKER_CPU)
from bench_common import die, log
from bench_configs import (append, write_pmdfwd_config, write_pmdfwd_l3_config,
                           write_pmdfwd_scaling_config)

# The peers of each comparison, run in this order within every round.
PEERS = {"patch": ["pmdfwd-patch", "testpmd-io"],
         "patch-nolen": ["pmdfwd-nolen", "testpmd-io"],
         "l2": ["pmdfwd-l2", "l2fwd"],
         "latency": ["pmdfwd-lat", "pmdfwd-patch"],
         "color": ["pmdfwd-l2", "pmdfwd-l2-plain"],
         "handoff": ["ho-recycle", "ho-shared", "ho-stock", "same-recycle"],
         "capture": ["cap-off", "cap-on", "cap-filter", "cap-all"],
         "metrics": ["pmdfwd-scraped", "pmdfwd-patch"],
         "base-patch": ["pmdfwd-patch", "base-patch"],
         "base-l2": ["pmdfwd-l2", "base-l2"],
         "base-l3": ["pmdfwd-l3", "base-l3"],
         "l3": ["pmdfwd-l3", "l3fwd"],
         "l3-v6": ["pmdfwd-l3v6", "l3fwd-v6"],
         "l3-routes": ["pmdfwd-l3", "pmdfwd-l3-1k", "pmdfwd-l3-max", "pmdfwd-l3-100k"]}
# The scaling comparison's worker counts; each runs where the machine has a
# CPU for every worker besides the main lcore's (and the owner's).
SCALING_WORKERS = (1, 2, 4, 8, 12, 16)
SCALING_VARIANTS = ("stock", "shared", "owner")


def scaling_peers(cpus: int):
    """scale-N-VARIANT for every worker count and variant this machine has
    the CPUs for (see write_pmdfwd_scaling_config)."""
    return [f"scale-{n}-{v}" for n in SCALING_WORKERS for v in SCALING_VARIANTS
            if n + 1 + (v == "owner") <= cpus]


def peers_of(comp: str):
    """The peers of COMP, in their order within a round."""
    if comp == "scaling":
        return scaling_peers(os.cpu_count() or 1)
    return PEERS[comp]


ROUTER_PEERS = ("pmdfwd-l3", "pmdfwd-l3v6", "pmdfwd-l3-1k", "pmdfwd-l3-max", "pmdfwd-l3-100k")
# Peers that are not pmdfwd: their exit status says nothing about mbufs.
FOREIGN_PEERS = ("testpmd-io", "l2fwd", "l3fwd", "l3fwd-v6")


class SetUp:
    """Port 0 and the memory of one set-up (see --help)."""

    def __init__(self, name: str, pcap: str):
        self.name = name
        if name.startswith("null"):
            self.port0 = f"net_null0,size={common.FRAME}"
            self.port0_name = "net_null0"
        else:
            self.port0 = f"net_pcap0,rx_pcap={pcap},infinite_rx=1"
            self.port0_name = "net_pcap0"
        self.huge = name.endswith("-huge")

    def eal_mem_args(self):
        return ["--huge-unlink" if self.huge else "--no-huge", "-m", str(MEM_MB)]


def wait_for(condition, tries: int, step_s: float = 0.1) -> bool:
    for _ in range(tries):
        if condition():
            return True
        time.sleep(step_s)
    return False


def log_says(path: str, text: str) -> bool:
    try:
        with open(path, errors="replace") as f:
            return text in f.read()
    except OSError:
        return False


class Peers:
    """One peer at a time: what runs now, to stop it between runs and at exit."""

    def __init__(self, paths: common.Paths, art, opts):
        self.paths = paths
        self.art = art
        self.opts = opts
        self.proc = None
        self.prefix = None
        self.dumpcap = None
        self.scraper = None
        self.run_seq = 0
        # What each command starts under (valgrind, for the instructions
        # comparison); empty: the program itself.
        self.wrap = []

    def cfg_path(self, setup: SetUp, peer: str) -> str:
        return f"{self.paths.cfg}/{setup.name}-{peer}.toml"

    def launch(self, cmd, logf: str):
        """Starts CMD; one that cannot start says why in LOGF and leaves no
        peer, which the measurement reports as none taken."""
        with open(logf, "wb") as out:
            try:
                self.proc = common.spawn([*self.wrap, *cmd], stdout=out,
                                         stderr=subprocess.STDOUT)
            except OSError as e:
                out.write(f"{common.PROG}: {cmd[0]}: {e.strerror}\n".encode())

    def start(self, setup: SetUp, peer: str, logf: str):
        """Starts PEER in the background on SETUP, its output in LOGF."""
        self.run_seq += 1
        # Short: pmdfwd derives its mempool names from it (25-character limit).
        prefix = f"pb{os.getpid()}-{self.run_seq}"
        self.prefix = prefix
        eal = setup.eal_mem_args() + ["--no-pci", "--file-prefix", prefix]
        cfg = self.cfg_path(setup, peer)
        art = self.art
        if peer in ("pmdfwd-patch", "pmdfwd-l2"):
            write_pmdfwd_config(cfg, setup, peer.removeprefix("pmdfwd-"), prefix)
            self.launch([art.pmdfwd, "--config", cfg], logf)
        elif peer in ("base-patch", "base-l2"):
            write_pmdfwd_config(cfg, setup, peer.removeprefix("base-"), prefix)
            self.launch([art.pmdfwd_base, "--config", cfg], logf)
        elif peer == "pmdfwd-l2-plain":
            write_pmdfwd_config(cfg, setup, "l2", prefix, color=False)
            self.launch([art.pmdfwd, "--config", cfg], logf)
        elif peer == "pmdfwd-nolen":
            write_pmdfwd_config(cfg, setup, "patch", prefix, read_lengths=False)
            self.launch([art.pmdfwd, "--config", cfg], logf)
        elif peer == "pmdfwd-lat":
            write_pmdfwd_config(cfg, setup, "patch", prefix, latency=True)
            self.launch([art.pmdfwd, "--config", cfg], logf)
        elif peer == "pmdfwd-scraped":
            self.start_scraped(setup, cfg, prefix, logf)
        elif peer in ("cap-off", "cap-on", "cap-filter", "cap-all"):
            write_pmdfwd_config(cfg, setup, "patch", prefix, capture=peer != "cap-off",
                                lcores=f"64@{MAIN_CPU},65@{WORKER_CPU}")
            self.launch([art.pmdfwd, "--config", cfg], logf)
            if peer in ("cap-filter", "cap-all"):
                self.start_dumpcap(setup, peer, logf)
        elif peer in ("ho-recycle", "ho-shared", "ho-stock", "same-recycle"):
            model = peer.split("-", 1)[1]
            if model == "stock":
                model = "per-worker-stock"
            tx = "per-worker" if peer.startswith("same-") else "owner"
            write_pmdfwd_config(cfg, setup, "patch", prefix, model=model, tx=tx)
            self.launch([art.pmdfwd, "--config", cfg], logf)
        elif peer == "testpmd-io":
            # --stats-period keeps testpmd running with stdin closed; one
            # forwarding core polls both ports' streams (port 1 never
            # receives), as io mode always does.
            self.launch(["dpdk-testpmd", "--lcores", f"0@{MAIN_CPU},1@{WORKER_CPU}",
                         "--main-lcore", "0", *eal, "--vdev", setup.port0, "--vdev", PORT1, "--",
                         "--nb-cores=1", "--forward-mode=io", "--port-topology=chained",
                         f"--burst={BURST}", f"--mbcache={CACHE}", f"--total-num-mbufs={MBUFS}",
                         "--rxq=1", "--txq=1", f"--rxd={DESC}", f"--txd={DESC}",
                         "--stats-period=3600", "--no-lsc-interrupt", "--no-rmv-interrupt"], logf)
        elif peer == "base-l3":
            write_pmdfwd_l3_config(cfg, setup, prefix, art.pcap_l3v4,
                                   art.routes_toml(common.L3_ROUTES))
            self.launch([art.pmdfwd_base, "--config", cfg], logf)
        elif peer in ROUTER_PEERS:
            self.start_router(setup, peer, cfg, prefix, logf)
        elif peer.startswith("scale-"):
            _, workers, variant = peer.split("-")
            write_pmdfwd_scaling_config(cfg, setup, prefix, int(workers), variant)
            self.launch([art.pmdfwd, "--config", cfg], logf)
        elif peer in ("l3fwd", "l3fwd-v6"):
            # As l2fwd: its main lcore, on the worker CPU, forwards. It polls
            # port 0 alone (--config), routes with rte_lpm (IPv4: lookupx4,
            # four at a time; IPv6: rte_lpm6, one at a time), writes port 1's
            # MAC and --eth-dest, decrements the TTL and updates the
            # checksum after its RFC 1812 checks. Neither port reports packet
            # types, so it parses them itself (--parse-ptype: an rx callback).
            capture = art.pcap_l3v6 if peer == "l3fwd-v6" else art.pcap_l3v4
            self.launch([art.l3fwd, "--lcores", f"1@{WORKER_CPU}", *eal,
                         "--vdev", f"net_pcap0,rx_pcap={capture},infinite_rx=1",
                         "--vdev", PORT1, "--",
                         "-p", "0x3", "--config", "(0,0,1)", "--lookup=lpm", "--parse-ptype",
                         f"--eth-dest=1,{NEXT_HOP_MAC}",
                         f"--rule_ipv4={art.l3_dir}/l3fwd-v4.cfg",
                         f"--rule_ipv6={art.l3_dir}/l3fwd-v6.cfg"], logf)
        elif peer == "l2fwd":
            # Its main lcore forwards (it launches its loop on every lcore),
            # so the only lcore is the one on the worker CPU; EAL's control
            # threads go to the CPUs no lcore uses. -T 0: no stats printing
            # from the forwarding loop. MAC updating stays on.
            self.launch([art.l2fwd, "--lcores", f"1@{WORKER_CPU}", *eal, "--vdev", setup.port0,
                         "--vdev", PORT1, "--", "-p", "0x3", "-q", "2", "-T", "0"], logf)

    def start_scraped(self, setup: SetUp, cfg: str, prefix: str, logf: str):
        """The endpoint on a port of this run; a scraper on the main CPU that
        reads it all, 10 times a second, until stop."""
        port = 20000 + (self.run_seq + os.getpid()) % 20000
        write_pmdfwd_config(cfg, setup, "patch", prefix)
        append(cfg, f'metrics = "127.0.0.1:{port}"\n')
        self.launch([self.art.pmdfwd, "--config", cfg], logf)
        self.scraper = common.spawn(
            ["taskset", "-c", str(MAIN_CPU), "bash", "-c",
             f"while :; do curl -s -o /dev/null http://127.0.0.1:{port}/metrics; sleep 0.1; done"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start_router(self, setup: SetUp, peer: str, cfg: str, prefix: str, logf: str):
        art = self.art
        capture = art.pcap_l3v6 if peer == "pmdfwd-l3v6" else art.pcap_l3v4
        routes = {"pmdfwd-l3-1k": common.L3_ROUTES_1K,
                  "pmdfwd-l3-max": common.L3_ROUTES_MAX}.get(peer, common.L3_ROUTES)
        write_pmdfwd_l3_config(cfg, setup, prefix, capture, art.routes_toml(routes))
        if peer == "pmdfwd-l3-100k":
            append(cfg, f"[l3]\nmax_routes = {common.L3_ROUTES_100K + 1024}\n")
        self.launch([art.pmdfwd, "--config", cfg], logf)
        if peer != "pmdfwd-l3-100k":
            return
        # The table is complete before the warm-up starts: the routes beyond
        # the config's go in over telemetry.
        sock = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
        started = wait_for(lambda: is_socket(sock) and log_says(logf, "running:"), 301)
        if not started:
            die(f"{peer} did not start")
        with open(logf, "ab") as err:
            status = common.run([common.PY, self.paths.helper("bench_l3_routes.py"),
                                 "--v4", str(common.L3_ROUTES_100K), "--v6", str(common.L3_ROUTES),
                                 "--telemetry", prefix, "--from", str(common.L3_ROUTES)],
                                stderr=err)
        if status != 0:
            die(f"adding {common.L3_ROUTES_100K} routes to {peer} failed")

    def start_dumpcap(self, setup: SetUp, peer: str, logf: str):
        """Once pmdfwd runs, dpdk-dumpcap on the main CPU captures port 0
        until stop: through a filter that matches nothing (cap-filter) or all
        of it."""
        for _ in range(300):
            if log_says(logf, "running:"):
                break
            if self.proc is None or self.proc.poll() is not None:
                die(f"{peer}: pmdfwd exited at start; see {logf}")
            time.sleep(0.1)
        filter_args = ["-f", "udp port 9"] if peer == "cap-filter" else []
        dumpcap_log = f"{logf}.dumpcap"
        # stdbuf: its "Capturing on" line, which says the callbacks are in place.
        with open(dumpcap_log, "wb") as out:
            self.dumpcap = common.spawn(
                ["taskset", "-c", str(MAIN_CPU), "stdbuf", "-oL", "dpdk-dumpcap",
                 "--file-prefix", self.prefix, "-i", setup.port0_name, *filter_args,
                 "-q", "-w", "/dev/null"],
                stdout=out, stderr=subprocess.STDOUT)
        for _ in range(300):
            if log_says(dumpcap_log, "Capturing on"):
                return
            if self.dumpcap.poll() is not None:
                break
            time.sleep(0.1)
        die(f"{peer}: dpdk-dumpcap did not attach; see {dumpcap_log}")

    def stop(self, grace_s: float = 15.0) -> int:
        """Stops the peer and what runs beside it, removes its runtime files;
        the peer's exit status (0 when none ran). GRACE_S: how long it may
        take to end after SIGINT."""
        if self.scraper is not None:
            common.stop_process(self.scraper, signal.SIGTERM, 15.0)
            self.scraper = None
        if self.dumpcap is not None:
            common.stop_process(self.dumpcap, signal.SIGINT, 15.0)
            self.dumpcap = None
        if self.proc is None:
            return 0
        proc, status = self.proc, 0
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                log(f"pid {proc.pid} ignored SIGINT for {grace_s:.0f} s; killing it")
                proc.kill()
        status = common.exit_status(proc.wait())
        self.proc = None
        if self.prefix:
            common.remove_runtime_dir(self.prefix)
            for leftover in glob.glob(f"/dev/hugepages/{glob.escape(self.prefix)}map_*"):
                try:
                    os.remove(leftover)
                except OSError:
                    pass
            self.prefix = None
        return status


def is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False
