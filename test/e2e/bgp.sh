#!/usr/bin/env bash
# pmdfwd under a routing daemon, with Debian's BIRD on both sides: a peer
# namespace behind port p1 runs BIRD announcing 10,000 IPv4 and 1,000 IPv6
# prefixes over eBGP (one session per family) to a BIRD on the box, whose
# sessions run through p1 and its kernel interface and which installs the
# routes in kernel table N; pmdfwd mirrors that table
# (`[l3] kernel_routes`). Traffic from a host behind p0 to an announced
# prefix is forwarded by pmdfwd's workers; the peer withdraws a prefix and
# pmdfwd stops forwarding it within a second; the sessions stay up under
# traffic and a flood to the router's address (10 s, or BGP_LOAD_SECONDS);
# the daemon on the box restarts and pmdfwd converges to the
# kernel's table again.
# Usage: [BGP_LOAD_SECONDS=60] bgp.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
kernel_rig bg "${1:-}"
TABLE=$((2000 + ID))
PEER_PID= LOCAL_PID=
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  [[ -z $LOCAL_PID ]] || kill -KILL "$LOCAL_PID" 2>/dev/null
  ip route flush table "$TABLE" 2>/dev/null
  ip -6 route flush table "$TABLE" 2>/dev/null
  ns_remove "${NS[@]}"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

v4() { echo "10.84.$1.$2"; }
v6() { echo "2001:db8:84:$1::$2"; }

kernel_rig_config "$PREFIX" "kernel_routes = { table = $TABLE }" \
  "# Low, so that the flood below is over it on a slow or busy machine too." \
  "kernel_rate_limit = 2000" >"$WORK/cfg.toml"

kernel_rig_start "$WORK/cfg.toml"
# The peer answers for the first address of two announced prefixes.
ip -n "${NS[1]}" addr add 100.64.0.1/32 dev lo
ip -n "${NS[1]}" addr add 2001:db8:1000::1/128 dev lo
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

# BIRD's timers short, so that sessions come up and come back in seconds.
bgp_session() {  # bgp_session NAME FAMILY LOCAL LOCAL_AS PEER PEER_AS IMPORT EXPORT
  cat <<BIRD
protocol bgp $1 {
  local $3 as $4;
  neighbor $5 as $6;
  connect delay time 1;
  connect retry time 1;
  error wait time 1, 2;
  hold time 6;
  $2 { import $7; export $8; };
}
BIRD
}
{
  echo "router id $(v4 1 2);"
  echo "protocol device { scan time 1; }"
  echo "protocol static announced4 { ipv4;"
  for i in $(seq 0 9999); do echo "  route 100.$((64 + i / 256)).$((i % 256)).0/24 unreachable;"; done
  echo "}"
  echo "protocol static announced6 { ipv6;"
  for i in $(seq 0 999); do printf '  route 2001:db8:%x::/48 unreachable;\n' $((0x1000 + i)); done
  echo "}"
  echo "protocol static withdrawn4 { ipv4; route 100.127.0.0/24 unreachable; }"
  bgp_session up4 ipv4 "$(v4 1 2)" 65002 "$(v4 1 1)" 65001 none all
  bgp_session up6 ipv6 "$(v6 1 2)" 65002 "$(v6 1 1)" 65001 none all
} >"$WORK/peer.conf"
{
  echo "router id $(v4 1 1);"
  echo "protocol device { scan time 1; }"
  echo "protocol kernel k4 { kernel table $TABLE; ipv4 { import none; export all; }; }"
  echo "protocol kernel k6 { kernel table $TABLE; ipv6 { import none; export all; }; }"
  bgp_session down4 ipv4 "$(v4 1 1)" 65001 "$(v4 1 2)" 65002 all none
  bgp_session down6 ipv6 "$(v6 1 1)" 65001 "$(v6 1 2)" 65002 all none
} >"$WORK/local.conf"

ip netns exec "${NS[1]}" bird -f -c "$WORK/peer.conf" -s "$WORK/peer.ctl" >"$WORK/peer.log" 2>&1 &
PEER_PID=$!
start_local() {
  bird -f -c "$WORK/local.conf" -s "$WORK/local.ctl" >>"$WORK/local.log" 2>&1 &
  LOCAL_PID=$!
}
start_local
established() {  # established SOCKET PROTOCOL...: each in state Established within 30 s
  local sock=$1; shift
  for _ in $(seq 300); do
    local all=1 p
    for p in "$@"; do
      birdc -s "$sock" show protocols "$p" 2>/dev/null | grep -q Established || all=0
    done
    ((all)) && return 0
    sleep 0.1
  done
  return 1
}
check "eBGP sessions up through pmdfwd's port and kernel interface (IPv4, IPv6)" \
  established "$WORK/local.ctl" down4 down6

