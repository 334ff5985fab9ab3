#!/bin/bash
# Instructions per forwarded packet of pmdfwd's worker loop, counted by
# callgrind on scripts/bench's pcap set-up (net_pcap0 replaying 256 flows of
# 64-byte UDP frames to net_null1; l3: IPv4 flows into 198.18.n.0/24, 512
# routes of each family): docs/performance.md, "Where a packet's
# instructions go". Counting, not timing: the figure repeats on a busy
# machine. Needs root (EAL), valgrind and python3-scapy.
#
#   scripts/lib/bench_instructions.sh [--build DIR] [--pmdfwd BINARY] [--packets N] [--ipv6]
#                                     [--trace FILTER [--trace-count N]] MODE
#
# --trace: a continuous packet trace with that filter runs from as soon as
# pmdfwd answers (a filter that matches nothing, such as 'tcp', gives the
# cost of a trace that is on; docs/performance.md, "Packet trace").
# --trace-count N: the trace ends itself after N packets instead, and the
# rest of the run has it switched off again.
#
# MODE: patch, l2 or l3. It runs until port 1 sent N packets (default
# 1000000), stops pmdfwd, and prints the loop's instructions (callgrind's
# total, collected only inside pmdfwd::worker_main) over port 1's opackets.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$ROOT/build
PACKETS=1000000
FAMILY=v4
PMDFWD=
MODE=
TRACE=
TRACE_RUN=(--continuous --count 16)
while [[ $# -gt 0 ]]; do
    case $1 in
        --build) BUILD=$(cd "$2" && pwd); shift 2 ;;
        --pmdfwd) PMDFWD=$2; shift 2 ;;  # another build's, to compare
        --packets) PACKETS=$2; shift 2 ;;
        --ipv6) FAMILY=v6; shift ;;
        --trace) TRACE=$2; shift 2 ;;
        --trace-count) TRACE_RUN=(--count "$2"); shift 2 ;;
        patch | l2 | l3) MODE=$1; shift ;;
        *) echo "usage: $0 [--build DIR] [--pmdfwd BINARY] [--packets N] [--ipv6] [--trace FILTER [--trace-count N]] patch|l2|l3" >&2
            exit 2 ;;
    esac
done
[[ -n $MODE ]] || { echo "$0: name a mode: patch, l2 or l3" >&2; exit 2; }

PY=/usr/bin/python3
LIB=$ROOT/scripts/lib
PMDFWD=${PMDFWD:-$BUILD/app/pmdfwd/pmdfwd}
PMDCTL=$BUILD/app/pmdctl/pmdctl
OUT=$BUILD/bench-instructions
PCAP0_MAC=02:70:63:61:70:00 # net_pcap0's: router mode takes only its own MAC's frames
PREFIX=pbi$$
mkdir -p "$OUT"

# The capture and the config, as scripts/bench writes them.
capture=$OUT/flows-$MODE-$FAMILY.pcap
dst=()
if [[ $MODE == l3 ]]; then
    if [[ $FAMILY == v6 ]]; then dst=(--ipv6 --dst '2001:2:0:{n:x}::1'); else dst=(--dst '198.18.{n}.1'); fi
fi
"$PY" "$LIB/bench_flows_pcap.py" "$capture" --flows 256 --size 64 --dst-mac "$PCAP0_MAC" \
    "${dst[@]}" >/dev/null
