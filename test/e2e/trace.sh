#!/usr/bin/env bash
# The packet trace end to end. A router (mode "l3") between two namespaces:
# one packet each that is forwarded, expires (TTL 1), has no route, has a
# bad header (a --drops trace) and is punted (ARP) is traced with the right
# steps and reasons; a filter picks one flow out of three; a bad filter,
# port or count is refused. Then patch mode on net_null at full speed with
# a handoff between its two workers: a handed-off packet is traced as such,
# traces started and stopped while the traffic flows and a drop capture of
# its drop storm (bounded by rate and count) leave every pool full at
# shutdown. Beside the trace, the drop capture: one frame of each kind the
# router drops, read back from the pcapng with tshark.
# Usage: trace.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
tap_rig trc tr "${1:-}"
NS=("$NS_L" "$NS_R")
IF=("$IF_L" "$IF_R")
v4() { echo "10.91.$1.$2"; }
v6() { echo "2001:db8:91:$1::$2"; }
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

{
  cat <<CFG
[eal]
lcores = "0@0,1@1,2@0"
memory_mb = 512
file_prefix = "$PREFIX"

[poll]
mode = "adaptive"
CFG
  for n in 0 1; do l3_tap_port "p$n" "${IF[$n]}" "$(v4 $n 1)/24" "$(v6 $n 1)/64"; done
  printf '\n[forward]\nmode = "l3"\n'
} >"$WORK/cfg.toml"

if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
for n in 0 1; do
  wait_for_link "${IF[$n]}" 10
  ns_attach_dual "${NS[$n]}" "${IF[$n]}" "$(v4 $n 2)/24" "$(v6 $n 2)/64" "$(v4 $n 1)" "$(v6 $n 1)"
done
ip netns exec "${NS[0]}" ping -c 2 -i 0.2 -W 2 "$(v4 1 2)" >/dev/null 2>&1
ROUTER_MAC=$(ip -n "${NS[0]}" neigh show "$(v4 0 1)" | awk '{for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1)}')
check "ping crosses the router and a learns its MAC ($ROUTER_MAC)" test -n "$ROUTER_MAC"

# trace_one NAME START-ARGS -- SEND-COMMAND...: starts a trace of one
# packet, sends, waits until it is taken, saves `trace show` in
# $WORK/NAME.txt.
trace_one() {
  local name=$1; shift
  local args=()
  while [[ $1 != -- ]]; do args+=("$1"); shift; done; shift
  ctl trace start --count 1 "${args[@]}" >"$WORK/$name-start.txt" 2>&1
  "$@" >/dev/null 2>&1
  local deadline=$((SECONDS + 10))
  until ctl --json trace stop 2>/dev/null | grep -q '"traced": 1'; do
    ((SECONDS < deadline)) || break
    "$@" >/dev/null 2>&1
    sleep 0.2
  done
  ctl trace show >"$WORK/$name.txt" 2>&1
}
step() {  # step NAME STEP DETAIL-REGEX: NAME's trace has that step
  grep -Eq "^ +$2 +$3" "$WORK/$1.txt"
}
send_py() {  # send_py NS PYTHON: scapy in namespace NS
  ip netns exec "$1" /usr/bin/python3 -c "from scapy.all import *; conf.verb = 0; $2"
}

trace_one forwarded --filter "icmp and dst host $(v4 1 2)" -- \
  ip netns exec "${NS[0]}" ping -c 1 -W 1 "$(v4 1 2)"
check "trace start says the trace is on" grep -q "state on" "$WORK/forwarded-start.txt"
check "forwarded: its headers are decoded" \
  grep -Eq "IPv4 $(v4 0 2) > $(v4 1 2) ttl 64 .*ICMP type 8 code 0" "$WORK/forwarded.txt"
check "forwarded: received on p0" step forwarded received "worker [0-9]+, port p0, queue [0-9]+, 98 bytes"
check "forwarded: classified as IPv4" step forwarded classified "IPv4, to be routed"
check "forwarded: looked up, forward on p1 to b's MAC" \
  step forwarded looked_up "next hop [0-9]+: forward on p1 to ([0-9a-f]{2}:){5}[0-9a-f]{2} from"
check "forwarded: its route named: b's host route (neighbour) on p1" \
  step forwarded route "$(v4 1 2) by $(v4 1 2)/32 \(neighbour, via $(v4 1 2), port p1\)"
check "forwarded: transmitted on p1" step forwarded transmitted "port p1, TX queue [0-9]+"
check "forwarded: no drop step" bash -c "! grep -q dropped $WORK/forwarded.txt"
ctl --json trace stop >"$WORK/done.json" 2>&1
check "a trace that filled its count stopped by itself (state done)" \
  grep -q '"state": "done"' "$WORK/done.json"