kernel_count() {  # kernel_count [-6]: routes in the synced table
  ip "$@" route show table "$TABLE" | wc -l
}
routes_in() {  # routes_in V4 V6: the kernel table holds that many within 30 s
  for _ in $(seq 300); do
    (($(kernel_count) == $1 && $(kernel_count -6) == $2)) && return 0
    sleep 0.1
  done
  return 1
}
check "BIRD installed 10,001 IPv4 and 1,000 IPv6 routes in kernel table $TABLE" \
  routes_in 10001 1000
converged() {
  for _ in $(seq 100); do
    kernel_routes_match "$PMDCTL" "$PREFIX" "$TABLE" "$WORK" >"$WORK/compare.txt" 2>&1 && return 0
    sleep 0.2
  done
  return 1
}
converged; rc=$?
check "pmdfwd holds the kernel table's routes ($(cat "$WORK/compare.txt"))" test "$rc" = 0

ping_ok() { ip netns exec "${NS[0]}" ping -c 2 -i 0.2 -W 2 "$@" >>"$WORK/ping.txt" 2>&1; }
check "a -> 100.64.0.1 (announced) is forwarded by pmdfwd's workers" \
  routed_by_workers "$PMDCTL" "$PREFIX" ping_ok 100.64.0.1
check "a -> 2001:db8:1000::1 (announced) is forwarded by pmdfwd's workers" \
  routed_by_workers "$PMDCTL" "$PREFIX" ping_ok -6 2001:db8:1000::1

has_prefix() {  # has_prefix PREFIX: pmdfwd routes it (11,000 routes: read from a file)
  ctl --json show routes >"$WORK/routes.json" || return 2
  /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1]));
sys.exit(0 if any(r['prefix'] == sys.argv[2] for r in d) else 1)" "$WORK/routes.json" "$1"
}
check "100.127.0.0/24 is routed before its withdrawal" has_prefix 100.127.0.0/24
birdc -s "$WORK/peer.ctl" disable withdrawn4 >/dev/null
withdrawn_within_1s() {
  for _ in $(seq 10); do
    has_prefix 100.127.0.0/24
    (($? == 1)) && return 0
    sleep 0.1
  done
  return 1
}
check "the peer withdraws 100.127.0.0/24: pmdfwd drops it within a second" withdrawn_within_1s

# Under traffic for a while: the sessions do not flap.
# A flap is a new session, at least a second (error wait time) after the
# last: BIRD's time of the last change, to the second, tells one apart from
# the bookkeeping that moves it by a millisecond once a session is up.
state() {  # state PROTOCOL: its state, since when (to the second), and its info
  birdc -s "$WORK/local.ctl" show protocols "$1" |
    awk -v p="$1" '$1 == p {sub(/\.[0-9]+$/, "", $5); print $4, $5, $6}'
}
before=$(state down4)
limited=$(ctl --json show router | json_get "$(cat)" 'd["kernel_rate_limited"]')
# 10 s in the suite; BGP_LOAD_SECONDS=60 for the minute an operator asks.
# Half of it with a flood to the router's address on p0 besides.
LOAD_SECONDS=${BGP_LOAD_SECONDS:-10}
udp_flood "${NS[0]}" "$(v4 0 1)" $((LOAD_SECONDS / 2))
ip netns exec "${NS[0]}" ping -q -c $((LOAD_SECONDS * 50)) -i 0.02 100.64.0.1 \
  >"$WORK/ping-load.txt" 2>&1
wait "$FLOOD_PID" 2>/dev/null
after=$(state down4)
check "the session stayed up under traffic and a flood to the router ($before; then $after)" \
  bash -c "[[ '$after' == '$before' && '$after' == *Established* ]]"
check "the flood was held to l3.kernel_rate_limit (kernel_rate_limited grew)" \
  test "$(ctl --json show router | json_get "$(cat)" 'd["kernel_rate_limited"]')" -gt "$limited"
check "the traffic under way was answered" grep -q " 0% packet loss\| [1-9][0-9]* received" \
  "$WORK/ping-load.txt"

# The daemon on the box restarts: its routes leave the table and come back.
kill -TERM "$LOCAL_PID"; wait "$LOCAL_PID" 2>/dev/null; LOCAL_PID=
start_local
check "after BIRD's restart the sessions come back" established "$WORK/local.ctl" down4 down6
check "and the table fills again" routes_in 10000 1000
converged; rc=$?
check "pmdfwd converged to the kernel's table again ($(cat "$WORK/compare.txt"))" test "$rc" = 0
check "a -> 100.64.0.1 forwarded by the workers after the restart" \
  routed_by_workers "$PMDCTL" "$PREFIX" ping_ok 100.64.0.1

kill -TERM "$LOCAL_PID"; wait "$LOCAL_PID" 2>/dev/null; LOCAL_PID=
finish_pmdfwd
summary
