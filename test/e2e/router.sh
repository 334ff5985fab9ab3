#!/usr/bin/env bash
# Router mode end to end: three network namespaces on three subnets, joined
# only through pmdfwd's three tap ports (mode "l3"), each with the router as
# its default gateway. From empty neighbour caches on both sides: ARP and ND
# resolve, ping (IPv4 and IPv6) crosses, the router answers pings to its own
# addresses, traceroute shows it as the hop before the destination, iperf3
# moves data. A static route from the config reaches a network behind b; a
# route added with pmdctl reaches one behind c, deleting it stops the
# traffic (ICMP net unreachable comes back) and adding it again restores it.
# pmdctl shows routes, neighbours and counters; SIGTERM leaves every pool
# full.
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
    l3_tap_port "p$n" "${IF[$n]}" "$(v4 $n 1)/24" "$(v6 $n 1)/64"
  done
  cat <<CFG

[forward]
mode = "l3"

# Behind b: 10.54.0.0/24 (b holds 10.54.0.1 on its loopback).
[[route]]
prefix = "10.54.0.0/24"
via = "$(v4 1 2)"
CFG
} >"$WORK/cfg.toml"

check "--check accepts the config" "$PMDFWD" --check --config "$WORK/cfg.toml"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
for n in 0 1 2; do
  wait_for_link "${IF[$n]}" 10
  ns_attach_dual "${NS[$n]}" "${IF[$n]}" "$(v4 $n 2)/24" "$(v6 $n 2)/64" "$(v4 $n 1)" "$(v6 $n 1)"
done
ip -n "${NS[1]}" addr add 10.54.0.1/32 dev lo
ip -n "${NS[2]}" addr add 10.53.0.1/32 dev lo
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
check "a static route from the config: a -> 10.54.0.1 behind b" ping_ok "${NS[0]}" 10.54.0.1

# A route added, deleted and added again while the router runs.
check "nothing reaches 10.53.0.1 before its route exists" \
  bash -c "! ip netns exec ${NS[0]} ping -c 1 -W 1 10.53.0.1 >/dev/null 2>&1"
ctl route add 10.53.0.0/24 --via "$(v4 2 2)" >"$WORK/route-add.txt" 2>&1
check "pmdctl route add says so" grep -q "route 10.53.0.0/24 added" "$WORK/route-add.txt"
check "the added route carries traffic: a -> 10.53.0.1" ping_ok "${NS[0]}" 10.53.0.1
ctl show routes >"$WORK/routes.log" 2>&1
check "show routes lists it as runtime, forwarding via c" \
  grep -Eq "^10\.53\.0\.0/24 +runtime +p2 +$(v4 2 2) +forward" "$WORK/routes.log"
check "show routes lists the static one" grep -Eq "^10\.54\.0\.0/24 +static +p1 " "$WORK/routes.log"
check "show routes lists a connected subnet" grep -Eq "^10\.52\.0\.0/24 +connected +p0 " "$WORK/routes.log"
ctl route del 10.53.0.0/24 >"$WORK/route-del.txt" 2>&1
check "pmdctl route del says so" grep -q "route 10.53.0.0/24 deleted" "$WORK/route-del.txt"
ip netns exec "${NS[0]}" ping -c 2 -i 0.3 -W 1 10.53.0.1 >"$WORK/ping-deleted.txt" 2>&1
check "after route del, nothing reaches 10.53.0.1" grep -q " 0 received" "$WORK/ping-deleted.txt"
check "after route del, the router answers net unreachable" \
  grep -q "Destination Net Unreachable" "$WORK/ping-deleted.txt"
ctl route add 10.53.0.0/24 --via "$(v4 2 2)" >/dev/null 2>&1
check "added again, the route carries traffic again" ping_ok "${NS[0]}" 10.53.0.1
check "route add refuses a next hop on no subnet" \
  bash -c "! $PMDCTL --file-prefix $PREFIX route add 10.60.0.0/16 --via 10.99.0.1 2>&1 | grep -q 'on no connected subnet' && false || true"
ctl route add 10.60.0.0/16 --via 10.99.0.1 >"$WORK/route-bad.txt" 2>&1; rc=$?
check "route add with a bad next hop fails (exit $rc) with the reason" \
  bash -c "test $rc -ne 0 && grep -q 'on no connected subnet' $WORK/route-bad.txt"
ctl route del 10.52.0.0/24 >"$WORK/route-del-conn.txt" 2>&1; rc=$?
check "route del refuses a connected subnet (exit $rc)" \
  bash -c "test $rc -ne 0 && grep -q 'connected subnet' $WORK/route-del-conn.txt"
# More routes than one telemetry reply holds (60 lines): show routes asks
# page by page and lists them all.
for i in $(seq 0 79); do ctl route add "10.60.$i.0/24" --via "$(v4 1 2)" >/dev/null 2>&1; done
ctl show routes >"$WORK/routes-many.log" 2>&1
check "show routes lists all 80 added routes across pages" \
  test "$(grep -Ec '^10\.60\.[0-9]+\.0/24 +runtime +p1 ' "$WORK/routes-many.log")" -eq 80