trace_one ttl --filter "udp dst port 33434" -- \
  ip netns exec "${NS[0]}" /usr/bin/python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 1)
s.sendto(b'x', ('$(v4 1 2)', 33434))"
check "TTL 1: classified with its TTL" step ttl classified "IPv4, to be routed; TTL or hop limit 1"
check "TTL 1: dropped as ttl_expired, its ICMP error to the control path" \
  step ttl dropped "ttl_expired; its ICMP error went to the control path"

trace_one noroute --filter "dst host 10.99.0.1" -- \
  ip netns exec "${NS[0]}" ping -c 1 -W 1 10.99.0.1
check "no route: looked up, next hop 0: none" step noroute looked_up "next hop 0: none: no route"
check "no route: the route row says so" step noroute route "10.99.0.1: no route now"
check "no route: dropped as no_route" step noroute dropped "no_route"

bad_checksum="sendp(Ether(dst='$ROUTER_MAC')/IP(src='$(v4 0 2)', dst='$(v4 1 2)', chksum=0x1234)/UDP(sport=40000, dport=40001)/Raw(b'bad'), iface='${IF[0]}')"
trace_one badheader --drops --filter "udp dst port 40001" -- send_py "${NS[0]}" "$bad_checksum"
check "bad header (--drops): classified as refused" step badheader classified "refused: bad_header"
check "bad header (--drops): dropped as bad_header" step badheader dropped "bad_header"

trace_one arp --filter "arp" -- bash -c \
  "ip -n ${NS[0]} neigh flush dev ${IF[0]}; ip netns exec ${NS[0]} ping -c 1 -W 1 $(v4 0 1)"
check "ARP: classified as the control path's" step arp classified "ARP or neighbour discovery"
check "ARP: punted as neighbour" step arp punted "neighbour"

# Neighbour discovery between global addresses takes the plain path: its
# route is the router's own, and it is punted as ND, not as to the router.
ns_to_router="sendp(Ether(dst='$ROUTER_MAC')/IPv6(src='$(v6 0 2)', dst='$(v6 0 1)', hlim=255)/ICMPv6ND_NS(tgt='$(v6 0 1)')/ICMPv6NDOptSrcLLAddr(lladdr=get_if_hwaddr('${IF[0]}')), iface='${IF[0]}')"
trace_one nd --filter "icmp6 and src host $(v6 0 2) and dst host $(v6 0 1)" -- \
  send_py "${NS[0]}" "$ns_to_router"
check "ND to the router's address: classified as IPv6" step nd classified "IPv6, to be routed"
check "ND to the router's address: looked up as local" step nd looked_up "next hop [0-9]+: local"
check "ND to the router's address: punted as neighbour" step nd punted "neighbour"

# Three flows at once; the filter takes five packets of the middle one.
ctl trace start --count 5 --filter "udp dst port 5002" >/dev/null 2>&1
ip netns exec "${NS[0]}" /usr/bin/python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(50):
    for port in (5001, 5002, 5003):
        s.sendto(b'y' * 32, ('$(v4 1 2)', port))
    time.sleep(0.01)"
sleep 0.5
ctl trace show >"$WORK/flow.txt" 2>&1
check "a filter picks one flow of three: five packets traced" \
  test "$(grep -c '^packet ' "$WORK/flow.txt")" = 5
check "each of them to port 5002, none to the others" bash -c \
  "test \$(grep -c 'UDP [0-9]* > 5002' $WORK/flow.txt) = 5 && ! grep -Eq '> 500[13]' $WORK/flow.txt"
ctl --json trace show >"$WORK/flow.json" 2>&1
check "trace show --json gives a row a step" \
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert sum(x['step']=='transmitted' for x in r)==5" "$WORK/flow.json"

# The drop capture: one frame of each kind the router drops, read back.
# It ends on SIGTERM once they are sent, not at a timeout: on a busy
# machine scapy's start and its sends took longer than a 4 s capture (the
# last four frames of eight came after it). Its file is made just before
# the capture starts: the frames wait for it, not for a time.
"$PMDCTL" --file-prefix "$PREFIX" drops --pcap "$WORK/drops.pcapng" --count 1000 --timeout 120 \
  >"$WORK/drops.txt" 2>&1 &
DROPS_PID=$!
for _ in $(seq 100); do [[ -s $WORK/drops.pcapng ]] && break; sleep 0.1; done
sleep 0.5
ip netns exec "${NS[0]}" /usr/bin/python3 "$E2E_ROOT/test/e2e/drop_frames.py" send "${IF[0]}" \
  "$ROUTER_MAC" "$(v4 0 2)" "$(v4 1 2)" "$(v4 1 255)" "$WORK/sent.json"
