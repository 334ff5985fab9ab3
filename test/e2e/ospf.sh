#!/usr/bin/env bash
# OSPF through pmdfwd: FRR's zebra and ospfd on the box, on port p1's kernel
# interface, form an adjacency with BIRD's OSPF in the namespace behind p1:
# the hellos go to 224.0.0.5 and the database exchange to the router's own
# address, both through the exception path. The route BIRD's router LSA
# carries (a stub /32 on its loopback) reaches the kernel's main table by
# zebra, and pmdfwd's tables by `[l3] kernel_routes = { table = 254 }`;
# traffic from the namespace behind p0 to it is forwarded by pmdfwd's
# workers. When BIRD stops, the route goes from pmdfwd too.
# Usage: ospf.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
kernel_rig os "${1:-}"
PATHSPACE=$PREFIX  # FRR's files under /var/run/frr/$PATHSPACE
FRR=/usr/lib/frr
PEER_PID=
cleanup() {
  [[ -z $PEER_PID ]] || kill -KILL "$PEER_PID" 2>/dev/null
  # The daemons fork away from this script: found by their path space.
  # zebra takes the routes and next-hop objects it made with it.
  pkill -TERM -f -- "-N $PATHSPACE " 2>/dev/null
  for _ in $(seq 50); do pgrep -f -- "-N $PATHSPACE " >/dev/null || break; sleep 0.1; done
  pkill -KILL -f -- "-N $PATHSPACE " 2>/dev/null
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  rm -rf "/var/run/frr/$PATHSPACE"
  ns_remove "${NS[@]}"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

v4() { echo "10.88.$1.$2"; }
v6() { echo "2001:db8:88:$1::$2"; }
STUB=10.88.9.1

# zebra manages the kernel's routes: a second one would fight this one.
if pgrep -x zebra >/dev/null; then
  fail "no zebra of its own" "a zebra already runs on this machine (systemctl stop frr)"
  summary; exit 1
fi
kernel_rig_config "$PREFIX" "kernel_routes = { table = 254 }" >"$WORK/cfg.toml"
kernel_rig_start "$WORK/cfg.toml"
ip -n "${NS[1]}" addr add "$STUB/32" dev lo
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

# The peer: BIRD's OSPFv2 on b's tap, its loopback a stub; timers short.
cat >"$WORK/peer.conf" <<BIRD
router id $(v4 1 2);
protocol device { scan time 1; }
protocol ospf v2 peer {
  ipv4 { import none; export none; };
  area 0 {
    interface "${IF[1]}" { type broadcast; hello 1; dead 4; wait 2; retransmit 2; };
    interface "lo" { stub yes; };
  };
}
BIRD
ip netns exec "${NS[1]}" bird -f -c "$WORK/peer.conf" -s "$WORK/peer.ctl" >"$WORK/peer.log" 2>&1 &
PEER_PID=$!

# The box: zebra and ospfd, in a path space of their own, run as FRR's
# user (root is not in its vty group), so their files are its.
FRRDIR=/var/run/frr/$PATHSPACE
mkdir -p "$FRRDIR"
echo "hostname e2e-zebra" >"$FRRDIR/zebra.conf"
cat >"$FRRDIR/ospfd.conf" <<FRR
hostname e2e-ospfd
interface ${KI[1]}
 ip ospf hello-interval 1
 ip ospf dead-interval 4
 ip ospf retransmit-interval 1
!
router ospf
 ospf router-id $(v4 1 1)
 network $(v4 1 0)/24 area 0
!
FRR
chown -R frr:frr "$FRRDIR"
"$FRR/zebra" -N "$PATHSPACE" -d -f "$FRRDIR/zebra.conf" >"$WORK/zebra.log" 2>&1
sleep 0.5
"$FRR/ospfd" -N "$PATHSPACE" -d -f "$FRRDIR/ospfd.conf" >"$WORK/ospfd.log" 2>&1
vty() { vtysh -N "$PATHSPACE" -c "$1" 2>/dev/null; }

full() {  # the adjacency in state Full within 40 s
  for _ in $(seq 400); do
    vty "show ip ospf neighbor" | grep -q "Full" && return 0
    sleep 0.1
  done
  return 1
}
check "ospfd's adjacency with BIRD through pmdfwd is Full" full
learnt() {  # the stub route in the kernel's main table, by ospf, within 20 s
  for _ in $(seq 200); do
    ip route show "$STUB/32" | grep -q "via $(v4 1 2) dev ${KI[1]} proto ospf" && return 0
    sleep 0.1
  done
  return 1
}
check "zebra installed $STUB/32 via the peer on ${KI[1]} (proto ospf)" learnt
check "pmdfwd mirrors it from the main table" route_listed "$STUB/32" kernel
ping_stub() { ip netns exec "${NS[0]}" ping -c 3 -i 0.2 -W 2 "$STUB" >>"$WORK/ping.txt" 2>&1; }
check "a -> $STUB is forwarded by pmdfwd's workers" \
  routed_by_workers "$PMDCTL" "$PREFIX" ping_stub
check "the hellos came through the exception path (kernel_delivered, kernel_sent)" \
  test "$(ctl --json show router | json_get "$(cat)" 'd["kernel_delivered"] > 8 and d["kernel_sent"] > 8')" = True

# The peer goes: the adjacency dies, and the route leaves pmdfwd.
kill -TERM "$PEER_PID"; wait "$PEER_PID" 2>/dev/null; PEER_PID=
check "the peer stopped: $STUB/32 leaves pmdfwd (dead interval 4 s)" route_gone "$STUB/32" 150

finish_pmdfwd
summary
