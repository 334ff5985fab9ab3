"""The comparisons that are programs of their own and run once, not per
set-up: the log channel's send latency (netlog), the router's lookup (fib),
a handoff step by step (handoff-steps), the poll modes (poll), the
router's exception path (exception), a full table (full-table) and the
instructions a packet of every program under callgrind (instructions)."""
import os
import re

import bench_callgrind
import bench_common as common
from bench_common import MAIN_CPU, WORKER_CPU, die, log
from bench_peers import SetUp

# Run once before the set-ups, not in each of them.
ONCE_ONLY = ("netlog", "poll", "fib", "handoff-steps", "exception", "full-table",
             "instructions")


class Outputs:
    """Each program's output file, which the results quote when not empty."""

    def __init__(self, paths: common.Paths):
        self.netlog = f"{paths.out}/netlog.txt"
        self.fib = f"{paths.out}/fib.txt"
        self.steps = f"{paths.out}/handoff-steps.txt"
        self.poll = f"{paths.out}/poll.txt"
        self.exception = f"{paths.out}/exception.txt"
        self.full_table = f"{paths.out}/full-table.txt"
        self.instructions = f"{paths.out}/instructions.txt"

    def clear(self):
        for path in (self.netlog, self.fib, self.steps, self.poll, self.exception,
                     self.full_table, self.instructions):
            if os.path.exists(path):
                os.remove(path)


def count_lines(path: str, pattern: str) -> int:
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if re.search(pattern, line))
    except OSError:
        return 0


def run_netlog(paths, outputs: Outputs, wait_idle):
    """The log channel's send latency: one program that alternates the two
    send paths itself, sending on the worker cpu; run three times: refilled
    by the sender between its sends (a record of the main lcore), refilled
    from the main cpu while the sender is elsewhere (a record of a worker),
    and that with 4 MB written between records (a worker's log line amid
    forwarding)."""
    placements = [["--refill-cpu", "-1"], ["--refill-cpu", str(MAIN_CPU)],
                  ["--refill-cpu", str(MAIN_CPU), "--dirty-kb", "4096"]]
    for placement in placements:
        wait_idle()
        log(f"netlog: {common.NETLOG_RECORDS} records x {common.NETLOG_ROUNDS} rounds "
            f"per send path, {' '.join(placement)}")
        prefix = f"pb{os.getpid()}-netlog"
        with open(outputs.netlog, "ab") as out, open(f"{paths.logs}/netlog.log", "ab") as err:
            common.run([f"{paths.build}/test/netlog_bench", "--records", str(common.NETLOG_RECORDS),
                        "--rounds", str(common.NETLOG_ROUNDS), *placement, "--",
                        "--no-huge", "-m", "256", "--no-pci", "--vdev", "net_null0",
                        "--file-prefix", prefix, "-l", str(WORKER_CPU),
                        "--log-level", "lib.eal:error", "--no-telemetry"],
                       stdout=out, stderr=err)
        common.remove_runtime_dir(prefix)
    if count_lines(outputs.netlog, r"^result:") != 3:
        die(f"netlog_bench failed; see {paths.out}/logs/netlog.log")


def run_fib(paths, opts, outputs: Outputs, wait_idle):
    """The router's lookup alone: rte_fib against rte_lpm, its own program."""
    bench = f"{paths.build}/test/fib_lookup_bench"
    if not os.access(bench, os.X_OK):
        die(f"{bench} missing (run without --no-build)")
    wait_idle()
    log(f"fib: rte_fib against rte_lpm, {opts.pairs} x 2 + 1 rounds")
    prefix = f"pb{os.getpid()}-fib"
    with open(outputs.fib, "wb") as out, open(f"{paths.logs}/fib.log", "wb") as err:
        status = common.run([bench, "--rounds", str(int(opts.pairs) * 2 + 1), "--",
                             "--no-huge", "-m", "1024", "--no-pci", "-l", str(WORKER_CPU),
                             "--file-prefix", prefix, "--no-telemetry",
                             "--log-level", "lib.eal:error", "--force-max-simd-bitwidth=512"],
                            stdout=out, stderr=err)
    if status != 0:
        die(f"fib_lookup_bench failed; see {paths.out}/logs/fib.log")
    common.remove_runtime_dir(prefix)


