#!/usr/bin/python3
"""Hostile clients of a DPDK telemetry v2 socket (AF_UNIX, SOCK_SEQPACKET).

Subcommands, each printing "ok ..." or "bad ..." lines and exiting 1 on any
"bad":
  hostile SOCKET PID [--commands-from SOCKET2]
      every command the server lists, with every hostile parameter; each reply
      must be one valid JSON object and the process must stay alive
  names SOCKET      malformed command names: each reply must be valid JSON
  storm SOCKET N SECONDS   N clients sending requests as fast as they can
  hold SOCKET N SECONDS    N idle connections held open (prints "held K")
  disconnect SOCKET N      N abrupt disconnects in four styles
"""
import json
import os
import socket
import sys
import threading
import time

HOSTILE_PARAMS = [
    "", ",", ",,", "-1", "-0", "+1", " 1", "1 ", "0x10", "010", "1e3", "1.5",
    "31", "32", "33", "63", "64", "255", "256", "1023", "1024", "65535",
    "65536", "65537", "2147483647", "2147483648", "4294967295", "4294967296",
    "18446744073709551615", "18446744073709551616", "99999999999999999999999",
    "0,0", "0,0,0", "1,2,3,4,5", "-1,-1,-1", "65536,65536,65536",
    "%s%s%s%n", "%x" * 20, "\"", "\\", "\"}{\"", "a" * 200, "9" * 300,
    "x" * 900, "\t", "\n", "0\n", "\x01", "\x7f", "\xff", "../../etc/passwd",
    "pmdfwd_w0", "pmdfwd_w0" + "x" * 100, "/", "/eal/heap_info",
]

TIMEOUT_S = 5.0


def connect(path, timeout=TIMEOUT_S):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    s.connect(path)
    greeting = json.loads(s.recv(1024).decode())
    assert "pid" in greeting, greeting
    return s


def request(s, text):
    s.send(text.encode("utf-8", "surrogateescape"))
    return s.recv(65536)


def list_commands(path):
    s = connect(path)
    cmds = json.loads(request(s, "/").decode())["/"]
    s.close()
    return cmds


def valid_reply(raw):
    try:
        d = json.loads(raw.decode())
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(d, dict) and len(d) == 1


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def hostile(path, pid, commands_from):
    cmds = list_commands(commands_from or path)
    bad = 0
    sent = 0
    s = connect(path)
    for cmd in cmds:
        for p in HOSTILE_PARAMS:
            text = cmd + "," + p
            try:
                raw = request(s, text)
            except OSError as e:
                print(f"bad {text[:60]!r}: {e}")
                bad += 1
                if not alive(pid):
                    print(f"bad process {pid} died after {text[:60]!r}")
                    return 1
                try:
                    s = connect(path)
                except OSError as e2:
                    print(f"bad cannot reconnect after {text[:60]!r}: {e2}")
                    return 1
                continue
            sent += 1
            if not valid_reply(raw):
                print(f"bad {text[:60]!r}: invalid reply {raw[:80]!r}")
                bad += 1
        if not alive(pid):
            print(f"bad process {pid} died during {cmd}")
            return 1
    s.close()
    print(f"ok {sent} hostile requests over {len(cmds)} commands, {bad} bad")
    return 1 if bad else 0


def names(path):
    bad = 0
    # (An empty message reads as end of stream on SEQPACKET: not sent.)
    tests = ["/nope\"x", "/nope\nx", "/\"}", "\"", "nope", ",", ",,1",
             "/" + "a" * 60, "/" + "a" * 1500, "/pmdfwd/stats\n", "/\x00",
             "/pmdfwd/stats\x00junk", "/pmdfwd/clear,garbage",
             "/pmdfwd/shutdown,now", "/help,\"x"]
    s = connect(path)
    for t in tests:
        try:
            raw = request(s, t)
        except OSError as e:
            print(f"bad {t[:40]!r}: {e}")
            bad += 1
            s = connect(path)
            continue
        if not valid_reply(raw):
            print(f"bad {t[:40]!r}: invalid reply {raw[:80]!r}")
            bad += 1
        elif t in ("/pmdfwd/clear,garbage", "/pmdfwd/shutdown,now"):
            if list(json.loads(raw.decode()).values())[0] is not None:
                print(f"bad {t!r} accepted a parameter: {raw[:80]!r}")
                bad += 1
    print(f"ok {len(tests)} malformed names, {bad} bad")
    return 1 if bad else 0


def storm(path, n, seconds):
    stop = time.monotonic() + seconds
    counts = [0] * n
    errors = [0] * n

    def client(i):
        reqs = ["/pmdfwd/stats", "/ethdev/stats,0", "/pmdfwd/worker,0", "/info"]
        s = None
        while time.monotonic() < stop:
            try:
                if s is None:
                    s = connect(path)
                request(s, reqs[counts[i] % len(reqs)])
                counts[i] += 1
            except OSError:
                errors[i] += 1
                if s:
                    s.close()
                s = None
                time.sleep(0.01)
        if s:
            s.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"ok storm {n} clients {seconds}s: {sum(counts)} replies, "
          f"{sum(errors)} connection errors")
    return 0


def hold(path, n, seconds):
    held = []
    for _ in range(n):
        try:
            held.append(connect(path))
        except OSError:
            pass
    print(f"held {len(held)}", flush=True)
    time.sleep(seconds)
    for s in held:
        s.close()
    return 0


def disconnect(path, n):
    for i in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(TIMEOUT_S)
        try:
            s.connect(path)
            style = i % 4
            if style == 1:
                s.recv(1024)
            elif style == 2:
                s.recv(1024)
                s.send(b"/ethdev/xstats,0")
            elif style == 3:
                s.send(b"/pmdfwd/stats")
        except OSError:
            pass
        s.close()
    print(f"ok {n} abrupt disconnects")
    return 0


def main(argv):
    cmd = argv[1]
    if cmd == "hostile":
        src = argv[argv.index("--commands-from") + 1] if "--commands-from" in argv else None
        return hostile(argv[2], int(argv[3]), src)
    if cmd == "names":
        return names(argv[2])
    if cmd == "storm":
        return storm(argv[2], int(argv[3]), float(argv[4]))
    if cmd == "hold":
        return hold(argv[2], int(argv[3]), float(argv[4]))
    if cmd == "disconnect":
        return disconnect(argv[2], int(argv[3]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
