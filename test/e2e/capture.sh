#!/usr/bin/env bash
# Stock dpdk-dumpcap on a running pmdfwd ([control] capture = true, with
# hugepages this test reserves and mounts, and gives back): two namespaces
# joined through pmdfwd's tap ports, a known UDP flow among other traffic.
# - A capture of each port with a BPF filter holds exactly the flow's frames
#   (tshark: count, MACs, addresses, ports, payloads; received on the left
#   port, sent on the right one), while every datagram is still forwarded.
# - A capture stopped with SIGINT takes its callbacks away (the port can be
#   captured again); one killed with SIGKILL leaves them, and forwarding
#   goes on either way.
# - pmdfwd stopped while a capture is attached exits 0 with every pool full,
#   removes its hugepage files, and the capture ends by itself.
# - With capture = false (the files unlinked at start), dumpcap cannot attach
#   and pmdfwd is unaffected.
# Usage: capture.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/hugepages.sh"
tap_rig cap cap "${1:-}"
DUMPCAP=/usr/bin/dpdk-dumpcap
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
N=20
MAC_L=02:00:00:ca:00:01 MAC_R=02:00:00:ca:00:02
IP_L=10.233.0.1 IP_R=10.233.0.2
DEV_L=net_tap_$IF_L DEV_R=net_tap_$IF_R
BG_PIDS=()

cleanup() {
  local pid
  for pid in "${BG_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  if [[ -n ${PMDFWD_PID:-} ]]; then
    kill -KILL "$PMDFWD_PID" 2>/dev/null
    wait "$PMDFWD_PID" 2>/dev/null
    PMDFWD_PID=
  fi
  for pid in "${BG_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  hugepages_give_back
  tap_rig_cleanup
}
trap cleanup EXIT

for tool in "$DUMPCAP" tshark; do
  command -v "$tool" >/dev/null || { fail setup "$tool is missing (scripts/setup installs it)"; summary; exit 1; }
done
# pmdfwd's 256 MiB (-m) and dumpcap's pools, which the secondaries carve from them.
if ! hugepages_add 192 "$WORK/huge"; then
  fail setup "could not add 192 hugepages ($HP_ADDED added) and mount hugetlbfs on $WORK/huge"
  summary; exit 1
fi

# A secondary maps pmdfwd's memory at pmdfwd's addresses. EAL asks for
# 4 GiB up, which ASan's shadow gap holds, so an ASan build's memory lands
# wherever mmap puts it, often where dumpcap already has a library: there it
# starts in the high half that both processes leave free.
EAL_EXTRA=
if ldd "$PMDFWD" | grep -q libasan; then EAL_EXTRA=', "--base-virtaddr=0x200000000000"'; fi
# Lcore ids apart from the CPU numbers: dumpcap runs as the lcore numbered
# like its first CPU, and shares its pool's per-lcore cache with pmdfwd's
# lcore of that id.
demo_config "$WORK/cfg.toml" "$PREFIX" "$IF_L" "$IF_R" \
  -e "s/^enabled = true/enabled = false/" \
  -e 's/^lcores = .*/lcores = "64@0,65@0,66@1"/' \
  -e 's/^memory_mb = .*/memory_mb = 256/' \
  -e 's/^hugepages = false/hugepages = true/' \
  -e "s|^file_prefix = .*|&\nextra_args = [\"--huge-dir\", \"$WORK/huge\"$EAL_EXTRA]|" \
  -e 's/^telemetry = true/&\ncapture = true/'
check "--check names the dumpcap command" \
  grep -q "capture: dpdk-dumpcap --file-prefix $PREFIX -i <device> ($DEV_L, $DEV_R)" \
  <("$PMDFWD" --check --config "$WORK/cfg.toml")

if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
check "pmdfwd serves captures" grep -q "capture: dpdk-dumpcap --file-prefix $PREFIX" "$WORK/pmdfwd.log"
check "the hugepage files stay linked for secondaries" \
  test "$(find "$WORK/huge" -name "${PREFIX}map_*" | wc -l)" -gt 0
