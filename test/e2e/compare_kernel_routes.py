#!/usr/bin/python3
"""Whether pmdfwd's kernel routes are a kernel table's unicast routes.

Usage: compare_kernel_routes.py KERNEL4.json KERNEL6.json PMDFWD_ROUTES.json

KERNEL4/6: `ip -j [-6] route show table N`; PMDFWD_ROUTES: `pmdctl --json
show routes`. Routes of the table out of lo and routes that are not unicast
are not pmdfwd's to mirror. Prints the count, or a few of each difference,
and exits 1 on any difference.
"""
import ipaddress
import json
import sys


def kernel_routes(paths):
    routes = set()
    for path in paths:
        for r in json.load(open(path)):
            if r.get("type", "unicast") != "unicast" or r.get("dev", "").startswith("lo"):
                continue
            dst = r["dst"]
            if dst == "default":
                dst = "::/0" if ":" in r.get("gateway", "") else "0.0.0.0/0"
            routes.add((str(ipaddress.ip_network(dst)), r.get("gateway", "-")))
    return routes


def main():
    kernel = kernel_routes(sys.argv[1:3])
    ours = {(r["prefix"], r["via"]) for r in json.load(open(sys.argv[3]))
            if r["origin"] == "kernel"}
    if kernel != ours:
        print("only in the kernel:", sorted(kernel - ours)[:5],
              "only in pmdfwd:", sorted(ours - kernel)[:5])
        return 1
    print(len(ours), "routes, the same")
    return 0


if __name__ == "__main__":
    sys.exit(main())
