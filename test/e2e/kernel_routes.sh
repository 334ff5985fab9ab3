#!/usr/bin/env bash
# Router mode's routes from a kernel table (`[l3] kernel_routes`), with
# iproute2 as the routing software: pmdfwd reads the table in full at start
# (what it cannot mirror counted by reason), then every change; a route the
# kernel gets through a port's kernel interface carries traffic through
# pmdfwd's workers (their counters, not the kernel's), and stops when the
# kernel's route goes; a pmdctl route takes precedence over the kernel's
# and gives the prefix back when deleted; 100,000 routes added with
# `ip -batch` while pmdfwd is stopped (SIGSTOP) overrun its socket, and
# after SIGCONT pmdfwd reads the table again and holds exactly the kernel's
# routes (`ip -j route show table N` against `pmdctl --json show routes`);
# then every one of them deleted with `ip -batch` while pmdfwd runs, change
# by change, and none is left.
# Usage: kernel_routes.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
kernel_rig kr "${1:-}"
TABLE=$((1000 + ID))
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || { kill -CONT "$PMDFWD_PID"; kill -KILL "$PMDFWD_PID"; } 2>/dev/null
  ip route flush table "$TABLE" 2>/dev/null
  ip -6 route flush table "$TABLE" 2>/dev/null
  ns_remove "${NS[@]}"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

v4() { echo "10.82.$1.$2"; }
v6() { echo "2001:db8:82:$1::$2"; }

# Room for the 100,000 routes below (IPv6 small: its groups cost memory).
kernel_rig_config "$PREFIX" "kernel_routes = { table = $TABLE, receive_buffer_kb = 256 }" \
  "max_routes = 131072" "max_routes_v6 = 4096" >"$WORK/cfg.toml"

# Before start, routes pmdfwd cannot mirror: a blackhole, one out of lo.
ip route add blackhole 10.82.99.0/24 table "$TABLE"
ip route add 10.82.98.0/24 dev lo table "$TABLE"

check "--check accepts kernel_routes" "$PMDFWD" --check --config "$WORK/cfg.toml"
kernel_rig_start "$WORK/cfg.toml"
# Behind b: 10.82.9.1 and 2001:db8:82:9::1 on its loopback.
ip -n "${NS[1]}" addr add 10.82.9.1/32 dev lo
ip -n "${NS[1]}" addr add 2001:db8:82:9::1/128 dev lo
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
router_field() { ctl --json show router | json_get "$(cat)" "d['$1']"; }

check "the table was read in full at start (kernel_routes_rereads 1)" \
  test "$(router_field kernel_routes_rereads)" = 1
check "its blackhole was skipped as not_unicast" \
  test "$(router_field kernel_routes_skipped_not_unicast)" -ge 1
check "its route out of lo was skipped as no_port" \
  test "$(router_field kernel_routes_skipped_no_port)" -ge 1

ping_ok() {  # ping_ok [-6] ADDRESS: from a
  ip netns exec "${NS[0]}" ping -c 2 -i 0.2 -W 2 "$@" >>"$WORK/ping.txt" 2>&1
}

check "nothing reaches 10.82.9.1 before the kernel has a route" \
  bash -c "! ip netns exec ${NS[0]} ping -c 1 -W 1 10.82.9.1 >/dev/null 2>&1"
ip route add 10.82.9.0/24 via "$(v4 1 2)" dev "${KI[1]}" table "$TABLE"
ip -6 route add 2001:db8:82:9::/64 via "$(v6 1 2)" dev "${KI[1]}" table "$TABLE"
check "the kernel's IPv4 route is mirrored (show routes: kernel)" route_listed 10.82.9.0/24 kernel
check "the kernel's IPv6 route is mirrored" route_listed 2001:db8:82:9::/64 kernel
check "a -> 10.82.9.1 is forwarded by pmdfwd's workers" \
  routed_by_workers "$PMDCTL" "$PREFIX" ping_ok 10.82.9.1
check "a -> 2001:db8:82:9::1 is forwarded by pmdfwd's workers" \
  routed_by_workers "$PMDCTL" "$PREFIX" ping_ok -6 2001:db8:82:9::1
check "counted: kernel_routes_added" test "$(router_field kernel_routes_added)" -ge 2

# pmdctl's route over the kernel's, and the kernel's back when it goes.
ctl route add 10.82.9.0/24 --via "$(v4 1 2)" >/dev/null 2>&1
check "a route added with pmdctl takes the prefix (runtime)" route_listed 10.82.9.0/24 runtime
ctl route del 10.82.9.0/24 >/dev/null 2>&1
check "deleted, the kernel's route holds the prefix again" route_listed 10.82.9.0/24 kernel

# pmdctl route load: a file of changes in batches, precedence as route add.
# A line that does not parse sends nothing; a change the router refuses is
# told with its line, and the rest go in.
cat >"$WORK/broken.txt" <<ROUTES
10.82.40.0/24 via $(v4 1 2)
10.82.41.0/24 dev ${KI[1]}
ROUTES
ctl route load "$WORK/broken.txt" >"$WORK/load-broken.txt" 2>&1
check "route load refuses a file with a bad line (exit 1, file:line:column)" \
  bash -c "! grep -q added '$WORK/load-broken.txt' && grep -q 'broken.txt:2:15: .dev.: expected via GATEWAY or port NAME' '$WORK/load-broken.txt'"
