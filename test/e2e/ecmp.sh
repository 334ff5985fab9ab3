#!/usr/bin/env bash
# Equal-cost routes from the kernel (`[l3] kernel_routes`): a route with two
# next hops (RTA_MULTIPATH) spreads many UDP flows over both gateways, each
# flow on one, through pmdfwd's workers; a third next hop added takes flows
# for itself only; a next hop removed gives up its own flows and moves no
# other; a route through a kernel next-hop group (`ip nexthop`) is an
# equal-cost route too and follows the group when a member goes. The
# gateways are three MACs on b's side (its tap and two macvlans), and a
# packet socket there tells which gateway each flow reached.
# Usage: ecmp.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
kernel_rig ec "${1:-}"
TABLE=$((4000 + ID))
NHID=$((5000 + ID))
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  ip route flush table "$TABLE" 2>/dev/null
  for id in 2 1 0; do ip nexthop del id $((NHID + id)) 2>/dev/null; done
  ns_remove "${NS[@]}"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

v4() { echo "10.85.$1.$2"; }
v6() { echo "2001:db8:85:$1::$2"; }
G=("$(v4 1 2)" "$(v4 1 3)" "$(v4 1 4)")  # the gateways, all behind p1

kernel_rig_config "$PREFIX" "kernel_routes = { table = $TABLE }" >"$WORK/cfg.toml"
kernel_rig_start "$WORK/cfg.toml"
# Two more gateways on b's link, each with a MAC of its own; each
# interface answers ARP for its own address only.
ip netns exec "${NS[1]}" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
for k in 1 2; do
  ip -n "${NS[1]}" link add "mv$k" link "${IF[1]}" type macvlan mode bridge
  ip -n "${NS[1]}" addr add "${G[$k]}/24" dev "mv$k"
  ip -n "${NS[1]}" link set "mv$k" up
done
MACS=("$(ip -n "${NS[1]}" -j link show "${IF[1]}" | json_get "$(cat)" 'd[0]["address"]')")
for k in 1 2; do
  MACS+=("$(ip -n "${NS[1]}" -j link show "mv$k" | json_get "$(cat)" 'd[0]["address"]')")
done
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

# send_flows OUT: 200 UDP flows (source ports 41000-41199, 3 datagrams
# each) from a to 10.85.9.1; OUT gets, per flow, the gateway MACs b saw it
# reach (a packet socket on b's tap sees the macvlans' frames too).
send_flows() {
  ip netns exec "${NS[1]}" /usr/bin/python3 - "${IF[1]}" "$1" <<'PY' &
import json, socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
seen, quiet_since = {}, None
open(sys.argv[2] + ".ready", "w").close()
end = time.time() + 10
while time.time() < end:
    try:
        f = s.recv(2048)
    except socket.timeout:
        if seen and quiet_since and time.time() - quiet_since > 1:
            break
        continue
    quiet_since = time.time()
    # To 10.85.9.1, UDP, from a: the flow is the source port.
    if f[23] != 17 or f[30:34] != bytes([10, 85, 9, 1]):
        continue
    ihl = (f[14] & 15) * 4
    port = f[14 + ihl] << 8 | f[15 + ihl]
    seen.setdefault(port, set()).add(f[0:6].hex(":"))
json.dump({p: sorted(m) for p, m in seen.items()}, open(sys.argv[2], "w"))
PY
  local sniffer=$!
  for _ in $(seq 50); do [[ -f $1.ready ]] && break; sleep 0.1; done
  ip netns exec "${NS[0]}" /usr/bin/python3 - <<'PY'
import socket, time
socks = []
for i in range(200):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 41000 + i))
    socks.append(s)
for _ in range(3):
    for s in socks:
        s.sendto(b"x" * 32, ("10.85.9.1", 9))
    time.sleep(0.05)
PY
  wait "$sniffer"
}

# Flows per gateway, and flows seen at more than one.
spread() {  # spread FILE: "n0 n1 n2 split"
  /usr/bin/python3 - "$1" "${MACS[@]}" <<'PY'
import json, sys
seen = json.load(open(sys.argv[1]))
macs = sys.argv[2:]
counts = [sum(1 for m in seen.values() if m == [mac]) for mac in macs]
print(*counts, sum(1 for m in seen.values() if len(m) > 1), len(seen))
PY
}
# moved BEFORE AFTER ALLOWED...: flows whose gateway changed went only to
# a gateway of ALLOWED (MAC indexes); prints how many moved, fails else.
moved() {
  /usr/bin/python3 - "$@" "${MACS[@]}" <<'PY'
import json, sys
before, after = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
macs = sys.argv[-3:]
allowed = {macs[int(i)] for i in sys.argv[3:-3]}
moved = [p for p in before if p in after and before[p] != after[p]]
bad = [p for p in moved if after[p][0] not in allowed]
print(len(moved), "moved,", len(bad), "elsewhere")
sys.exit(1 if bad or not moved or len(after) < 200 else 0)
PY
}

