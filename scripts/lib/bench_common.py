"""What every part of scripts/bench shares: the parameters every peer gets,
where things go, logging, failing, and running child processes."""
import os
import shutil
import signal
import subprocess
import sys
import time

# What every peer gets; change them here and the comparison stays fair.
MAIN_CPU = 0
WORKER_CPU = 1
BURST = 32
MBUFS = 8192      # l2fwd's own pool size for two ports: max(2 x (1024+1024+32+256), 8192)
CACHE = 256       # l2fwd's MEMPOOL_CACHE_SIZE
DESC = 1024       # l2fwd's rx/tx descriptor default
MEM_MB = 512
FRAME = 64
NEXT_HOP_MAC = "02:00:00:00:00:01"  # what l2fwd writes as destination for port 1
PORT1 = "net_null1,no-rx=1"
# net_pcap0's MAC (DPDK's pcap PMD: 02:70:63:61:70:<index>): router mode
# takes only frames to its port's own MAC.
PCAP0_MAC = "02:70:63:61:70:00"

NETLOG_RECORDS = 2000
NETLOG_ROUNDS = 5
L3_ROUTES = 512         # routes of each family in the l3 comparisons
L3_ROUTES_1K = 1024
L3_ROUTES_MAX = 16384   # the largest power of two that fits pmdfwd's 1 MiB config
L3_ROUTES_100K = 100000  # the rest added at run time (pmdctl route add's request)

# Debian's interpreter: the helpers need its packages (scapy), not whatever
# python3 comes first on PATH.
PY = "/usr/bin/python3"
PROG = "scripts/bench"


class Paths:
    """The tree, the build directory and the bench's own directory in it."""

    def __init__(self):
        self.lib = os.path.dirname(os.path.abspath(__file__))
        self.root = os.path.dirname(os.path.dirname(self.lib))
        self.build = os.environ.get("BUILD_DIR") or f"{self.root}/build"
        self.out = f"{self.build}/bench"
        # As the usage text and results name it: relative to the tree when inside it.
        prefix = f"{self.root}/"
        self.out_rel = self.out[len(prefix):] if self.out.startswith(prefix) else self.out
        self.logs = f"{self.out}/logs"
        self.cfg = f"{self.out}/cfg"

    def helper(self, name: str) -> str:
        return f"{self.lib}/{name}"


class BenchFailed(Exception):
    """Ends the run after cleanup with STATUS (2: the benchmark failed);
    MESSAGE, when there is one, goes to stderr first."""

    def __init__(self, message=None, status=2):
        super().__init__(message)
        self.message = message
        self.status = status


class Interrupted(Exception):
    """SIGINT or SIGTERM: stop at once, clean up, exit 130."""


def die(message: str):
    raise BenchFailed(message)


def log(message: str):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def runtime_dir(prefix: str) -> str:
    """EAL's rule, as dpdk-telemetry.py applies it (the bench runs as root)."""
    base = os.environ.get("RUNTIME_DIRECTORY") or "/var/run"
    return f"{base}/dpdk/{prefix}"


def remove_runtime_dir(prefix: str):
    shutil.rmtree(runtime_dir(prefix), ignore_errors=True)


def newer(a: str, b: str) -> bool:
    """test's -nt: A exists and B does not, or A was modified after B."""
    try:
        ta = os.stat(a).st_mtime_ns
    except OSError:
        return False
    try:
        return ta > os.stat(b).st_mtime_ns
    except OSError:
        return True


def exit_status(returncode: int) -> int:
    """A child's status as the shell reports it: 128 + N when signal N ended it."""
    return 128 - returncode if returncode < 0 else returncode


def spawn(cmd, stdout=None, stderr=None, **kwargs) -> subprocess.Popen:
    """Starts CMD with stdin closed; what this process printed so far goes out
    first, so a child sharing stdout cannot overtake it."""
    sys.stdout.flush()
    sys.stderr.flush()
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, **kwargs)


def finish(proc: subprocess.Popen) -> int:
    """Waits for PROC; when this process is stopped meanwhile (a signal), the
    child goes too rather than running on unattended."""
    try:
        return exit_status(proc.wait())
    except BaseException:
        stop_process(proc, signal.SIGINT, 15.0)
        raise


def run(cmd, stdout=None, stderr=None, **kwargs) -> int:
    """Runs CMD to its end; its exit status, or 127 when it cannot start."""
    try:
        proc = spawn(cmd, stdout=stdout, stderr=stderr, **kwargs)
    except OSError as e:
        print(f"{PROG}: {cmd[0]}: {e.strerror}", file=sys.stderr)
        return 127
    return finish(proc)


def stop_process(proc: subprocess.Popen, sig, grace_s: float) -> int:
    """Sends SIG, waits up to GRACE_S, then SIGKILL; the exit status."""
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
    return exit_status(proc.wait())
