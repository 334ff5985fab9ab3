"""One measured window of one peer, and what keeps it honest: waiting for an
idle machine, rerunning a window other load disturbed, and (for the handoff)
probing where the host put the two CPUs."""
import os
import re
import signal
import subprocess
import sys
import time

import bench_common as common
from bench_common import MAIN_CPU, WORKER_CPU, log
from bench_peers import FOREIGN_PEERS

RUNS_HEADER = ("setup\tcomparison\tpair\tside\tpeer\tmpps\tmpps_per_cpu\tcpu_share\tsteal\tpkts\t"
               "elapsed_s\tattempts\tmin_share\tlink_ns\n")


def read_cpu_line():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu "):
                return [int(v) for v in line.split()[1:9]]
    return [0] * 8


def cpu_busy() -> str:
    """Busy share of all CPUs over the next second, from /proc/stat."""
    before = read_cpu_line()
    time.sleep(1)
    after = read_cpu_line()
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta)
    idle = delta[3] + delta[4]  # idle and iowait
    return f"{(1 - idle / total) if total > 0 else 0:.2f}"


def wait_idle(limit_s: int):
    """Waits (up to LIMIT_S seconds) until the machine is idle between runs:
    the scheduler spreads any other runnable work over every CPU, the
    worker's included, once the worker busy-polls."""
    if limit_s <= 0:
        return
    waited = 0
    while True:
        busy = cpu_busy()
        if float(busy) < 0.10:
            if waited != 0:
                log(f"machine idle after {waited} s")
            return
        if waited == 0:
            log(f"CPUs {busy} busy with other work; waiting up to {limit_s} s")
        waited += 1
        if waited >= limit_s:
            log(f"CPUs still {busy} busy after {limit_s} s; measuring anyway")
            return


