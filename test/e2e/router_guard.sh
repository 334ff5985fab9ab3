#!/usr/bin/env bash
# Router mode under two floods, end to end: two network namespaces behind
# pmdfwd's tap ports (mode "l3"). One host floods ARP requests for the
# router's address from 4,300 made-up senders on its /16, then as many
# neighbour solicitations from its /64; a new host on the same port and
# one on the other port are still resolved and ping through (IPv4 and
# IPv6), the made-up senders are never probed, and the pressure is logged. Then a
# host sends UDP to 1,500 unused addresses of that /16 while a ping crosses
# the router: the ping gets through, the packets held for resolution never
# exceed l3.max_waiting_packets and no rx queue ever lacks an mbuf. Every
# check is accounting, none a rate or a time; pools full at shutdown.
# Usage: router_guard.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
tap_rig rg rg "${1:-}"
NS=("$NS_L" "$NS_R")
IF=("$IF_L" "$IF_R")
METRICS_PORT=$(free_tcp_ports 1)
A_NET=10.57 # port p0: 10.57.0.0/16, the router 10.57.0.1, the host 10.57.0.2
B_NET=10.58.1 # port p1: 10.58.1.0/24, the router .1, the host .2

cat >"$WORK/cfg.toml" <<CFG
[eal]
lcores = "0@0,1@1,2@0"
memory_mb = 512
file_prefix = "$PREFIX"

[poll]
mode = "adaptive"

[[port]]
name = "p0"
devargs = "net_tap_${IF[0]},iface=${IF[0]}"
addresses = ["$A_NET.0.1/16", "2001:db8:57::1/64"]

[[port]]
name = "p1"
devargs = "net_tap_${IF[1]},iface=${IF[1]}"
addresses = ["$B_NET.1/24", "2001:db8:58::1/64"]

[forward]
mode = "l3"

[control]
metrics = "127.0.0.1:$METRICS_PORT"

[l3]
# Short, so that the made-up senders' entries expire within the test.
reachable_s = 2
max_resolving = 64
max_waiting_packets = 512
CFG

check "--check accepts the config" "$PMDFWD" --check --config "$WORK/cfg.toml"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
addr4=("$A_NET.0.2/16" "$B_NET.2/24") addr6=("2001:db8:57::2/64" "2001:db8:58::2/64")
gw4=("$A_NET.0.1" "$B_NET.1") gw6=("2001:db8:57::1" "2001:db8:58::1")
for n in 0 1; do
  wait_for_link "${IF[$n]}" 10
  ns_attach_dual "${NS[$n]}" "${IF[$n]}" "${addr4[$n]}" "${addr6[$n]}" "${gw4[$n]}" "${gw6[$n]}"
done
pass "two namespaces, each behind one of pmdfwd's ports"
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
router() { json_get "$(ctl --json show router)" "$1"; }