check "show routes lists the first and last prefixes of the table" \
  bash -c "grep -q '^10\.52\.0\.0/24 ' $WORK/routes-many.log && grep -q '^2001:db8:52:2::2/128 ' $WORK/routes-many.log"
for i in $(seq 0 79); do ctl route del "10.60.$i.0/24" >/dev/null 2>&1; done
ctl show routes >"$WORK/routes-after.log" 2>&1
check "the 80 are gone again" bash -c "! grep -q '^10\.60\.' $WORK/routes-after.log"

ctl show neighbours >"$WORK/neighbours.log" 2>&1
check "show neighbours: c resolved by ARP" grep -Eq "^p2 +$(v4 2 2) +reachable +[0-9a-f:]{17}" "$WORK/neighbours.log"
check "show neighbours: c resolved by ND" grep -Eq "^p2 +$(v6 2 2) +reachable +[0-9a-f:]{17}" "$WORK/neighbours.log"
ctl --json show routes >"$WORK/routes.json" 2>&1
check "show routes --json gives records with fields" \
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert any(x['prefix']=='10.54.0.0/24' and x['origin']=='static' and x['port']=='p1' for x in r), r" "$WORK/routes.json"
ctl --json show neighbours >"$WORK/neighbours.json" 2>&1
check "show neighbours --json gives records with fields" \
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert any(x['port']=='p2' and x['state']=='reachable' and isinstance(x['age_ms'], int) for x in r), r" "$WORK/neighbours.json"
ctl --json show router >"$WORK/router.json" 2>&1
check "the control path answered ARP requests and pings" \
  json_get "$(cat "$WORK/router.json")" \
  'exit(0 if d["arp_requests_answered"] > 0 and d["echo_replies"] > 0 and d["icmp_errors_sent"] > 0 else 1)'

# traceroute with UDP probes: TTL 1 ends at the router, which answers with
# time exceeded from its address on a's subnet; TTL 2 reaches c.
if ip netns exec "${NS[0]}" traceroute -n -q 1 -w 2 -m 4 "$(v4 2 2)" >"$WORK/traceroute.txt" 2>&1; then
  check "traceroute: the router is hop 1" grep -Eq "^ 1  $(v4 0 1) " "$WORK/traceroute.txt"
  check "traceroute: c is hop 2" grep -Eq "^ 2  $(v4 2 2) " "$WORK/traceroute.txt"
else
  fail "traceroute runs" "$(tr '\n' ' ' <"$WORK/traceroute.txt")"
fi

if ip netns exec "${NS[0]}" traceroute -6 -n -q 1 -w 2 -m 4 "$(v6 2 2)" >"$WORK/traceroute6.txt" 2>&1; then
  # traceroute prints addresses compressed: 2001:db8:52::1 for a's router.
  check "IPv6 traceroute: the router is hop 1" grep -Eq "^ 1  2001:db8:52::1 " "$WORK/traceroute6.txt"
  check "IPv6 traceroute: c is hop 2" grep -Eq "^ 2  $(v6 2 2) " "$WORK/traceroute6.txt"
else
  fail "IPv6 traceroute runs" "$(tr '\n' ' ' <"$WORK/traceroute6.txt")"
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

# A corpus of malformed frames into port p0: each counted by its reason,
# pmdfwd still routes afterwards, and the pools are full at the end.
before=$(ctl --json stats)
mac0=$(ip netns exec "${NS[0]}" ip neigh show "$(v4 0 1)" | awk '{print $5}')
ip netns exec "${NS[0]}" /usr/bin/python3 "$E2E_ROOT/test/e2e/malformed_frames.py" "${IF[0]}" \
  "$mac0" "$(v4 0 1)" "$(v4 2 2)" "$(v6 0 1)" >"$WORK/corpus.log" 2>&1
check "the malformed-frame corpus was sent" grep -q "^random 300" "$WORK/corpus.log"
sleep 1
after=$(ctl --json stats)
grew() {  # grew FIELD: the stats counter grew across the corpus
  local b a
  b=$(json_get "$before" "d.get('$1', 0)") a=$(json_get "$after" "d.get('$1', 0)")
  ((a > b))
}
check "corpus: bad headers counted (drop_bad_header)" grew drop_bad_header
check "corpus: other ethertypes counted (drop_not_ip)" grew drop_not_ip
check "corpus: TTL and hop limit 0 and 1 counted (drop_ttl_expired)" grew drop_ttl_expired
check "corpus: another host's MAC counted (drop_not_our_mac)" grew drop_not_our_mac
check "corpus: martian sources counted (drop_bad_source)" grew drop_bad_source
check "corpus: directed broadcast and multicast counted (drop_bad_destination)" \
  grew drop_bad_destination
check "corpus: a malformed option counted (drop_bad_option)" grew drop_bad_option
check "corpus: still alive" kill -0 "$PMDFWD_PID"
check "corpus: a -> c still routed afterwards" ping_ok "${NS[0]}" "$(v4 2 2)"
check "corpus: IPv6 a -> c still routed afterwards" ping_ok "${NS[0]}" -6 "$(v6 2 2)"

finish_pmdfwd
summary