ip route add 10.85.9.0/24 table "$TABLE" nexthop via "${G[0]}" dev "${KI[1]}" \
  nexthop via "${G[1]}" dev "${KI[1]}"
check "a route with two next hops is mirrored as one equal-cost route" \
  route_listed 10.85.9.0/24 kernel "${G[0]},${G[1]}"
tx_before=$(ctl --json stats | json_get "$(cat)" 'd["tx_pkts"]')
send_flows "$WORK/two.json"
read -r n0 n1 n2 split total < <(spread "$WORK/two.json")
check "all 200 flows arrived (got $total)" test "$total" = 200
check "both gateways took flows ($n0 and $n1 of 200)" \
  test "$n0" -ge 40 -a "$n1" -ge 40 -a $((n0 + n1)) = 200
check "no flow was split over two gateways ($split)" test "$split" = 0
tx_after=$(ctl --json stats | json_get "$(cat)" 'd["tx_pkts"]')
# The first round waited for the gateways' ARP (the control path sent it);
# the next two went through the workers.
check "the workers sent them ($((tx_after - tx_before)) of 600 packets)" \
  test $((tx_after - tx_before)) -ge 400
check "one equal-cost group in use" \
  test "$(ctl --json show router | json_get "$(cat)" 'd["ecmp_groups"]')" = 1

ip route replace 10.85.9.0/24 table "$TABLE" nexthop via "${G[0]}" dev "${KI[1]}" \
  nexthop via "${G[1]}" dev "${KI[1]}" nexthop via "${G[2]}" dev "${KI[1]}"
route_listed 10.85.9.0/24 kernel "${G[0]},${G[1]},${G[2]}"
send_flows "$WORK/three.json"
check "a third next hop takes flows for itself only ($(moved "$WORK/two.json" "$WORK/three.json" 2))" \
  moved "$WORK/two.json" "$WORK/three.json" 2

ip route replace 10.85.9.0/24 table "$TABLE" nexthop via "${G[0]}" dev "${KI[1]}" \
  nexthop via "${G[2]}" dev "${KI[1]}"
route_listed 10.85.9.0/24 kernel "${G[0]},${G[2]}"
send_flows "$WORK/removed.json"
read -r n0 n1 n2 split total < <(spread "$WORK/removed.json")
check "the removed next hop takes no flow ($n1)" test "$n1" = 0 -a "$total" = 200
check "only its flows moved ($(moved "$WORK/three.json" "$WORK/removed.json" 0 2))" \
  moved "$WORK/three.json" "$WORK/removed.json" 0 2

# Kernel next-hop objects: a group of two, then one member deleted.
ip nexthop add id "$NHID" via "${G[0]}" dev "${KI[1]}"
ip nexthop add id $((NHID + 1)) via "${G[1]}" dev "${KI[1]}"
ip nexthop add id $((NHID + 2)) group "$NHID/$((NHID + 1))"
ip route add 10.85.8.0/24 nhid $((NHID + 2)) table "$TABLE"
check "a route through a next-hop group is an equal-cost route" \
  route_listed 10.85.8.0/24 kernel "${G[0]},${G[1]}"
ip nexthop del id $((NHID + 1))
check "a member deleted, the route follows its group" route_listed 10.85.8.0/24 kernel "${G[0]}"

# And from pmdctl: --via twice.
check "pmdctl route add --via A --via B makes an equal-cost route" \
  ctl route add 10.85.7.0/24 --via "${G[2]}" --via "${G[0]}"
check "listed with both gateways" route_listed 10.85.7.0/24 runtime "${G[0]},${G[2]}"
ctl route add 10.85.6.0/24 --via "${G[0]}" --via 10.99.0.1 >"$WORK/refused.txt" 2>&1; rc=$?
check "a path that is no neighbour is refused (exit $rc: $(cat "$WORK/refused.txt"))" \
  test "$rc" = 1

finish_pmdfwd
summary