def link_probe(paths: common.Paths) -> str:
    """Where the host has put the two CPUs, for the handoff windows: ns a
    packet to pass pointers from one to the other and back (handoff_bench
    --probe), about 3 when they share a core and 11 when they do not; empty
    without it."""
    probe = f"{paths.build}/test/handoff_bench"
    prefix = f"pb{os.getpid()}-probe"
    out = ""
    if os.access(probe, os.X_OK):
        with subprocess.Popen([probe, "--probe", "--rounds", "3", "--packets", "4000000", "--",
                               "--no-huge", "-m", "64", "--no-pci",
                               "--lcores", f"0@{MAIN_CPU},1@{MAIN_CPU},2@{WORKER_CPU}",
                               "--file-prefix", prefix, "--no-telemetry",
                               "--log-level", "lib.eal:error"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) as proc:
            try:
                out = proc.communicate()[0]
            except BaseException:
                common.stop_process(proc, signal.SIGINT, 15.0)
                raise
        common.remove_runtime_dir(prefix)
    return "\n".join(m.group(1) for m in re.finditer(r"^link_ns ([0-9.]*)$", out, re.M))


def farthest(*probes: str) -> str:
    """The largest of the probes' values, as sort -g | tail -n 1 picks it."""
    values = []
    for probe in probes:
        for value in probe.split("\n"):
            try:
                float(value)
                values.append(value)
            except ValueError:
                pass
    return max(values, key=float) if values else ""


def field(pattern: str, line: str) -> str:
    """One key's value from the rate helper's key=value line ('' when absent)."""
    return "\n".join(m.group(1) for m in (re.match(pattern, ln) for ln in line.split("\n")) if m)


def share_value(text: str):
    try:
        return float(text)
    except ValueError:
        return None


class Measurer:
    """Takes the windows and writes each kept one to runs.tsv."""

    def __init__(self, paths: common.Paths, opts, peers):
        self.paths = paths
        self.opts = opts
        self.peers = peers
        self.runs = f"{paths.out}/runs.tsv"
        self.rate_out = f"{paths.out}/rate.out"
        self.rate_proc = None
        with open(self.runs, "w") as f:
            f.write(RUNS_HEADER)

    def wait_idle(self):
        wait_idle(int(self.opts.wait_idle))

    def rate(self, setup, logf: str) -> str:
        """The rate helper's line for the running peer: its TX rate on port 1."""
        proc = self.peers.proc
        if proc is None:
            return ""
        with open(self.rate_out, "wb") as out, open(logf, "ab") as err:
            self.rate_proc = common.spawn(
                [common.PY, self.paths.helper("bench_tx_rate.py"), "--prefix", self.peers.prefix,
                 "--pid", str(proc.pid), "--port", "1", "--expect-name", "net_null1",
                 "--expect-rx-name", setup.port0_name, "--warmup", self.opts.warmup,
                 "--window", self.opts.window], stdout=out, stderr=err)
        self.rate_proc.wait()
        self.rate_proc = None
        with open(self.rate_out, errors="replace") as f:
            return f.read().rstrip("\n")

    def stop_rate(self):
        if self.rate_proc is not None:
            self.rate_proc.terminate()
            self.rate_proc = None

    def measure(self, setup, comp: str, pair: int, side: str, peer: str):
        """One window of PEER; reruns a window that other load disturbed
        (keeps the least disturbed one)."""
        retries = int(self.opts.retries)
        min_share = float(self.opts.min_share)
        best_line, best_share, best_share_text, best_link = "", -1.0, "-1", ""
        link_before = link = ""
        attempt = 1
        while attempt <= retries + 1:
            logf = f"{self.paths.logs}/{setup.name}-{peer}-{pair}-{attempt}.log"
            self.wait_idle()
            if comp == "handoff":
                link_before = link_probe(self.paths)
            self.peers.start(setup, peer, logf)
            line = self.rate(setup, logf)
            status = self.peers.stop()
            if comp == "handoff":
                # The farther of the placements seen before and after the window.
                link = farthest(link_before, link_probe(self.paths))
            if not line.startswith("mpps="):
                log(f"{setup.name} {peer}: no measurement ({line}); last lines of {logf}:")
                self.show_log_tail(logf)
                raise common.BenchFailed()
            if peer not in FOREIGN_PEERS and status != 0:
                log(f"{setup.name} {peer}: pmdfwd exited {status} "
                    f"(3: mbufs missing at shutdown); see {logf}")
                self.show_log_problems(logf)
                raise common.BenchFailed()
            share_text = field(r".*cpu_share=([0-9.]*)", line)
            share = share_value(share_text)
            if share is not None and share > best_share:
                best_line, best_share, best_share_text, best_link = line, share, share_text, link
            if share is not None and share >= min_share:
                break
            if attempt <= retries:
                log(f"{setup.name} {peer}: forwarding thread ran only {share_text} "
                    "of the window; again")
            attempt += 1
        # When no window was undisturbed, the count runs one past the last
        # attempt, as it always has in runs.tsv.
        mpps = field(r"^mpps=([0-9.]*)", best_line)
        per_cpu = field(r".*mpps_per_cpu=([0-9.]*)", best_line)
        pkts = field(r".* pkts=([0-9]*)", best_line)
        elapsed = field(r".*elapsed_s=([0-9.]*)", best_line)
        steal = field(r".*steal=([-0-9.]*)", best_line)
        row = [setup.name, comp, str(pair), side, peer, mpps, per_cpu, best_share_text, steal, pkts,
               elapsed, str(attempt), self.opts.min_share, best_link]
        with open(self.runs, "a") as f:
            f.write("\t".join(row) + "\n")
        log(f"{setup.name:<10} {comp:<6} pair {pair} {side} {peer:<13} {mpps:>8} Mpps  "
            f"(cpu share {best_share_text}, steal {steal})")

    @staticmethod
    def show_log_tail(logf: str):
        try:
            with open(logf, errors="replace") as f:
                lines = f.read().splitlines(keepends=True)
        except OSError:
            return
        sys.stderr.write("".join(lines[-15:]))
        sys.stderr.flush()

    @staticmethod
    def show_log_problems(logf: str):
        try:
            with open(logf, errors="replace") as f:
                hits = [ln for ln in f if re.search(r"missing|double free|error|critical", ln)]
        except OSError:
            return
        sys.stderr.write("".join(hits))
        sys.stderr.flush()
