#!/usr/bin/env bash
# Live reload and the running config. A router (mode "l3") between two
# namespaces. show config prints the running config and config save writes
# it (it passes --check). While iperf3 moves TCP through the router, pmdctl
# reload --dry-run lists the changes and applies none, pmdctl reload
# applies a new file (a route gone, one added, ICMP errors off, log level
# debug) and SIGHUP another (ICMP errors back): no drop, and iperf3's
# retransmits no more than a run without reload. A file that changes a
# port is refused and changes nothing; a broken file is refused with its
# file:line:column. The log channel moves to another port and a
# [[neighbour]] comes in. A route added at run time, saved with config save, is
# there again after a restart on the saved file, whose running config is
# the one saved.
# Usage: reload.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
tap_rig rld rl "${1:-}"
NS=("$NS_L" "$NS_R")
IF=("$IF_L" "$IF_R")
v4() { echo "10.92.$1.$2"; }
v6() { echo "2001:db8:92:$1::$2"; }
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
PORT=$(free_tcp_ports 1)

# write_config ICMP_RATE LOG_LEVEL ROUTE-PREFIX... [-- EXTRA-TOML]
write_config() {
  local icmp=$1 level=$2; shift 2
  {
    cat <<CFG
[eal]
lcores = "0@0,1@1,2@0"
memory_mb = 512
file_prefix = "$PREFIX"

[poll]
mode = "adaptive"

[log]
level = "$level"
file = "$WORK/pmdfwd-file.log"
CFG
    for n in 0 1; do l3_tap_port "p$n" "${IF[$n]}" "$(v4 $n 1)/24" "$(v6 $n 1)/64"; done
    printf '\n[forward]\nmode = "l3"\n\n[l3]\nicmp_rate_limit = %s\n' "$icmp"
    # The log channel to b, broadcast (b's MAC is known only once pmdfwd
    # made its tap), at NETLOG_PORT.
    printf '\n[netlog]\nenabled = true\nport = "p1"\nsrc_ip = "%s"\ndst_ip = "%s"\n' \
      "$(v4 1 1)" "$(v4 1 2)"
    printf 'dst_mac = "ff:ff:ff:ff:ff:ff"\ndst_port = %s\n' "${NETLOG_PORT:-6666}"
    if [[ -n ${NEIGHBOUR:-} ]]; then
      printf '\n[[neighbour]]\naddress = "%s"\nmac = "02:00:00:00:00:50"\nport = "p1"\n' "$(v4 1 50)"
    fi
    while [[ $# -gt 0 && $1 != -- ]]; do
      printf '\n[[route]]\nprefix = "%s"\nvia = "%s"\n' "$1" "$(v4 1 2)"
      shift
    done
    [[ $# -gt 0 ]] && { shift; printf '%s\n' "$@"; }
  } >"$WORK/cfg.toml"
}

write_config 100 info 10.93.0.0/24
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
for n in 0 1; do
  wait_for_link "${IF[$n]}" 10
  ns_attach_dual "${NS[$n]}" "${IF[$n]}" "$(v4 $n 2)/24" "$(v6 $n 2)/64" "$(v4 $n 1)" "$(v6 $n 1)"
done
for a in 10.93.0.1 10.94.0.1 10.95.0.1; do ip -n "${NS[1]}" addr add "$a/32" dev lo; done
ping_ok() { ip netns exec "${NS[0]}" ping -c 2 -i 0.2 -W 2 "$1" >/dev/null 2>&1; }
check "the config's route carries traffic: a -> 10.93.0.1" ping_ok 10.93.0.1

ctl show config >"$WORK/show1.toml" 2>&1
check "show config prints the running config, its route included" \
  grep -q "prefix = '10.93.0.0/24'" "$WORK/show1.toml"
check "show config gives every key, defaults too (l3.max_routes)" grep -q "^max_routes = " "$WORK/show1.toml"
ctl config save "$WORK/saved1.toml" >"$WORK/save1.txt" 2>&1
check "config save writes the running config" grep -q "saved to $WORK/saved1.toml" "$WORK/save1.txt"
check "the saved file passes --check" "$PMDFWD" --check --no-system-check --config "$WORK/saved1.toml"

# drops: packets the router lost rather than refused, from /pmdfwd/stats
# (the test's own pings to 10.99.0.1 are no_route, and the kernel's
# multicast not_our_mac: neither is traffic lost).
drops() {
  ctl --json stats | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(d["drop_" + r] for r in ("tx_full", "handoff_full", "link_down", "punt_full", "oversize")))'
}
# iperf_run SECONDS OUT: TCP a -> b in the background (IPERF_PID).
ip netns exec "${NS[1]}" iperf3 -s -B "$(v4 1 2)" -p "$PORT" >"$WORK/iperf-s.log" 2>&1 &
sleep 0.5
iperf_run() {
  # At a rate the tap path keeps up with, so that retransmits count losses,
  # not a saturated path's congestion control.
  ip netns exec "${NS[0]}" iperf3 -c "$(v4 1 2)" -p "$PORT" -b 200M -t "$1" -J >"$2" 2>&1 &
  IPERF_PID=$!
}
retransmits() {
  /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_sent"]["retransmits"])' "$1" 2>/dev/null || echo -1
}

before=$(drops)
iperf_run 4 "$WORK/iperf-base.json"; wait "$IPERF_PID"
base_drops=$(( $(drops) - before )); base_retrans=$(retransmits "$WORK/iperf-base.json")
check "iperf3 without reload: $base_retrans retransmits, $base_drops drops" test "$base_retrans" -ge 0

write_config 0 debug 10.94.0.0/24
before=$(drops)
iperf_run 4 "$WORK/iperf-reload.json"
sleep 1
ctl reload --dry-run >"$WORK/dry.txt" 2>&1; rc=$?
check "reload --dry-run lists the changes (exit $rc) and applies none" \
  bash -c "test $rc = 0 && grep -q '^dry run: 4 changes' $WORK/dry.txt && grep -q '^live    l3.icmp_rate_limit: 100 -> 0' $WORK/dry.txt"
check "after the dry run the old route still carries traffic" ping_ok 10.93.0.1
ctl reload >"$WORK/reload.txt" 2>&1; rc=$?
check "reload applies them (exit $rc)" bash -c "test $rc = 0 && grep -q '^applied: 4 changes' $WORK/reload.txt"
check "it names the route added and the one gone" bash -c \
  "grep -q '^live    route.10.94.0.0/24: (none) -> ' $WORK/reload.txt && grep -q '^live    route.10.93.0.0/24: .* -> (none)' $WORK/reload.txt"
ip netns exec "${NS[0]}" ping -c 2 -i 0.3 -W 1 10.99.0.1 >"$WORK/unreach-off.txt" 2>&1
check "ICMP errors off (icmp_rate_limit 0): no net unreachable for 10.99.0.1" \
  bash -c "! grep -q 'Unreachable' $WORK/unreach-off.txt"
write_config 100 debug 10.94.0.0/24
kill -HUP "$PMDFWD_PID"
wait "$IPERF_PID"; rc=$?
reload_drops=$(( $(drops) - before )); reload_retrans=$(retransmits "$WORK/iperf-reload.json")
check "iperf3 through two reloads succeeds (exit $rc)" test "$rc" = 0
check "no packet dropped across the reloads ($reload_drops drops; $base_drops without reload)" \
  test "$reload_drops" -le "$base_drops"
check "retransmits no more than without reload ($reload_retrans; $base_retrans without)" \
  test "$reload_retrans" -le $((2 * base_retrans + 20))
check "SIGHUP reloaded too (the log says so)" \
  bash -c "grep -q 'SIGHUP: reload: applied: 1 changes' $WORK/pmdfwd.log"
check "the new route carries traffic: a -> 10.94.0.1" ping_ok 10.94.0.1
check "the route gone carries none: a -> 10.93.0.1" bash -c "! ping_ok_() { :; }; ! ip netns exec ${NS[0]} ping -c 1 -W 1 10.93.0.1 >/dev/null 2>&1"
ip netns exec "${NS[0]}" ping -c 2 -i 0.3 -W 1 10.99.0.1 >"$WORK/unreach.txt" 2>&1
check "ICMP errors back on after SIGHUP: net unreachable for 10.99.0.1" \
  grep -q "Destination Net Unreachable" "$WORK/unreach.txt"
ctl route add 10.95.0.0/24 --via "$(v4 1 2)" >/dev/null 2>&1
check "log level debug, live: a route added is logged at debug" \
  grep -q "debug .*route 10.95.0.0/24 via $(v4 1 2) added" "$WORK/pmdfwd-file.log"

# The log channel's target, live: a test record reaches the new port only.
ip netns exec "${NS[1]}" /usr/bin/python3 "$E2E_ROOT/test/e2e/udp_receiver.py" 6666 \
  "$WORK/netlog-6666.jsonl" &
ip netns exec "${NS[1]}" /usr/bin/python3 "$E2E_ROOT/test/e2e/udp_receiver.py" 6667 \
  "$WORK/netlog-6667.jsonl" &
sleep 0.5
NETLOG_PORT=6667 NEIGHBOUR=1 write_config 100 debug 10.94.0.0/24 10.95.0.0/24
ctl reload >"$WORK/retarget.txt" 2>&1; rc=$?
ctl show neighbours >"$WORK/neighbours.txt" 2>&1
check "reload adds a [[neighbour]]: permanent, with its MAC" \
  grep -Eq "^p1 +$(v4 1 50) +permanent +02:00:00:00:00:50" "$WORK/neighbours.txt"
check "reload moves the log channel to port 6667 (exit $rc)" bash -c \
  "test $rc = 0 && grep -q '^live    netlog.dst_port: 6666 -> 6667' $WORK/retarget.txt"
ctl log test 100 >/dev/null 2>&1
sleep 0.5
check "a test record after it arrives at 6667" grep -q "netlog test record of 100 bytes" "$WORK/netlog-6667.jsonl"
check "and not at 6666" bash -c "! grep -q 'netlog test record of 100 bytes' $WORK/netlog-6666.jsonl"

ctl show config >"$WORK/show2.toml" 2>&1
export NETLOG_PORT=6667 NEIGHBOUR=1
write_config 100 debug 10.94.0.0/24 10.95.0.0/24 -- "" "[pool]" "mbufs = 16384"
ctl reload >"$WORK/refused.txt" 2>&1; rc=$?
check "a reload that touches the pools is refused (exit $rc), the key named" bash -c \
  "test $rc -ne 0 && grep -q '^refused: 1 of 1 changes need a restart' $WORK/refused.txt && grep -q '^restart pool.mbufs: 8192 -> 16384' $WORK/refused.txt"
ctl show config >"$WORK/show3.toml" 2>&1
check "and changes nothing" same_text "$WORK/show2.toml" "$WORK/show3.toml"
sed -i 's/^mtu = .*//; 0,/^devargs = /s/^\(devargs = .*\)$/\1\nmtu = 1400/' "$WORK/cfg.toml"
sed -i '/^\[pool\]$/d; /^mbufs = 16384$/d' "$WORK/cfg.toml"
ctl reload >"$WORK/refused-port.txt" 2>&1; rc=$?
check "a reload that changes a port's mtu is refused (exit $rc)" bash -c \
  "test $rc -ne 0 && grep -q '^restart port.p0.mtu: 1500 -> 1400' $WORK/refused-port.txt"
printf '[l3\nicmp_rate_limit = 5\n' >>"$WORK/cfg.toml"
line=$(wc -l <"$WORK/cfg.toml")
ctl reload >"$WORK/broken.txt" 2>&1; rc=$?
check "a broken file is refused (exit $rc) with file:line:column" bash -c \
  "test $rc -ne 0 && grep -q '^error: $WORK/cfg.toml:$((line - 1)):[0-9]*' $WORK/broken.txt"
ctl show config >"$WORK/show4.toml" 2>&1
check "and changes nothing either" same_text "$WORK/show2.toml" "$WORK/show4.toml"

ctl config save "$WORK/saved2.toml" >/dev/null 2>&1
check "config save keeps the route added at run time" grep -q "prefix = '10.95.0.0/24'" "$WORK/saved2.toml"
finish_pmdfwd
kill %1 2>/dev/null
if ! start_pmdfwd "$PMDFWD" "$WORK/saved2.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "restart on the saved config" "pmdfwd did not come up"; summary; exit 1
fi
ctl show config >"$WORK/show5.toml" 2>&1
check "restarted on the saved file, its running config is the one saved" \
  same_text "$WORK/show2.toml" "$WORK/show5.toml"
finish_pmdfwd
summary
