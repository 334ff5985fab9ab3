"""What a run reports: the machine it ran on, and results.txt (the tables
from bench_summarize.py and the once-only programs' outputs) with the
verdict that becomes the exit status."""
import os
import re
import subprocess
import sys
import time

import bench_common as common
from bench_common import BURST, CACHE, DESC, FRAME, MAIN_CPU, MBUFS, WORKER_CPU


def started_at() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def output_of(cmd) -> str:
    """CMD's stdout without its trailing newlines, as $(...) gives it."""
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, errors="replace")
    except OSError:
        return ""
    return done.stdout.rstrip("\n")


def lscpu_field(lscpu: str, name: str) -> str:
    return "\n".join(m.group(1) for m in re.finditer(rf"^{name}: *(.*)$", lscpu, re.M))


def memory_gib() -> str:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1048576:.1f} GiB"
    return ""


def machine_info(opts, art, started: str) -> str:
    lscpu = output_of(["lscpu"])
    hypervisor = lscpu_field(lscpu, "Hypervisor vendor")
    cpus = os.sysconf("SC_NPROCESSORS_CONF")
    guest = f", {hypervisor} guest" if hypervisor else ""
    uname = os.uname()
    version = output_of([art.pmdfwd, "--version"]).split("\n")[0]
    return (f"date:      {started}\n"
            f"cpu:       {lscpu_field(lscpu, 'Model name')}, {cpus} CPUs{guest}\n"
            f"memory:    {memory_gib()}\n"
            f"kernel:    {uname.sysname} {uname.release}\n"
            f"dpdk:      {output_of(['pkg-config', '--modversion', 'libdpdk'])} (Debian packages)\n"
            f"pmdfwd:    {version}, tree {art.tree}\n"
            f"command:   {opts.command}\n"
            f"per run:   {opts.warmup} s warm-up, {opts.window} s window, {opts.pairs} A/B pairs, "
            f"{FRAME}-byte frames, burst {BURST}, {MBUFS} mbufs, cache {CACHE}, "
            f"{DESC} descriptors, worker cpu {WORKER_CPU}\n")


def read_text(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def summarize(paths: common.Paths, runs: str):
    """bench_summarize.py's tables and exit status; its complaints go to stderr."""
    sys.stdout.flush()
    done = subprocess.run([common.PY, paths.helper("bench_summarize.py"), runs],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
                          errors="replace")
    return done.stdout, done.returncode


def write_results(paths, opts, art, outputs, runs: str, started: str) -> int:
    """Writes results.txt, prints it with where the files are; the verdict:
    0 every target met, 1 one missed, or the summary's own failure."""
    verdict = 0
    parts = [machine_info(opts, art, started), "\n"]
    tables, status = summarize(paths, runs)
    parts.append(tables)
    if status != 0:
        verdict = status
    netlog = read_text(outputs.netlog)
    if netlog:
        parts += ["\n", "log channel send latency (build/test/netlog_bench, net_null, "
                        f"cpu {WORKER_CPU})\n", netlog]
        if re.search(r"^result:.*MISS$", netlog, re.M):
            verdict = 1
    fib = read_text(outputs.fib)
    if fib:
        parts += ["\n", f"router lookup (build/test/fib_lookup_bench, cpu {WORKER_CPU})\n", fib]
    steps = read_text(outputs.steps)
    if steps:
        parts += ["\n", "cross-core handoff step by step (build/test/handoff_bench, "
                        f"cpus {MAIN_CPU} and {WORKER_CPU})\n", steps]
    exception = read_text(outputs.exception)
    if exception:
        parts += ["\n", "router exception path (scripts/lib/bench_exception.sh, kernel "
                        "interface against the workers)\n", exception]
    full_table = read_text(outputs.full_table)
    if full_table:
        parts += ["\n", "full table (scripts/lib/bench_full_table.sh)\n", full_table]
    instructions = read_text(outputs.instructions)
    if instructions:
        parts += ["\n", instructions]
        if re.search(r"^target: .*MISS$", instructions, re.M):
            verdict = 1
    poll = read_text(outputs.poll)
    if poll:
        parts += ["\n", poll]
        if not re.search(r"^verdict: PASS", poll, re.M):
            verdict = 1
    results = f"{paths.out}/results.txt"
    text = "".join(parts)
    with open(results, "w") as f:
        f.write(text)
    sys.stdout.write(f"\n{text}\nresults: {results}; every run: {runs}\n")
    sys.stdout.flush()
    return verdict