# 4,300 ARP requests for the router's address, each from a new made-up
# sender of a's /16 (10.57.100.1 on), as one host spoofing them would send.
ip netns exec "${NS[0]}" /usr/bin/python3 - "${IF[0]}" "$A_NET.0.1" >"$WORK/arp-flood.log" 2>&1 <<'PY'
import sys
from scapy.all import ARP, Ether, sendp
iface, router = sys.argv[1], sys.argv[2]
frames = []
for i in range(4300):
    mac = "02:66:%02x:%02x:%02x:01" % (i >> 16 & 255, i >> 8 & 255, i & 255)
    ip = "10.57.%d.%d" % (100 + i // 250, 1 + i % 250)
    frames.append(Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") /
                  ARP(op=1, hwsrc=mac, psrc=ip, pdst=router))
sendp(frames, iface=iface, verbose=0)
print("sent", len(frames))
PY
check "the ARP flood was sent" grep -q "^sent 4300" "$WORK/arp-flood.log"
sleep 1
# On a busy host the kernel or the punt ring may drop part of the flood
# before the control path sees it: what it learned is what is asserted.
learned=$(router 'd["neighbour_learned_unsolicited"]')
# Stale entries also expire (reachable_s): a flood the host delivered
# slowly may never have filled the share at once.
kept=$(router 'd["neighbour_learned_unsolicited"] - d["neighbour_stale_expired"]')
check "the made-up senders were learned stale ($learned of 4300)" test "$learned" -gt 0
check "one port's senders hold at most its share (3072 of 4096)" \
  test "$(router 'int(d["neighbours"] <= 3072 + 8)')" = 1
if ((kept > 3072 + 8)); then
  check "past the share, the least recently heard made room" \
    test "$(router 'int(d["neighbour_evicted"] > 0)')" = 1
  check "the pressure is logged" grep -q "neighbour table under pressure" "$WORK/pmdfwd.log"
else
  echo "$learned senders learned, $kept not expired: the share was not reached at the end"
fi
check "every sender learned is held, expired or evicted" test "$(router \
  'int(0 <= d["neighbours"] - (d["neighbour_learned_unsolicited"] - d["neighbour_stale_expired"] - d["neighbour_evicted"]) <= 8)')" = 1

ping_ok() {  # ping_ok NS ARGS...: at least one reply
  local ns=$1; shift
  ip netns exec "$ns" ping -c 3 -i 0.2 -W 2 "$@" >>"$WORK/ping.txt" 2>&1
}
# A new host on the flooded port, and the first hosts of the other: the
# router has never resolved any of them.
ip -n "${NS[0]}" addr add "$A_NET.200.2/16" dev "${IF[0]}"
check "a new host on the flooded port pings b through the router" \
  ping_ok "${NS[0]}" -I "$A_NET.200.2" "$B_NET.2"
check "b pings a's first host" ping_ok "${NS[1]}" "$A_NET.0.2"
check "IPv6: b pings a through the router" ping_ok "${NS[1]}" -6 2001:db8:57::2

# The same with neighbour discovery: 4,300 solicitations for the router's
# IPv6 address from made-up senders of a's /64.
learned_before=$(router 'd["neighbour_learned_unsolicited"]')
ip netns exec "${NS[0]}" /usr/bin/python3 - "${IF[0]}" >"$WORK/nd-flood.log" 2>&1 <<'PY'
import sys
from scapy.all import Ether, IPv6, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, sendp
iface = sys.argv[1]
frames = []
for i in range(4300):
    mac = "02:67:%02x:%02x:%02x:01" % (i >> 16 & 255, i >> 8 & 255, i & 255)
    frames.append(Ether(src=mac, dst="33:33:ff:00:00:01") /
                  IPv6(src="2001:db8:57::1:%x" % (i + 1), dst="ff02::1:ff00:1", hlim=255) /
                  ICMPv6ND_NS(tgt="2001:db8:57::1") / ICMPv6NDOptSrcLLAddr(lladdr=mac))
sendp(frames, iface=iface, verbose=0)
print("sent", len(frames))
PY
check "the ND flood was sent" grep -q "^sent 4300" "$WORK/nd-flood.log"
sleep 1
check "the made-up IPv6 senders were learned stale too" \
  test "$(router "int(d['neighbour_learned_unsolicited'] - $learned_before > 0)")" = 1
ip -n "${NS[0]}" addr add 2001:db8:57::200:2/64 dev "${IF[0]}" nodad
check "IPv6: a new host on the flooded port pings b through the router" \
  ping_ok "${NS[0]}" -6 -I 2001:db8:57::200:2 2001:db8:58::2
requests_before=$(router 'd["neighbour_requests_sent"]')
sleep 3 # reachable_s 2: the made-up senders' entries expire now
check "the made-up senders' entries expired unprobed" \
  test "$(router 'int(d["neighbour_stale_expired"] > 1000)')" = 1
requests_after=$(router 'd["neighbour_requests_sent"]')
check "no made-up sender was asked for (requests $requests_before -> $requests_after)" \
  test $((requests_after - requests_before)) -lt 50

# UDP from b to 1,500 unused addresses of a's /16, 60,000 packets, while
# b pings a; every packet needs a neighbour that never answers.
nombuf_before=$(json_get "$(ctl --json show ports)" 'sum(p.get("rx_nombuf", 0) for p in d)')
ip netns exec "${NS[1]}" ping -c 20 -i 0.1 -W 2 "$A_NET.0.2" >"$WORK/ping-flood.txt" 2>&1 &
PING_PID=$!
ip netns exec "${NS[1]}" /usr/bin/python3 - "$A_NET" >"$WORK/udp-flood.log" 2>&1 <<'PY'
import socket, sys
net = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dsts = ["%s.%d.%d" % (net, 20 + i // 250, 1 + i % 250) for i in range(1500)]
sent = 0
for n in range(60000):
    try:
        s.sendto(b"x" * 18, (dsts[n % 1500], 9))
        sent += 1
    except OSError:
        pass
print("sent", sent)
PY
wait "$PING_PID"
check "the UDP flood was sent" grep -q "^sent [1-9]" "$WORK/udp-flood.log"
received=$(grep -Eo "[0-9]+ received" "$WORK/ping-flood.txt" | cut -d' ' -f1)
check "b's ping to a got through during the flood (${received:-0} of 20)" test "${received:-0}" -gt 0
# Bounds, not rates: how much of the flood reached the control path
# depends on the host's load.
echo "flood at the control path: $(router '"resolving_full_drops %d, waiting_full_drops %d, waiting_peak %d" % (d["neighbour_resolving_full_drops"], d["neighbour_waiting_full_drops"], d["waiting_peak"])')"
check "resolving stays within l3.max_resolving (64)" \
  test "$(router 'int(d["neighbours_resolving"] <= 64)')" = 1
check "packets held for neighbours never exceeded l3.max_waiting_packets (512)" \
  test "$(router 'int(d["waiting_peak"] <= 512)')" = 1
nombuf_after=$(json_get "$(ctl --json show ports)" 'sum(p.get("rx_nombuf", 0) for p in d)')
check "no rx queue lacked an mbuf (rx_nombuf $nombuf_before -> $nombuf_after)" \
  test "$nombuf_after" = "$nombuf_before"
check "a -> b still routed afterwards" ping_ok "${NS[0]}" "$B_NET.2"
curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" >"$WORK/scrape.txt"
check "the router's new metrics are scraped" \
  grep -q "^pmdfwd_router_neighbour_evicted_total " "$WORK/scrape.txt"
# The families the neighbour table's bounds added, linted on their own (its
# drops are one family, labelled by reason).
grep -E "^(# (HELP|TYPE) )?pmdfwd_router_(neighbours_resolving|waiting_packets|waiting_peak_packets|neighbour_(drops|not_learned|evicted|stale_expired|learned_unsolicited)_)" \
  "$WORK/scrape.txt" >"$WORK/scrape-new.txt"
check "the new families are in the scrape ($(grep -c '^# TYPE' "$WORK/scrape-new.txt") of 8)" \
  test "$(grep -c '^# TYPE' "$WORK/scrape-new.txt")" -eq 8
check "the neighbour drops are labelled by reason" \
  grep -q '^pmdfwd_router_neighbour_drops_packets_total{reason="resolving_full"} ' "$WORK/scrape.txt"
check "promtool check metrics: no problem with them" bash -c \
  "promtool check metrics <'$WORK/scrape-new.txt' >'$WORK/promtool.log' 2>&1 && ! test -s '$WORK/promtool.log'"

finish_pmdfwd
summary