sleep 1
kill -TERM "$DROPS_PID"
wait "$DROPS_PID"; rc=$?
check "pmdctl drops ends on SIGTERM (exit $rc) and says what it wrote" \
  bash -c "test $rc = 0 && grep -q 'dropped packet(s) written' $WORK/drops.txt"
tshark -r "$WORK/drops.pcapng" -T fields -e frame.comment >"$WORK/comments.txt" 2>"$WORK/tshark.err"
check "tshark reads the pcapng: every frame sent is in it once, byte for byte, with its reason" \
  /usr/bin/python3 "$E2E_ROOT/test/e2e/drop_frames.py" check "$WORK/sent.json" \
  "$WORK/drops.pcapng" "$WORK/comments.txt"
ctl drops --pcap "$WORK/x.pcapng" --reason nosuch >"$WORK/bad-reason.txt" 2>&1; rc=$?
check "drops refuses an unknown reason (exit $rc)" \
  bash -c "test $rc -ne 0 && grep -q \"no drop reason 'nosuch'\" $WORK/bad-reason.txt"

ctl trace start --filter "udp port" >"$WORK/bad-filter.txt" 2>&1; rc=$?
check "a filter that does not compile is refused (exit $rc) with libpcap's words" \
  bash -c "test $rc -ne 0 && grep -qi 'syntax error' $WORK/bad-filter.txt"
ctl trace start --port nosuch >"$WORK/bad-port.txt" 2>&1; rc=$?
check "an unknown port is refused (exit $rc)" \
  bash -c "test $rc -ne 0 && grep -q \"no port named 'nosuch'\" $WORK/bad-port.txt"
ctl trace start --count 0 >"$WORK/bad-count.txt" 2>&1; rc=$?
check "a count of 0 is refused (exit $rc)" test "$rc" -ne 0
finish_pmdfwd

# Patch mode on net_null: p0's worker hands every burst to p1's, which owns
# p1's only TX queue; traffic at full speed.
sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" "$E2E_ROOT/config/null-handoff.toml" \
  >"$WORK/null.toml"
cleanup_dpdk_prefix "$PREFIX"
if ! start_pmdfwd "$PMDFWD" "$WORK/null.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start (patch, net_null)" "pmdfwd did not come up"; summary; exit 1
fi
# p0's worker sends faster than p1's drains its ring, so a traced packet
# is handed off or dropped as handoff_full by when it comes: one at a time,
# at different moments, until one was handed off.
: >"$WORK/handoff-all.txt"
for try in $(seq 1 40); do
  ctl trace start --count 1 --port p0 >/dev/null 2>&1
  sleep 0.05
  ctl trace show >"$WORK/handoff.txt" 2>&1
  cat "$WORK/handoff.txt" >>"$WORK/handoff-all.txt"
  step handoff handed_off "to the worker of port p1 TX queue 0" && break
done
check "handed off: a packet traced on p0 went to the worker of p1's TX queue (try $try)" \
  step handoff handed_off "to the worker of port p1 TX queue 0"
check "handed off: every one traced was handed off or dropped as handoff_full" bash -c \
  "test \$(grep -c '^packet ' $WORK/handoff-all.txt) = \$(grep -Ec '^ +(handed_off +to the worker of port p1|dropped +handoff_full)' $WORK/handoff-all.txt)"
for round in 1 2 3 4 5; do
  ctl trace start --continuous --count 100 >/dev/null 2>&1
  sleep 0.2
  ctl trace stop >/dev/null 2>&1
  ctl trace start --count 1000 --filter "len > 100" >/dev/null 2>&1
  sleep 0.1
  ctl trace show >/dev/null 2>&1
done
ctl trace show >"$WORK/continuous.txt" 2>&1
check "a trace started and stopped ten times under full-speed traffic: pmdfwd answers" \
  kill -0 "$PMDFWD_PID"
# A drop storm (the handoff ring overflows millions of times a second):
# copies stay within the rate and the count.
ctl --json drops --pcap "$WORK/storm.pcapng" --count 150 --rate 100 --timeout 3 \
  >"$WORK/storm.json" 2>&1
check "a drop storm: at most 150 copies, the rest counted as over the rate or the count" \
  /usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert 0 < d['written'] <= 150 and d['captured'] == d['written'], d
assert d['rate_limited'] + d['over_count'] > 1000, d" "$WORK/storm.json"
check "its pcapng holds handoff_full drops" \
  bash -c "tshark -r $WORK/storm.pcapng -T fields -e frame.comment | grep -q '^reason handoff_full, worker 0, port p0'"
finish_pmdfwd
summary