wait_for_link "$IF_L" 10 && wait_for_link "$IF_R" 10
ns_attach "$NS_L" "$IF_L" "$IP_L/24"
ns_attach "$NS_R" "$IF_R" "$IP_R/24"
ip -n "$NS_L" link set "$IF_L" address "$MAC_L"
ip -n "$NS_R" link set "$IF_R" address "$MAC_R"
# No ARP: the frames of the flow are known to the byte.
ip -n "$NS_L" neigh replace "$IP_R" lladdr "$MAC_R" dev "$IF_L"
ip -n "$NS_R" neigh replace "$IP_L" lladdr "$MAC_L" dev "$IF_R"

# The flow's sink: every datagram that reaches the right namespace, one line each.
ip netns exec "$NS_R" "$PY" "$HERE/udp_receiver.py" 9 "$WORK/rx.jsonl" &
BG_PIDS+=($!)
deadline=$((SECONDS + 10))
until grep -q ready "$WORK/rx.jsonl" 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.1; done
received() { grep -c "\"payload\": \"$1-" "$WORK/rx.jsonl"; }
# send TAG COUNT [INTERVAL]: the flow, 10.233.0.1:40009 -> 10.233.0.2:9.
send() { ip netns exec "$NS_L" "$PY" "$HERE/udp_sender.py" "$IP_R" 9 40009 "$2" "${3:-0}" "$1"; }
# Other traffic the filter must leave out: UDP to port 10 (answered with
# ICMP port unreachable from the right namespace) and ping.
noise() {
  ip netns exec "$NS_L" "$PY" "$HERE/udp_sender.py" "$IP_R" 10 40010 5 0 noise
  ip netns exec "$NS_L" ping -c 2 -i 0.2 -W 1 "$IP_R" >/dev/null 2>&1
}
# wait_received TAG COUNT: until the sink has them all (10 s at most).
wait_received() {
  local deadline=$((SECONDS + 10))
  until (($(received "$1") >= $2)) || ((SECONDS >= deadline)); do sleep 0.1; done
  (($(received "$1") == $2))
}

# start_dumpcap NAME DEVICE [ARGS...]: dpdk-dumpcap in the background (pid in
# DUMPCAP_PID), writing $WORK/NAME.pcapng; true once it captures.
start_dumpcap() {
  local name=$1 dev=$2; shift 2
  "$DUMPCAP" --file-prefix "$PREFIX" -i "$dev" -w "$WORK/$name.pcapng" "$@" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  DUMPCAP_PID=$!
  BG_PIDS+=("$DUMPCAP_PID")
  # A secondary's EAL maps the primary's memory and asks it over the
  # multi-process socket: seconds on a busy machine, more under ASan.
  local deadline=$((SECONDS + 60))
  until grep -q "Packets captured" "$WORK/$name.err" 2>/dev/null; do
    kill -0 "$DUMPCAP_PID" 2>/dev/null && ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}
# wait_exit PID SECONDS: its exit code, or 124 if it is still running then
# (127 for no PID: a dumpcap that never started).
wait_exit() {
  [[ -n $1 ]] || return 127
  local deadline=$((SECONDS + $2))
  while kill -0 "$1" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  kill -0 "$1" 2>/dev/null && return 124
  wait "$1"
}

# dumpcap_once NAME DEVICE: one capture of one packet that is expected to
# fail; its output in $WORK/NAME.out and .err; returns its exit code (124
# when it was still running after 20 s).
dumpcap_once() {
  local name=$1 dev=$2 pid
  "$DUMPCAP" --file-prefix "$PREFIX" -i "$dev" -c 1 -w "$WORK/$name.pcapng" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  pid=$!
  BG_PIDS+=("$pid")
  wait_exit "$pid" 20
}
# decode NAME: one line per frame, tab-separated.
decode() {
  tshark -r "$WORK/$NAME.pcapng" -T fields -e frame.packet_flags_direction -e eth.src -e eth.dst \
    -e ip.src -e ip.dst -e udp.srcport -e udp.dstport -e frame.len -e data.data 2>/dev/null
}

