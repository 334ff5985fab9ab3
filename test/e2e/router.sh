#!/usr/bin/env bash
# Router mode end to end: three network namespaces on three subnets, joined
# only through pmdfwd's three tap ports (mode "l3"), each with the router as
# its default gateway. From empty neighbour caches on both sides: ARP and ND
# resolve, ping (IPv4 and IPv6) crosses, the router answers pings to its own
# addresses, traceroute shows it as the hop before the destination, iperf3
# moves data; SIGTERM leaves every pool full.
# Usage: router.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
ID=$(( $$ % 100000 ))
PREFIX=e2e-rt-$ID
WORK=$(mktemp -d)
NS=(rta$ID rtb$ID rtc$ID)
IF=(rta$ID rtb$ID rtc$ID)
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  ns_remove "${NS[@]}"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

# Subnet n: 10.52.n.0/24 and 2001:db8:52:n::/64; the router is .1 / ::1 and
# the namespace's host .2 / ::2.
v4() { echo "10.52.$1.$2"; }
v6() { echo "2001:db8:52:$1::$2"; }

# Three workers on two CPUs: adaptive polling gives the CPU back while idle.
{
  cat <<CFG
[eal]
lcores = "0@0,1@1,2@0,3@1"
memory_mb = 512
file_prefix = "$PREFIX"

[poll]
mode = "adaptive"

[pool]
mbufs = 16384
CFG
  for n in 0 1 2; do
    cat <<CFG

[[port]]
name = "p$n"
devargs = "net_tap_${IF[$n]},iface=${IF[$n]}"
addresses = ["$(v4 $n 1)/24", "$(v6 $n 1)/64"]
CFG
  done
  cat <<CFG

[forward]
mode = "l3"

[log]
level = "debug"
CFG
} >"$WORK/cfg.toml"

check "--check accepts the config" "$PMDFWD" --check --config "$WORK/cfg.toml"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
for n in 0 1 2; do
  wait_for_link "${IF[$n]}" 10
  ip netns add "${NS[$n]}"
  ip link set "${IF[$n]}" netns "${NS[$n]}"
  ip -n "${NS[$n]}" link set lo up
  ip netns exec "${NS[$n]}" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
    "net.ipv6.conf.${IF[$n]}.accept_dad=0" net.ipv6.conf.all.accept_ra=0
  ip -n "${NS[$n]}" addr add "$(v4 $n 2)/24" dev "${IF[$n]}"
  ip -n "${NS[$n]}" addr add "$(v6 $n 2)/64" dev "${IF[$n]}" nodad
  ip -n "${NS[$n]}" link set "${IF[$n]}" up
  ip -n "${NS[$n]}" route add default via "$(v4 $n 1)"
  ip -n "${NS[$n]}" -6 route add default via "$(v6 $n 1)"
done
pass "three namespaces, each behind one of pmdfwd's ports"

ping_ok() {  # ping_ok NS [-6] ADDRESS
  local ns=$1; shift
  ip netns exec "$ns" ping -c 3 -i 0.2 -W 2 "$@" >>"$WORK/ping.txt" 2>&1
}
check "the router answers a ping to its own address" ping_ok "${NS[0]}" "$(v4 0 1)"
check "ping a -> c crosses the router (ARP resolved from empty caches)" ping_ok "${NS[0]}" "$(v4 2 2)"
check "ping c -> b" ping_ok "${NS[2]}" "$(v4 1 2)"
check "the router answers an IPv6 ping to its own address (ND)" ping_ok "${NS[1]}" -6 "$(v6 1 1)"
check "IPv6 ping a -> c crosses the router" ping_ok "${NS[0]}" -6 "$(v6 2 2)"
check "a's neighbour cache holds the router's MAC (ARP)" \
  bash -c "ip -n ${NS[0]} neigh show $(v4 0 1) | grep -q lladdr"
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

# traceroute with UDP probes: TTL 1 ends at the router, which answers with
# time exceeded from its address on a's subnet; TTL 2 reaches c.
if ip netns exec "${NS[0]}" traceroute -n -q 1 -w 2 -m 4 "$(v4 2 2)" >"$WORK/traceroute.txt" 2>&1; then
  check "traceroute: the router is hop 1" grep -Eq "^ 1  $(v4 0 1) " "$WORK/traceroute.txt"
  check "traceroute: c is hop 2" grep -Eq "^ 2  $(v4 2 2) " "$WORK/traceroute.txt"
else
  fail "traceroute runs" "$(tr '\n' ' ' <"$WORK/traceroute.txt")"
fi

ip netns exec "${NS[2]}" iperf3 -s -1 -B "$(v4 2 2)" >"$WORK/iperf-s.txt" 2>&1 &
IPERF_PID=$!
for _ in $(seq 200); do
  ip netns exec "${NS[2]}" ss -Hltn 'sport = :5201' | grep -q . && break
  sleep 0.1
done
if ip netns exec "${NS[0]}" iperf3 -c "$(v4 2 2)" -t 2 -J >"$WORK/iperf.json" 2>&1; then
  bps=$(json_get "$(cat "$WORK/iperf.json")" 'int(d["end"]["sum_received"]["bits_per_second"])')
  check "iperf3 a -> c moved data through the router ($bps bit/s)" test "$bps" -gt 0
else
  fail "iperf3 a -> c" "$(tail -3 "$WORK/iperf.json" | tr '\n' ' ')"
fi
kill "$IPERF_PID" 2>/dev/null; wait "$IPERF_PID" 2>/dev/null

rc=0
stop_pmdfwd "$PMDFWD_PID" TERM || rc=$?
PMDFWD_PID=
check "stops with exit 0 (exit $rc)" test "$rc" = 0
check "every pool full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
summary
