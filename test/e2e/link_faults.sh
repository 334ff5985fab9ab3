#!/usr/bin/env bash
# Faults of ports that are kernel interfaces, each shown or counted by its
# true reason. Tap: two namespaces joined through pmdfwd's two net_tap ports
# in patch mode; frames longer than the egress port's mtu (drop_oversize,
# not tx_full), an interface deleted under pmdfwd (link "gone", logged once,
# drop_link_down), and tap interfaces moved into namespaces still show link
# "up" while they forward. af_packet: a port on a veth whose peer goes down
# and comes back (link down, up), then is deleted with its namespace (gone).
# Usage: link_faults.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
tap_rig lnkf lf "${1:-}"

# Buffers big enough for a 3 KB frame: net_tap receives whatever the kernel
# sends, whatever the port's mtu, so only the egress check stops it.
demo_config "$WORK/cfg.toml" "$PREFIX" "$IF_L" "$IF_R" -e "s/^enabled = true/enabled = false/" \
  -e "s/^data_room = .*/data_room = 4224/"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "tap: start" "pmdfwd did not come up"; summary; exit 1
fi
wait_for_link "$IF_L" 10 && wait_for_link "$IF_R" 10
ns_attach "$NS_L" "$IF_L" 10.232.0.1/24
ns_attach "$NS_R" "$IF_R" 10.232.0.2/24

ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
# port_link NAME: the link pmdctl shows for a port.
port_link() { json_get "$(ctl --json show ports)" "[p for p in d if p['name']=='$1'][0]['link']"; }
# left_worker FIELD: a counter of the worker that polls the left port.
left_worker() { json_get "$(ctl --json show workers)" "[w for w in d if w['rx_port']=='left'][0]['$1']"; }
# wait_until SECONDS COMMAND...: until the command succeeds.
wait_until() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.1; done
}
quiet() { "$@" >/dev/null 2>&1; }
link_is() { [[ $(port_link "$1") == "$2" ]]; }
counter_at_least() { (($(left_worker "$1") >= $2)); }

# Moved into namespaces and set up there: the PMD's own answer is "down".
check "tap: left link up with its interface in another namespace" wait_until 10 link_is left up
check "tap: right link up with its interface in another namespace" wait_until 10 link_is right up
check "tap: ping crosses pmdfwd" quiet ip netns exec "$NS_L" ping -c 3 -i 0.2 -W 2 10.232.0.2

# Frames longer than the right port's mtu 1500 allows (1518 with one VLAN
# tag): the left interface may send 3 KB frames.
ip -n "$NS_L" link set "$IF_L" mtu 4000
before=$(left_worker rx_pkts)
ip netns exec "$NS_L" ping -c 3 -i 0.2 -W 1 -s 3000 -M do -q 10.232.0.2 >/dev/null 2>&1
check "tap: the 3 KB frames reached pmdfwd" wait_until 10 counter_at_least rx_pkts $((before + 3))
check "tap: oversize frames counted as drop_oversize (3)" test "$(left_worker drop_oversize)" -eq 3
check "tap: and not as tx_full" test "$(left_worker drop_tx_full)" -eq 0
check "tap: a frame of exactly the mtu still crosses" \
  quiet ip netns exec "$NS_L" ping -c 1 -W 2 -s 1472 -M do 10.232.0.2

# The right interface deleted under pmdfwd: every send to it fails.
ip -n "$NS_R" link del "$IF_R"
check "tap: a deleted interface shows link gone" wait_until 10 link_is right gone
ip -n "$NS_L" neigh replace 10.232.0.2 lladdr 02:00:00:00:00:02 dev "$IF_L"
before=$(left_worker rx_pkts)
ip netns exec "$NS_L" ping -c 5 -i 0.2 -W 1 -q 10.232.0.2 >/dev/null 2>&1
check "tap: frames to it reached pmdfwd" wait_until 10 counter_at_least rx_pkts $((before + 5))
check "tap: frames to it counted as drop_link_down" test "$(left_worker drop_link_down)" -ge 5
check "tap: and still not as tx_full" test "$(left_worker drop_tx_full)" -eq 0
check "tap: the deletion is logged once" \
  test "$(grep -c "port 'right': interface '$IF_R' is gone" "$WORK/pmdfwd.log")" -eq 1
check "tap: the left port still forwards the other way" test "$(port_link left)" = up
# A namespace deleted with a tap interface in it takes the interface along,
# unless something still holds the namespace (pmdfwd's link reads must not).
ip netns del "$NS_L"
check "tap: an interface deleted with its namespace shows link gone" wait_until 10 link_is left gone

stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
PMDFWD_PID=
check "tap: SIGTERM exits 0" test "$rc" -eq 0
check "tap: pools full at shutdown" grep -q "all 2 pools full again at shutdown" "$WORK/pmdfwd.log"
cleanup_dpdk_prefix "$PREFIX"

# af_packet on a veth whose peer is in namespace NS_R: the PMD says "up"
# whatever the veth does; pmdfwd reads the interface's carrier.
ns_remove "$NS_R"
VETH=$IF_R VPEER=${IF_R}p
ip netns add "$NS_R"
ip link add "$VETH" type veth peer name "$VPEER" netns "$NS_R"
ip link set "$VETH" up
ip -n "$NS_R" link set "$VPEER" up
cat >"$WORK/afp.toml" <<TOML
[eal]
lcores = "0@0,1@1"
memory_mb = 256
file_prefix = "$PREFIX"

[[port]]
name = "wire"
devargs = "net_af_packet_$VETH,iface=$VETH"
rx_desc = 512
tx_desc = 512

[[port]]
name = "sink"
devargs = "net_null_$VETH"
rx_queues = 0

[forward]
pairs = [["wire", "sink"]]

[pool]
mbufs = 4096
TOML
if start_pmdfwd "$PMDFWD" "$WORK/afp.toml" "$PREFIX" "$WORK/afp.log"; then
  check "af_packet: link up with its peer up" wait_until 10 link_is wire up
  ip -n "$NS_R" link set "$VPEER" down
  check "af_packet: link down once the veth's peer is down" wait_until 10 link_is wire down
  ip -n "$NS_R" link set "$VPEER" up
  check "af_packet: link up again with the peer" wait_until 10 link_is wire up
  ip netns del "$NS_R"  # takes the pair with it
  check "af_packet: link gone with the pair deleted" wait_until 10 link_is wire gone
  check "af_packet: the deletion is logged once" \
    test "$(grep -c "port 'wire': interface '$VETH' is gone" "$WORK/afp.log")" -eq 1
  check "af_packet: link changes logged" grep -q "port 'wire': link down" "$WORK/afp.log"
  stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
  PMDFWD_PID=
  check "af_packet: SIGTERM exits 0" test "$rc" -eq 0
  check "af_packet: pools full at shutdown" grep -q "pools full again at shutdown" "$WORK/afp.log"
else
  fail "af_packet: start" "$(tail -3 "$WORK/afp.log")"
fi
ip link del "$VETH" 2>/dev/null
summary