check "and sent nothing of it" route_gone 10.82.40.0/24 3
cat >"$WORK/table.txt" <<ROUTES
# three routes, one the router refuses, one delete
10.82.40.0/24 via $(v4 1 2)
10.82.9.0/24 via $(v4 1 2)
10.82.41.0/24 via 10.99.0.1
2001:db8:82:40::/64 via $(v6 1 2) port p1
del 10.82.40.0/24
ROUTES
ctl route load "$WORK/table.txt" >"$WORK/load.txt" 2>&1
load_rc=$?
check "route load exits 1 when a change was refused" test "$load_rc" = 1
check "it names the refused line (table.txt:4)" grep -q "table.txt:4: .*10.99.0.1" "$WORK/load.txt"
check "and counts the rest: 3 added, 1 deleted, 1 refused" \
  grep -q "3 added or replaced, 1 deleted, 1 refused" "$WORK/load.txt"
check "a loaded route takes the kernel's prefix (runtime)" route_listed 10.82.9.0/24 runtime
check "a loaded IPv6 route is there" route_listed 2001:db8:82:40::/64 runtime
check "the route deleted in the same file is gone" route_gone 10.82.40.0/24
printf 'del 10.82.9.0/24\ndel 2001:db8:82:40::/64\n' >"$WORK/undo.txt"
check "route load of deletes gives the kernel its prefix back" \
  "$PMDCTL" --file-prefix "$PREFIX" route load "$WORK/undo.txt"
check "(kernel again)" route_listed 10.82.9.0/24 kernel
# Seven items, none a change: each refused by the endpoint, none crashes it.
echo "/pmdfwd/route_batch,+;=;-;=x;+10.1.0.0/33;;" |
  dpdk-telemetry.py -f "$PREFIX" >"$WORK/garbage.txt" 2>&1
check "a route_batch of garbage is answered with refusals, not a crash" \
  grep -q '"refused": 7' "$WORK/garbage.txt"
check "(pmdfwd still answers)" bash -c "'$PMDCTL' --file-prefix '$PREFIX' --json show router >/dev/null"

ip route del 10.82.9.0/24 table "$TABLE"
check "the kernel's route deleted: gone from pmdfwd" route_gone 10.82.9.0/24
ip netns exec "${NS[0]}" ping -c 2 -i 0.3 -W 1 10.82.9.1 >"$WORK/ping-deleted.txt" 2>&1
check "and a -> 10.82.9.1 no longer reaches b (net unreachable)" \
  grep -q "Destination Net Unreachable" "$WORK/ping-deleted.txt"

# An overrun: pmdfwd stopped while 100,000 routes arrive, more than its
# socket holds; it notices, reads the table again and converges.
rereads=$(router_field kernel_routes_rereads)
gateway=$(v4 1 2)  # once: a command substitution a line is a fork a line
for i in $(seq 0 99999); do
  echo "route add 10.$((84 + i / 65536)).$((i / 256 % 256)).$((i % 256))/32 via $gateway dev ${KI[1]} table $TABLE"
done >"$WORK/batch.txt"
kill -STOP "$PMDFWD_PID"
ip -batch "$WORK/batch.txt"
ip route del 10.82.98.0/24 dev lo table "$TABLE"
kill -CONT "$PMDFWD_PID"
overran() {
  for _ in $(seq 50); do
    (($(router_field kernel_routes_overruns) >= 1 && $(router_field kernel_routes_rereads) > rereads)) &&
      return 0
    sleep 0.1
  done
  return 1
}
check "the overrun was noticed and the table read again" overran
converged() {
  for _ in $(seq 30); do
    kernel_routes_match "$PMDCTL" "$PREFIX" "$TABLE" "$WORK" >"$WORK/compare.txt" 2>&1 && return 0
    sleep 0.2
  done
  return 1
}
converged; rc=$?
check "pmdfwd's kernel routes are the kernel table's ($(cat "$WORK/compare.txt"))" test "$rc" = 0
check "a -> b still routed after the overrun" \
  routed_by_workers "$PMDCTL" "$PREFIX" ping_ok "$(v4 1 2)"

# And every one of them deleted while pmdfwd runs.
removed=$(router_field kernel_routes_removed)
sed 's/^route add \([^ ]*\) .*/route del \1 table '"$TABLE"'/' "$WORK/batch.txt" >"$WORK/del.txt"
ip -batch "$WORK/del.txt"
all_removed() {
  for _ in $(seq 100); do
    (($(router_field kernel_routes_removed) - removed >= 100000)) && return 0
    sleep 0.2
  done
  return 1
}
check "the 100,000 deletes reached pmdfwd (kernel_routes_removed)" all_removed
converged; rc=$?
check "and pmdfwd's kernel routes are the kernel table's again ($(cat "$WORK/compare.txt"))" \
  test "$rc" = 0

finish_pmdfwd
summary
