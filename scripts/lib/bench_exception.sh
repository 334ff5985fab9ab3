#!/usr/bin/env bash
# The exception path measured (scripts/bench --comparisons exception): a
# port's kernel interface, which the control path's thread reads and
# writes, against the workers' own path on the same rig. Host a (a
# namespace behind port p0) runs, round after round, A then B:
#   A  TCP to a daemon on the box: iperf3 -c to the kernel interface's
#      address, and UDP request/response to an echo there (the exception
#      path both ways: worker -> punt ring -> control thread -> TAP -> kernel,
#      and back through the TAP, the control thread and the port's TX queue);
#   B  the same to host b behind port p1, routed by the workers.
# Prints each round and the medians: Mbit/s of iperf3's receiver, and the
# median round trip of 200 UDP requests, in microseconds.
# Usage: bench_exception.sh BUILD_DIR ROUNDS SECONDS
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/test/e2e/lib.sh"
kernel_rig bx "$1"
ROUNDS=${2:-3}
WINDOW=${3:-3}
SERVERS=()
cleanup() {
  for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null; done
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  ns_remove "${NS[@]}"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT
v4() { echo "10.87.$1.$2"; }
v6() { echo "2001:db8:87:$1::$2"; }
PY=/usr/bin/python3

kernel_rig_config "$PREFIX" "kernel_rate_limit = 1000000" "kernel_rate_burst = 10000" \
  >"$WORK/cfg.toml"
kernel_rig_start "$WORK/cfg.toml"

# The daemons: iperf3 and a UDP echo on the box (root namespace, the kernel
# interface's address) and on b.
BOX=$(v4 0 1) HOST_B=$(v4 1 2)
echo_server() {  # echo_server ADDRESS: a UDP echo on port 5400 (exec: its pid is ours)
  exec $PY -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 5400))
while True:
    data, peer = s.recvfrom(2048)
    s.sendto(data, peer)' "$1"
}
iperf3 -s -B "$BOX" -p 5401 >/dev/null 2>&1 & SERVERS+=($!)
echo_server "$BOX" & SERVERS+=($!)
ip netns exec "${NS[1]}" iperf3 -s -B "$HOST_B" -p 5401 >/dev/null 2>&1 & SERVERS+=($!)
ip netns exec "${NS[1]}" bash -c "$(declare -f echo_server); PY=$PY; echo_server $HOST_B" &
SERVERS+=($!)
sleep 1

tcp_mbit() {  # tcp_mbit ADDRESS: iperf3's receiver rate from a, Mbit/s
  ip netns exec "${NS[0]}" iperf3 -c "$1" -p 5401 -t "$WINDOW" -J 2>/dev/null |
    $PY -c 'import json,sys; print(round(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6, 1))' \
    2>/dev/null || echo 0
}
rtt_us() {  # rtt_us ADDRESS: median round trip of 200 UDP requests from a, us
  ip netns exec "${NS[0]}" $PY -c '
import socket, statistics, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
rtts, lost = [], 0
for i in range(220):
    t = time.perf_counter()
    s.sendto(b"x" * 64, (sys.argv[1], 5400))
    try:
        s.recvfrom(2048)
    except socket.timeout:
        lost += 1
        if lost == 5:  # no echo there: not worth 220 s
            break
        continue
    if i >= 20:
        rtts.append((time.perf_counter() - t) * 1e6)
print(round(statistics.median(rtts)) if rtts else 0)' "$1"
}

declare -a A_TCP B_TCP A_RTT B_RTT
for r in $(seq "$ROUNDS"); do
  A_TCP+=("$(tcp_mbit "$BOX")"); A_RTT+=("$(rtt_us "$BOX")")
  B_TCP+=("$(tcp_mbit "$HOST_B")"); B_RTT+=("$(rtt_us "$HOST_B")")
  echo "round $r: exception path ${A_TCP[-1]} Mbit/s, ${A_RTT[-1]} us; workers ${B_TCP[-1]} Mbit/s, ${B_RTT[-1]} us"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
limited=$(ctl --json show router | json_get "$(cat)" 'd["kernel_rate_limited"]')
echo "exception path (kernel interface): TCP $(median "${A_TCP[@]}") Mbit/s, UDP round trip $(median "${A_RTT[@]}") us"
echo "through the workers (reference):   TCP $(median "${B_TCP[@]}") Mbit/s, UDP round trip $(median "${B_RTT[@]}") us"
echo "kernel_rate_limited: $limited"
stop_pmdfwd "$PMDFWD_PID" TERM >/dev/null 2>&1
PMDFWD_PID=
