#!/usr/bin/python3
"""Write the route tables of scripts/bench's router comparisons: pmdfwd's
[[neighbour]] and [[route]] tables (appended to a config) and the same
prefixes as rule files for DPDK's l3fwd example (--rule_ipv4, --rule_ipv6).

The tables, for --v4 N and --v6 M (each >= 256, the flows' routes):
  IPv4  198.18.0.0/24 .. 198.19.255.0/24 (the first 512; the capture's flow n
        goes to 198.18.n.1, so the flows hit the first 256), then /24s from
        20.0.0.0/24 upwards;
  IPv6  2001:2:0:n::/64 for n = 0 .. M-1 (flow n goes to 2001:2:0:n::1).
pmdfwd reads at most 1 MiB of config, about 20000 routes in this form;
--telemetry PREFIX adds IPv4 routes --from .. --v4 to a running pmdfwd
instead, one /pmdfwd/route_add request each (the 100000-route table).
Every route goes to port p1 (the sink), pmdfwd's spread over four static
neighbours on p1's subnet (route i via neighbour i % 4); l3fwd routes to a
port, not a next hop, so its rules say "port 1" and its --eth-dest gives the
one MAC (the first neighbour's).
"""
import argparse
import ipaddress
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_tx_rate import Telemetry, dpdk_runtime_dir  # noqa: E402

# p1's subnets, as scripts/bench gives the port its addresses.
NEXT_HOPS = {"v4": [f"100.64.1.{i}" for i in range(2, 6)],
             "v6": [f"2001:db8:64:1::{i}" for i in range(2, 6)]}
MACS = [f"02:00:00:00:00:0{i}" for i in range(1, 5)]
FLOW_ROUTES = 256
BASE_V4 = 512  # 198.18.0.0/15 in /24s


def prefixes(family: str, count: int):
    if family == "v6":
        if count > 1 << 16:
            sys.exit("at most 65536 IPv6 routes (2001:2::/48 in /64s)")
        for n in range(count):
            yield f"2001:2:0:{n:x}::/64"
        return
    base = int(ipaddress.IPv4Address("198.18.0.0"))
    extra = int(ipaddress.IPv4Address("20.0.0.0"))
    for n in range(count):
        net = base + (n << 8) if n < BASE_V4 else extra + ((n - BASE_V4) << 8)
        yield f"{ipaddress.IPv4Address(net)}/24"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--v4", type=int, required=True, help="IPv4 routes")
    ap.add_argument("--v6", type=int, required=True, help="IPv6 routes")
    ap.add_argument("--toml", help="append pmdfwd's [[neighbour]] and [[route]] tables here")
    ap.add_argument("--l3fwd-rules", nargs=2, metavar=("V4_FILE", "V6_FILE"),
                    help="write l3fwd's two rule files")
    ap.add_argument("--telemetry", metavar="PREFIX",
                    help="add the IPv4 routes from --from on to the pmdfwd of this file prefix")
    ap.add_argument("--from", dest="first", type=int, default=0,
                    help="with --telemetry: the first route to add (those before are in its config)")
    a = ap.parse_args()
    if a.telemetry:
        return add_at_run_time(a.telemetry, a.first, a.v4)
    tables = {}
    for family, count in (("v4", a.v4), ("v6", a.v6)):
        if count < FLOW_ROUTES:
            sys.exit(f"--{family} {count}: the flows need the first {FLOW_ROUTES} routes")
        tables[family] = list(prefixes(family, count))
    if a.toml:
        # Compact (no blank lines, no spaces): the config's size is capped.
        with open(a.toml, "a") as f:
            for family, table in tables.items():
                hops = NEXT_HOPS[family]
                for hop, mac in zip(hops, MACS):
                    f.write(f'[[neighbour]]\naddress="{hop}"\nmac="{mac}"\nport="p1"\n')
                for i, prefix in enumerate(table):
                    f.write(f'[[route]]\nprefix="{prefix}"\nvia="{hops[i % len(hops)]}"\n')
    if a.l3fwd_rules:
        for (family, table), path in zip(tables.items(), a.l3fwd_rules):
            with open(path, "w") as f:
                f.write(f"# scripts/bench: {len(table)} {family} routes, all to port 1\n")
                for prefix in table:
                    f.write(f"R{prefix} 1\n")
    return 0


def add_at_run_time(prefix: str, first: int, count: int) -> int:
    path = os.path.join(dpdk_runtime_dir(prefix), "dpdk_telemetry.v2")
    t = Telemetry(path)
    hops = NEXT_HOPS["v4"]
    start = time.monotonic()
    for i, p in enumerate(prefixes("v4", count)):
        if i < first:
            continue
        reply = t.query(f"/pmdfwd/route_add,{p},{hops[i % len(hops)]}")
        if not isinstance(reply, dict) or "result" not in reply:
            print(f"route_add {p}: {reply}", file=sys.stderr)
            return 1
    print(f"added {count - first} IPv4 routes in {time.monotonic() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
