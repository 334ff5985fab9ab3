"""The instructions comparison: pmdfwd and the DPDK peers under callgrind
on the pcap set-up, each split into the drivers' instructions a packet and
the program's own (callgrind_costs.py), and the own ratios against the
targets. Counting, not timing: one run of each program is the figure, and
a busy machine does not change it."""
import glob
import os
import time

import bench_common as common
from bench_common import die, log
from bench_peers import SetUp
from bench_tx_rate import Telemetry, dpdk_runtime_dir
from callgrind_costs import Profile

# Run in this order, each with the loop callgrind collects in:
# l2fwd_main_loop is inlined into its caller; None: testpmd, whose binary
# has no symbols, is profiled per thread, and its forwarding thread is the
# one that sent the packets.
PROGRAMS = [("pmdfwd-patch", "pmdfwd::worker_main*"),
            ("testpmd-io", None),
            ("pmdfwd-l2", "pmdfwd::worker_main*"),
            ("l2fwd", "l2fwd_launch_one_lcore"),
            ("pmdfwd-l3", "pmdfwd::worker_main*"),
            ("l3fwd", "lpm_main_loop"),
            ("pmdfwd-l3v6", "pmdfwd::worker_main*"),
            ("l3fwd-v6", "lpm_main_loop")]
# pmdfwd against its peer for the same work.
PAIRS = [("pmdfwd-patch", "testpmd-io"), ("pmdfwd-l2", "l2fwd"), ("pmdfwd-l3", "l3fwd"),
         ("pmdfwd-l3v6", "l3fwd-v6")]
PACKETS = 2_000_000
STOP_GRACE_S = 120.0


def opackets(prefix: str) -> int:
    """Port 1's packets sent, or 0 while the process does not answer yet."""
    try:
        t = Telemetry(f"{dpdk_runtime_dir(prefix)}/dpdk_telemetry.v2")
        return int(t.query("/ethdev/stats,1")["opackets"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def profile_one(paths, peers, setup: SetUp, peer: str, loop) -> Profile:
    out = f"{paths.out}/callgrind/{peer}.callgrind"
    for stale in glob.glob(f"{out}*"):
        os.remove(stale)
    wrap = ["valgrind", "--tool=callgrind", "--fair-sched=yes", f"--callgrind-out-file={out}"]
    wrap += [f"--toggle-collect={loop}"] if loop else ["--separate-threads=yes"]
    logf = f"{paths.logs}/instructions-{peer}.log"
    peers.wrap = wrap
    try:
        peers.start(setup, peer, logf)
        proc = peers.proc
        if proc is None:
            die(f"instructions: {peer} did not start; see {logf}")
        deadline = time.monotonic() + 600
        while opackets(peers.prefix) < PACKETS:
            if proc.poll() is not None or time.monotonic() > deadline:
                die(f"instructions: {peer} ended or stalled before {PACKETS} packets; see {logf}")
            time.sleep(0.5)
        peers.stop(grace_s=STOP_GRACE_S)
    finally:
        peers.wrap = []
    files = glob.glob(f"{out}*")
    if not files:
        die(f"instructions: {peer} left no profile; see {logf}")
    # Per thread (testpmd): the one whose sink freed the packets.
    best = max((Profile(f) for f in files), key=lambda p: p.packets)
    if best.packets == 0:
        die(f"instructions: no packet counted in {out}")
    return best


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(profiles: dict) -> (str, bool):
    """The table, the ratios and the targets; whether every target is met."""
    lines = ["instructions a packet (callgrind, pcap set-up: net_pcap0 -> net_null1, "
             f"{PACKETS} packets or more each)",
             f"{'program':<14} {'total':>8} {'drivers':>8} {'own':>8} {'packets':>10}"]
    for peer, _ in PROGRAMS:
        p = profiles[peer]
        n = p.packets
        lines.append(f"{peer:<14} {p.total / n:8.1f} {p.drivers / n:8.1f} {p.own / n:8.1f} "
                     f"{n:10d}")

    def own(peer):
        p = profiles[peer]
        return p.own / p.packets

    lines.append("own / peer's own:")
    for mine, theirs in PAIRS:
        lines.append(f"  {mine} / {theirs}: {own(mine):.1f} / {own(theirs):.1f} = "
                     f"{own(mine) / own(theirs):.3f}")
    targets = [
        (f"l3 IPv4 own <= l3fwd's own ({own('pmdfwd-l3'):.1f} <= {own('l3fwd'):.1f})",
         own("pmdfwd-l3") <= own("l3fwd")),
        (f"l3 IPv6 own <= IPv4's own + 10 ({own('pmdfwd-l3v6'):.1f} <= "
         f"{own('pmdfwd-l3') + 10:.1f})", own("pmdfwd-l3v6") <= own("pmdfwd-l3") + 10),
        (f"l2 own <= 0.8 x l2fwd's own ({own('pmdfwd-l2'):.1f} <= {0.8 * own('l2fwd'):.1f})",
         own("pmdfwd-l2") <= 0.8 * own("l2fwd")),
        (f"patch own <= 10 ({own('pmdfwd-patch'):.1f})", own("pmdfwd-patch") <= 10),
    ]
    met = True
    for text, ok in targets:
        lines.append(f"target: {text}: {verdict(ok)}")
        met = met and ok
    return "\n".join(lines) + "\n", met


def run_instructions(paths, art, peers, output: str, wait_idle):
    """Every program once under callgrind; the report into OUTPUT."""
    os.makedirs(f"{paths.out}/callgrind", exist_ok=True)
    setup = SetUp("pcap", art.pcap)
    profiles = {}
    for peer, loop in PROGRAMS:
        wait_idle()
        log(f"instructions: {peer} under callgrind until {PACKETS} packets")
        profiles[peer] = profile_one(paths, peers, setup, peer, loop)
        p = profiles[peer]
        log(f"instructions: {peer}: {p.line()}")
    text, met = report(profiles)
    with open(output, "w") as f:
        f.write(text)
    return met
