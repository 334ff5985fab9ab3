#!/usr/bin/python3
"""Turn the per-run TSV written by scripts/bench into the result tables:
per set-up and comparison, the median Mpps of each peer, the ratio of the
medians against its target, and the spread of the per-pair ratios; for the
handoff and capture comparisons, each peer's median and the ratios between them.
Exit status 0 when every comparison with a target meets it, 1 otherwise."""
import csv
import statistics
import sys

TARGETS = {"patch": ("pmdfwd patch", "testpmd io", 1.0),
           # [forward] read_lengths = false: no frame read, as in testpmd's io mode.
           "patch-nolen": ("pmdfwd patch nolen", "testpmd io", 1.0),
           "l2": ("pmdfwd l2", "l2fwd", 1.1),
           # Over 2%, the residence histogram has to be a switch ([forward] latency).
           "latency": ("latency on", "latency off", 0.98),
           # Cache-coloured pools ([pool] color) must never cost anything.
           "color": ("colour on", "colour off", 0.98),
           # A Prometheus scrape runs on the main lcore's CPU, never a worker's.
           "metrics": ("scraped 10/s", "no endpoint", 0.98),
           # A change may not cost the fast path over 2% against the build before it.
           "base-patch": ("pmdfwd patch", "baseline patch", 0.98),
           "base-l2": ("pmdfwd l2", "baseline l2", 0.98),
           "base-l3": ("pmdfwd l3", "baseline l3", 0.98),
           "l3": ("pmdfwd l3", "l3fwd lpm", 1.1),
           # No target: l3fwd's IPv6 path leaves the hop limit alone.
           "l3-v6": ("pmdfwd l3 IPv6", "l3fwd lpm IPv6", None)}
# handoff_bench --probe: about 3 ns with the two CPUs on one core, 11 on two.
FAR_LINK_NS = 6.0


# Comparisons of more than two peers: each peer's median, then the ratios
# printed (numerator, denominator) and the targets among them.
MULTI = {
    "handoff": {
        "title": "cross-core handoff",
        "peers": ["ho-recycle", "ho-shared", "ho-stock", "same-recycle"],
        "heads": ["recycle", "shared", "pw-stock", "same-core"],
        "ratios": [("ho-recycle", "ho-shared"), ("ho-recycle", "ho-stock"),
                   ("ho-shared", "same-recycle"), ("ho-recycle", "same-recycle")],
        "ratio_heads": ["recycle/shared", "recycle/pw-stock", "shared/same", "recycle/same"],
        # recycle >= 1.2 x shared, recycle >= 0.9 x the same-core ceiling.
        "targets": {("ho-recycle", "ho-shared"): 1.2, ("ho-recycle", "same-recycle"): 0.9},
        "note": "targets: recycle/shared >= 1.2, recycle/same >= 0.9 (in that order);\n"
                "far: windows with the two CPUs on two cores (handoff_bench --probe over "
                f"{FAR_LINK_NS:g} ns), where a line costs several times more: a median over both "
                "placements compares two machines (docs/performance.md, \"The handoff step by "
                "step\")",
        "placement": True,
    },
    "capture": {
        "title": "packet capture ([control] capture, dpdk-dumpcap)",
        "peers": ["cap-off", "cap-on", "cap-filter", "cap-all"],
        "heads": ["off", "on, idle", "dumpcap -f", "dumpcap all"],
        "ratios": [("cap-on", "cap-off"), ("cap-filter", "cap-off"), ("cap-all", "cap-off")],
        "ratio_heads": ["idle/off", "filter/off", "all/off"],
        # Serving captures must cost nothing while none is attached.
        "targets": {("cap-on", "cap-off"): 0.98},
        "note": "target: idle/off >= 0.98; a capture attached has no target (its cost is "
                "the measurement)",
    },
    "l3-routes": {
        "title": "pmdfwd l3 by IPv4 route count (same 256 flows)",
        "peers": ["pmdfwd-l3", "pmdfwd-l3-1k", "pmdfwd-l3-max", "pmdfwd-l3-100k"],
        "heads": ["512 routes", "1024", "16384", "100000"],
        "ratios": [("pmdfwd-l3-1k", "pmdfwd-l3"), ("pmdfwd-l3-max", "pmdfwd-l3"),
                   ("pmdfwd-l3-100k", "pmdfwd-l3")],
        "ratio_heads": ["1024/512", "16384/512", "100000/512"],
        "targets": {},
        "note": "no target: whether the rate moves with the table's size",
    },
}


def table(head, lines):
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
    fmt = lambda row: "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
    print(fmt(head))
    print(fmt(["-" * w for w in widths]))
    for ln in lines:
        print(fmt(ln))


