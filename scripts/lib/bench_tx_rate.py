#!/usr/bin/python3
"""Measure the TX packet rate of one DPDK port of a running process through
its telemetry socket, the same way for every application under test.

Waits for the socket and for traffic, checks the port's device name, lets the
process warm up, then reads /ethdev/stats,<port> at the start and end of a
window and prints one line: mpps=... pkts=... elapsed_s=... (key=value).
The elapsed time is the real time between the two reads (midpoint of each
request/response), not the nominal window.

It also says how much of the window the process's busiest thread (the
forwarding lcore, a busy poller) actually ran (cpu_share, from /proc task
times) and how much time the hypervisor stole from its CPU (steal), so a
window disturbed by other work on the machine can be recognised and rerun.
"""
import argparse
import json
import os
import socket
import sys
import time


class Telemetry:
    def __init__(self, path: str):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.connect(path)
        info = json.loads(self.sock.recv(1 << 16).decode())
        self.bufsize = int(info.get("max_output_len", 16384)) + 1024

    def query(self, cmd: str):
        self.sock.send(cmd.encode())
        reply = json.loads(self.sock.recv(self.bufsize).decode())
        return reply.get(cmd.split(",")[0])

    def timed_counter(self, port: int, key: str):
        t0 = time.monotonic()
        value = self.query(f"/ethdev/stats,{port}")[key]
        t1 = time.monotonic()
        return (t0 + t1) / 2, int(value)


CLK_TCK = os.sysconf("SC_CLK_TCK")


def dpdk_runtime_dir(prefix: str) -> str:
    """Where EAL puts a process's runtime files (the rule dpdk-telemetry.py uses)."""
    run_dir = os.environ.get("RUNTIME_DIRECTORY")
    if not run_dir:
        run_dir = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(run_dir, "dpdk", prefix)


def task_ticks(pid: int) -> dict:
    """utime+stime in clock ticks, and the last CPU, of every thread of pid."""
    out = {}
    if pid <= 0:
        return out
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is field 3 (state): utime is field 14, stime 15, processor 39.
        out[tid] = (int(fields[11]) + int(fields[12]), int(fields[36]))
    return out


def cpu_times() -> dict:
    """cpu number -> (steal, total) jiffies, from /proc/stat."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            name = line.split(" ", 1)[0]
            if name.startswith("cpu") and name[3:].isdigit():
                v = [int(x) for x in line.split()[1:9]]
                out[int(name[3:])] = (v[7] if len(v) > 7 else 0, sum(v))
    return out


def alive(pid: int) -> bool:
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is as good as gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def fail(msg: str) -> int:
    print(f"error={msg.replace(' ', '_')}", flush=True)
    print(f"tx_rate: {msg}", file=sys.stderr)
    return 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", required=True, help="EAL --file-prefix of the process")
    ap.add_argument("--port", type=int, default=1)
    ap.add_argument("--counter", default="opackets")
    ap.add_argument("--expect-name", default="", help="device name the port must have")
    ap.add_argument("--expect-rx-name", default="", help="device name port 0 must have")
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--start-timeout", type=float, default=60.0)
    ap.add_argument("--pid", type=int, default=0, help="give up if this process exits")
    a = ap.parse_args()

    path = os.path.join(dpdk_runtime_dir(a.prefix), "dpdk_telemetry.v2")
    deadline = time.monotonic() + a.start_timeout
    tel = None
    while tel is None:
        if not alive(a.pid):
            return fail(f"process {a.pid} exited before its telemetry socket answered")
        if time.monotonic() > deadline:
            return fail(f"no telemetry socket at {path} after {a.start_timeout:.0f} s")
        try:
            tel = Telemetry(path)
        except OSError:
            time.sleep(0.1)

    # The socket opens during EAL init, before the ports exist: wait for them.
    names = {}
    while True:
        if not alive(a.pid):
            return fail(f"process {a.pid} exited during start-up")
        try:
            for p in {0, a.port}:
                info = tel.query(f"/ethdev/info,{p}")
                names[p] = info["name"] if isinstance(info, dict) and "name" in info else None
            if all(names.values()) and tel.timed_counter(a.port, a.counter)[1] > 0:
                break
        except (OSError, ValueError, KeyError, TypeError):
            pass
        if time.monotonic() > deadline:
            return fail(f"port {a.port} sent nothing within {a.start_timeout:.0f} s "
                        f"(ports seen: {names})")
        time.sleep(0.1)
    if a.expect_name and names[a.port] != a.expect_name:
        return fail(f"port {a.port} is {names[a.port]}, expected {a.expect_name}")
    if a.expect_rx_name and names[0] != a.expect_rx_name:
        return fail(f"port 0 is {names[0]}, expected {a.expect_rx_name}")

    time.sleep(a.warmup)
    ticks0 = task_ticks(a.pid)
    cpus0 = cpu_times()
    t0, c0 = tel.timed_counter(a.port, a.counter)
    ticks_t0 = time.monotonic()
    time.sleep(a.window)
    t1, c1 = tel.timed_counter(a.port, a.counter)
    ticks1 = task_ticks(a.pid)
    cpus1 = cpu_times()
    ticks_elapsed = time.monotonic() - ticks_t0
    if not alive(a.pid):
        return fail(f"process {a.pid} exited during the window")
    elapsed = t1 - t0
    pkts = c1 - c0

    busiest, share, cpu = "-", -1.0, -1
    for tid, (t, last_cpu) in ticks1.items():
        if tid in ticks0:
            s = (t - ticks0[tid][0]) / CLK_TCK / ticks_elapsed
            if s > share:
                busiest, share, cpu = tid, s, last_cpu
    steal = -1.0
    if cpu in cpus0 and cpu in cpus1:
        (st0, tot0), (st1, tot1) = cpus0[cpu], cpus1[cpu]
        steal = (st1 - st0) / max(1, tot1 - tot0)
    share = min(share, 1.0)  # tick sampling can overshoot by a tick
    mpps = pkts / elapsed / 1e6
    per_cpu = mpps / share if share > 0 else 0.0
    print(f"mpps={mpps:.3f} pkts={pkts} elapsed_s={elapsed:.3f} mpps_per_cpu={per_cpu:.3f} "
          f"cpu_share={share:.3f} steal={steal:.3f} worker_tid={busiest} worker_cpu={cpu} "
          f"port0={names[0]} port{a.port}={names[a.port]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