cfg=$OUT/$MODE-$FAMILY.toml
{
    printf '[eal]\nlcores = "0@0,1@1"\nmemory_mb = 512\nhugepages = false\n'
    printf 'file_prefix = "%s"\n\n' "$PREFIX"
    printf '[[port]]\nname = "p0"\ndevargs = "net_pcap0,rx_pcap=%s,infinite_rx=1"\n' "$capture"
    printf 'rx_desc = 1024\n\n'
    printf '[[port]]\nname = "p1"\ndevargs = "net_null1,no-rx=1"\nrx_queues = 0\ntx_desc = 1024\n'
    if [[ $MODE == l3 ]]; then
        printf 'addresses = ["100.64.1.1/24", "2001:db8:64:1::1/64"]\n'
    fi
    printf '\n[forward]\nmode = "%s"\nburst = 32\n' "$MODE"
    if [[ $MODE != l3 ]]; then
        printf 'latency = false\npairs = [["p0", "p1"]]\n'
    fi
    if [[ $MODE == l2 ]]; then printf 'next_hop_mac = { p1 = "02:00:00:00:00:01" }\n'; fi
    printf '\n[pool]\nmbufs = 8192\ncache = 256\n\n'
} >"$cfg"
if [[ $MODE == l3 ]]; then
    routes=$OUT/routes.toml
    rm -f "$routes"
    "$PY" "$LIB/bench_l3_routes.py" --v4 512 --v6 512 --toml "$routes" >/dev/null
    cat "$routes" >>"$cfg"
fi

log=$OUT/$MODE-$FAMILY.log
cg=$OUT/$MODE-$FAMILY.callgrind
rm -f "$cg"
# --fair-sched: without it the spinning worker starves the main thread, which
# then answers no telemetry and takes minutes to stop.
valgrind --tool=callgrind --fair-sched=yes ${CALLGRIND_EXTRA:-} --callgrind-out-file="$cg" --toggle-collect='pmdfwd::worker_main*' \
    "$PMDFWD" --config "$cfg" </dev/null >"$log" 2>&1 &
pid=$!
# SIGTERM: an asynchronous command of a script ignores SIGINT.
trap 'kill -TERM $pid 2>/dev/null || true; rm -rf "/var/run/dpdk/$PREFIX"' EXIT

# Port 1's opackets from telemetry, until N went out.
sent() {
    "$PMDCTL" --file-prefix "$PREFIX" --json show ports 2>/dev/null |
        "$PY" -c 'import json,sys
try:
    d = json.load(sys.stdin)
    ports = d if isinstance(d, list) else d.get("ports", [])
    print(next((p.get("opackets", 0) for p in ports if p.get("name") == "p1"), 0))
except Exception:
    print(0)'
}
if [[ -n $TRACE ]]; then
    traced=
    for ((i = 0; i < 600; i++)); do
        "$PMDCTL" --file-prefix "$PREFIX" trace start "${TRACE_RUN[@]}" --filter "$TRACE" \
            >/dev/null 2>&1 && { traced=1; break; }
        sleep 0.2
    done
    [[ -n $traced ]] || { echo "$0: trace start failed; see $log" >&2; exit 1; }
fi
reached=
for ((i = 0; i < 600; i++)); do
    sleep 1
    kill -0 $pid 2>/dev/null || { echo "$0: pmdfwd ended early; see $log" >&2; exit 1; }
    [[ $(sent) -ge $PACKETS ]] && { reached=1; break; }
done
[[ -n $reached ]] || { echo "$0: fewer than $PACKETS packets in 600 s; see $log" >&2; exit 1; }
if [[ -n $TRACE ]]; then
    "$PMDCTL" --file-prefix "$PREFIX" --json trace show >"$OUT/$MODE-$FAMILY-trace.json" 2>&1 || true
fi
kill -TERM $pid
wait $pid || true
trap - EXIT
rm -rf "/var/run/dpdk/$PREFIX"

# The final counters pmdfwd logs at shutdown: port 1's opackets.
opackets=$(sed -n "s/.*final port 'p1': .* opackets=\([0-9]*\) .*/\1/p" "$log" | tail -1)
total=$(callgrind_annotate "$cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
[[ -n $total && ${opackets:-0} -gt 0 ]] || { echo "$0: no figure; see $log and $cg" >&2; exit 1; }
awk -v t="$total" -v p="$opackets" -v m="$MODE" -v f="$FAMILY" \
    'BEGIN { printf "%s %s: %.0f instructions / %.0f packets = %.1f a packet\n", m, f, t, p, t / p }'