def multi_table(groups, comp):
    """Prints the table of a MULTI comparison; returns False when a target is missed."""
    spec = MULTI[comp]
    peers = spec["peers"]
    lines, met = [], True
    for (setup, c), rs in groups.items():
        if c != comp:
            continue
        by_peer = {}
        for r in rs:
            by_peer.setdefault(r["peer"], {})[int(r["pair"])] = float(r["mpps"])
        if not all(p in by_peer for p in peers):
            continue
        rounds = sorted(set.intersection(*(set(by_peer[p]) for p in peers)))
        if not rounds:
            continue
        med = {p: statistics.median(by_peer[p][i] for i in rounds) for p in peers}
        row = [setup, str(len(rounds))] + [f"{med[p]:.2f}" for p in peers]
        verdicts = []
        for num, den in spec["ratios"]:
            per = [by_peer[num][i] / by_peer[den][i] for i in rounds]
            ratio = med[num] / med[den]
            row.append(f"{ratio:.3f} ({min(per):.2f}-{max(per):.2f})")
            target = spec["targets"].get((num, den))
            if target is not None:
                verdicts.append("PASS" if ratio >= target else "MISS")
                met &= ratio >= target
        row.append("/".join(verdicts))
        if spec.get("placement"):
            probed = [r for r in rs if r.get("link_ns")]
            far = sum(1 for r in probed if float(r["link_ns"]) > FAR_LINK_NS)
            row.append(f"{far}/{len(probed)}" if probed else "-")
        lines.append(row)
    if not lines:
        return met
    print()
    print(f"{spec['title']} (Mpps medians; ratios of medians, per-round range in brackets)")
    table(["setup", "rounds"] + spec["heads"] + spec["ratio_heads"] + ["targets"] +
          (["far"] if spec.get("placement") else []), lines)
    print(spec["note"])
    return met


def scaling_table(groups):
    """The scaling comparison: per worker count, each variant's median Mpps,
    Mpps a worker, and the stock variant's efficiency against N x its one-
    worker rate. No target: the model in docs/performance.md says what these
    figures should be."""
    lines = []
    for (setup, comp), rs in groups.items():
        if comp != "scaling":
            continue
        med = {}
        for peer in {r["peer"] for r in rs}:
            med[peer] = statistics.median(float(r["mpps"]) for r in rs if r["peer"] == peer)
        one = med.get("scale-1-stock")
        counts = sorted({int(p.split("-")[1]) for p in med})
        for n in counts:
            row = [setup, str(n)]
            for v in ("stock", "shared", "owner"):
                m = med.get(f"scale-{n}-{v}")
                row += [f"{m:.2f}" if m is not None else "-",
                        f"{m / n:.2f}" if m is not None else "-"]
            stock = med.get(f"scale-{n}-stock")
            row.append(f"{stock / (n * one):.3f}" if stock and one else "-")
            lines.append(row)
    if not lines:
        return
    print()
    print("scaling: pmdfwd patch, N workers, one rx queue of net_null0 each (Mpps medians)")
    table(["setup", "workers", "stock", "/worker", "shared", "/worker", "owner", "/worker",
           "stock / (N x 1 worker)"], lines)
    print("no target: docs/performance.md, \"Many workers\", says what each column should be")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: bench_summarize.py RUNS.tsv", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["mpps"] not in ("", "nan")]
    groups = {}
    for r in rows:
        groups.setdefault((r["setup"], r["comparison"]), []).append(r)

    head = ("setup", "comparison", "pairs", "A Mpps", "B Mpps", "ratio", "pair ratios",
            "A/cpu", "B/cpu", "target", "verdict")
    lines = []
    all_met = True
    for (setup, comp), rs in groups.items():
        if comp not in TARGETS:
            continue
        a_name, b_name, target = TARGETS[comp]
        a = {int(r["pair"]): r for r in rs if r["side"] == "A"}
        b = {int(r["pair"]): r for r in rs if r["side"] == "B"}
        pairs = sorted(set(a) & set(b))
        if not pairs:
            continue
        med = lambda side, key: statistics.median(float(side[i][key]) for i in pairs)
        ma, mb = med(a, "mpps"), med(b, "mpps")
        ca, cb = med(a, "mpps_per_cpu"), med(b, "mpps_per_cpu")
        ratio = ma / mb if mb > 0 else float("nan")
        per_pair = [float(a[i]["mpps"]) / float(b[i]["mpps"]) for i in pairs]
        met = target is None or ratio >= target
        all_met &= met
        lines.append((setup, f"{a_name} vs {b_name}", str(len(pairs)), f"{ma:.2f}", f"{mb:.2f}",
                      f"{ratio:.3f}", f"{min(per_pair):.2f}-{max(per_pair):.2f}",
                      f"{ca:.2f}", f"{cb:.2f}", "none" if target is None else f">= {target:g}",
                      "-" if target is None else "PASS" if met else "MISS"))
    if lines:
        table(head, lines)
        print()
        print("A/B Mpps: median of the runs' port-1 TX rate over the window; ratio = A median / "
              "B median;\npair ratios: range of A/B within each pair; A/cpu, B/cpu: median Mpps "
              "per CPU-second the\nforwarding thread actually ran (equal to Mpps when it had the "
              "CPU to itself).")
    for comp in MULTI:
        all_met &= multi_table(groups, comp)
    scaling_table(groups)
    disturbed = [r for r in rows if float(r["cpu_share"]) < float(r["min_share"])]
    if disturbed:
        print(f"note: {len(disturbed)} kept run(s) had their forwarding thread on the CPU for "
              f"less than the required share of the window (see the runs file).")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