# 1. Both ports at once (one dumpcap each), filter 'udp port 9', N frames
# each: the flow as the left port received it and the right port sent it.
start_dumpcap left "$DEV_L" -f 'udp port 9' -c "$N" && PID_L=$DUMPCAP_PID
start_dumpcap right "$DEV_R" -f 'udp port 9' -c "$N" && PID_R=$DUMPCAP_PID
if [[ -z ${PID_L:-} || -z ${PID_R:-} ]]; then
  fail "dumpcap attaches" "left: $(tail -4 "$WORK"/left.err | tr '\n' ' ')| right: $(tail -4 "$WORK"/right.err | tr '\n' ' ')"
  summary; exit 1
fi
pass "two dpdk-dumpcap processes attached (left and right port)"
noise
send flow "$N"
noise
wait_exit "$PID_L" 15; rc_l=$?
wait_exit "$PID_R" 15; rc_r=$?
check "dumpcap on the left port stopped after $N frames (exit $rc_l)" test "$rc_l" -eq 0
check "dumpcap on the right port stopped after $N frames (exit $rc_r)" test "$rc_r" -eq 0
check "every datagram of the flow was forwarded while captured ($(received flow) of $N)" \
  wait_received flow "$N"
# direction: 1 received (inbound), 2 sent (outbound).
for side in left:1 right:2; do
  NAME=${side%:*} dir=${side#*:}
  decode >"$WORK/$NAME.txt"
  frames=$(grep -c . "$WORK/$NAME.txt")
  check "$NAME: $frames frames, the $N of the flow" test "$frames" -eq "$N"
  bad=$(awk -F'\t' -v d="$dir" -v ms="$MAC_L" -v md="$MAC_R" -v s="$IP_L" -v t="$IP_R" \
    '!($1 == d && $2 == ms && $3 == md && $4 == s && $5 == t && $6 == 40009 && $7 == 9) { n++ }
     END { print n + 0 }' "$WORK/$NAME.txt")
  check "$NAME: every frame is $MAC_L -> $MAC_R, $IP_L:40009 -> $IP_R:9, direction $dir" test "$bad" -eq 0
  # The payloads flow-0 .. flow-19, each once, in the order sent.
  payloads=$(cut -f9 "$WORK/$NAME.txt" | "$PY" -c \
    "import sys; print(' '.join(bytes.fromhex(l.strip()).decode() for l in sys.stdin))")
  expected=$(for ((i = 0; i < N; i++)); do printf 'flow-%d\n' "$i"; done | paste -sd' ')
  check "$NAME: the payloads, in order" test "$payloads" = "$expected"
  check "$NAME: frame length 14 + 20 + 8 + payload" \
    test "$(head -1 "$WORK/$NAME.txt" | cut -f8)" -eq $((42 + 6))
  # received counts what the filter left out too; dropped: no buffer or ring full.
  check "$NAME: dumpcap dropped nothing" \
    grep -Eq "Packets received/dropped on interface '.*': [0-9]+/0 " "$WORK/$NAME.err"
done
echo "tshark: $(tshark -r "$WORK/left.pcapng" -c 1 2>/dev/null)"

# 2. SIGINT in the middle of a capture (no filter, no count) while a stream
# crosses: dumpcap writes what it has and removes its callbacks.
start_dumpcap int "$DEV_L" && PID_I=$DUMPCAP_PID
send stream1 150 0.005 &
BG_PIDS+=($!)
sleep 0.3
# Never an empty PID: kill would take it as 0, this whole process group.
[[ -n ${PID_I:-} ]] && kill -INT "$PID_I" 2>/dev/null
wait_exit "${PID_I:-}" 10; rc=$?
wait "${BG_PIDS[-1]}"
check "SIGINT: dumpcap exits 0 mid-stream" test "$rc" -eq 0
got=$(tshark -r "$WORK/int.pcapng" 2>/dev/null | grep -c .)
check "SIGINT: its file is readable and holds part of the stream ($got frames)" \
  test "$got" -gt 0 -a "$got" -lt 400
check "SIGINT: the stream went on through pmdfwd ($(received stream1) of 150)" wait_received stream1 150
# The callbacks are gone: the port can be captured again.
start_dumpcap again "$DEV_L" -f 'udp port 9' -c 3 && PID_A=$DUMPCAP_PID
send again 3
wait_exit "${PID_A:-}" 10; rc=$?
check "SIGINT: the same port is captured again afterwards (exit $rc)" test "$rc" -eq 0

# 3. SIGKILL mid-capture: its callbacks stay (rte_pdump hears nothing), copy
# into a pool nobody drains and drop once its ring is full; forwarding goes on.
start_dumpcap kill "$DEV_R" && PID_K=$DUMPCAP_PID
send stream2 150 0.005 &
BG_PIDS+=($!)
sleep 0.3
[[ -n ${PID_K:-} ]] && { kill -KILL "$PID_K" 2>/dev/null; wait "$PID_K" 2>/dev/null; }
wait "${BG_PIDS[-1]}"
check "SIGKILL: the stream went on through pmdfwd ($(received stream2) of 150)" wait_received stream2 150
send after-kill "$N"
check "SIGKILL: traffic still passes afterwards ($(received after-kill) of $N)" wait_received after-kill "$N"
check "SIGKILL: ping crosses" ip netns exec "$NS_L" ping -c 3 -i 0.2 -W 2 "$IP_R"
# rte_pdump refuses a second capture of a queue that has one: the dead
# capture's callbacks hold the right port until pmdfwd restarts.
dumpcap_once refused "$DEV_R"; rc=$?
check "SIGKILL: a new capture of that port is refused (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "SIGKILL: in dumpcap's words" grep -q "Packet dump enable failed" "$WORK/refused.err"
check "SIGKILL: pmdfwd is still running" kill -0 "$PMDFWD_PID"

# 4. pmdfwd stops while a capture is attached (and the killed one's callbacks
# are still on the right port): the capture server closes after the last
# burst, every pool is full, the hugepage files go, the capture ends.
start_dumpcap last "$DEV_L" && PID_Z=$DUMPCAP_PID
send last 5
stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
PMDFWD_PID=
check "stop with a capture attached: pmdfwd exits 0 (exit $rc)" test "$rc" -eq 0
check "stop with a capture attached: every pool full" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
check "stop: its hugepage files were removed" grep -q "removed [0-9]* hugepage files" "$WORK/pmdfwd.log"
check "stop: none is left in hugetlbfs" test "$(find "$WORK/huge" -name "${PREFIX}map_*" | wc -l)" -eq 0
wait_exit "${PID_Z:-}" 15; rc=$?
check "stop: the attached dumpcap ended by itself (exit $rc)" test "$rc" -ne 124

# 5. capture = false: EAL unlinks the hugepage files at start, so dumpcap
# cannot map pmdfwd's memory; it fails and pmdfwd forwards on.
sed -i 's/^capture = true/capture = false/' "$WORK/cfg.toml"
if start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd-nocap.log"; then
  check "capture = false: no file left linked in hugetlbfs" \
    test "$(find "$WORK/huge" -name "${PREFIX}map_*" | wc -l)" -eq 0
  dumpcap_once nocap "$DEV_L"; rc=$?
  check "capture = false: dumpcap fails (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
  check "capture = false: it cannot start its EAL" grep -q "EAL init failed" "$WORK/nocap.err"
  check "capture = false: pmdfwd still running" kill -0 "$PMDFWD_PID"
  stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
  PMDFWD_PID=
  check "capture = false: exit 0, every pool full" \
    grep -q "pools full again at shutdown" "$WORK/pmdfwd-nocap.log"
  check "capture = false: pmdfwd exit 0" test "$rc" -eq 0
else
  fail "capture = false: start" "pmdfwd did not come up"
fi
summary