def run_handoff_steps(paths, opts, outputs: Outputs, hugepages, wait_idle):
    """A handoff's cost step by step: its own program, in both memory modes."""
    bench = f"{paths.build}/test/handoff_bench"
    if not os.access(bench, os.X_OK):
        die(f"{bench} missing (run without --no-build)")
    rounds = int(opts.pairs) * 2 + 1
    for name in ("null", "null-huge"):
        setup = SetUp(name, "")
        if setup.huge:
            hugepages.reserve()
        wait_idle()
        log(f"handoff-steps: {name} memory, {rounds} rounds")
        prefix = f"pb{os.getpid()}-steps"
        with open(outputs.steps, "ab") as out, open(f"{paths.logs}/handoff-steps.log", "ab") as err:
            out.write(b"with 2 MB hugepages:\n" if setup.huge else b"with 4 KB pages:\n")
            out.flush()
            status = common.run([bench, "--rounds", str(rounds), "--", *setup.eal_mem_args(),
                                 "--no-pci",
                                 "--lcores", f"0@{MAIN_CPU},1@{MAIN_CPU},2@{WORKER_CPU}",
                                 "--file-prefix", prefix, "--no-telemetry",
                                 "--log-level", "lib.eal:error"],
                                stdout=out, stderr=err)
        if status != 0:
            die(f"handoff_bench failed; see {paths.out}/logs/handoff-steps.log")
        common.remove_runtime_dir(prefix)
        if setup.huge:
            hugepages.restore()


def run_poll(paths, opts, outputs: Outputs, wait_idle):
    """Poll modes: pmdgen and pmdfwd over memif and tap, its own program."""
    wait_idle()
    log(f"poll: pmdgen <-> pmdfwd per poll mode, {opts.pairs} rounds")
    with open(outputs.poll, "wb") as out, open(f"{paths.logs}/poll.log", "wb") as err:
        common.run([common.PY, paths.helper("bench_poll.py"), "--build", paths.build,
                    "--out", paths.out, "--rounds", opts.pairs,
                    "--json-out", f"{paths.out}/poll.json",
                    "--main-cpu", str(MAIN_CPU), "--worker-cpu", str(WORKER_CPU)],
                   stdout=out, stderr=err)
    if count_lines(outputs.poll, r"^verdict") == 0:
        die(f"bench_poll.py failed; see {paths.out}/logs/poll.log")


def run_round_script(paths, opts, output: str, name: str, done_pattern: str, wait_idle):
    """A comparison that is a script of its own, run with the build, --pairs
    and --window: its output is the results' text; done_pattern proves it
    finished."""
    wait_idle()
    with open(output, "wb") as out, open(f"{paths.logs}/{name}.log", "wb") as err:
        common.run([f"{paths.root}/scripts/lib/bench_{name.replace('-', '_')}.sh", paths.build,
                    str(opts.pairs), str(opts.window)], stdout=out, stderr=err)
    if count_lines(output, done_pattern) == 0:
        die(f"bench_{name.replace('-', '_')}.sh failed; see {paths.out}/logs/{name}.log")


def run_exception(paths, opts, outputs: Outputs, wait_idle):
    """The router's exception path (a port's kernel interface) against the
    workers' path: TCP and UDP round trips."""
    log(f"exception: kernel interface against the workers, {opts.pairs} rounds")
    run_round_script(paths, opts, outputs.exception, "exception", r"^exception path", wait_idle)


def run_full_table(paths, opts, outputs: Outputs, wait_idle):
    """A full Internet table through the kernel while the flows go on."""
    log(f"full-table: 1,200,000 kernel routes, {opts.pairs} churn rounds of {opts.window} s")
    run_round_script(paths, opts, outputs.full_table, "full-table", r"churn medians", wait_idle)


def run_once_only(paths, opts, outputs: Outputs, hugepages, wait_idle, art, peers):
    """Those of the once-only comparisons asked for, in their fixed order."""
    comps = opts.comparison_list
    outputs.clear()
    if "netlog" in comps:
        run_netlog(paths, outputs, wait_idle)
    if "fib" in comps:
        run_fib(paths, opts, outputs, wait_idle)
    if "handoff-steps" in comps:
        run_handoff_steps(paths, opts, outputs, hugepages, wait_idle)
    if "poll" in comps:
        run_poll(paths, opts, outputs, wait_idle)
    if "exception" in comps:
        run_exception(paths, opts, outputs, wait_idle)
    if "full-table" in comps:
        run_full_table(paths, opts, outputs, wait_idle)
    if "instructions" in comps:
        bench_callgrind.run_instructions(paths, art, peers, outputs.instructions, wait_idle)
