#!/usr/bin/env bash
# End to end through real kernel peers: two network namespaces joined only
# through pmdfwd's two net_tap ports. ping and an iperf3 TCP run cross it,
# pmdctl's counters agree with the kernel's, and SIGTERM leaves pools full.
# "owner" is patch mode with one TX queue per tap port, owned by the worker
# that polls it: each worker hands its bursts to the other (cross-core).
# Usage: tap_forward.sh [BUILD_DIR] [patch|l2|owner]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
MODE=${2:-patch}
tap_rig tap e2e "${1:-}"

demo_config "$WORK/cfg.toml" "$PREFIX" "$IF_L" "$IF_R" -e "s/^enabled = true/enabled = false/"
# The log channel's datagrams would land in the left namespace and upset the
# exact counter comparisons below; test/e2e/netlog.sh covers it.
if [[ $MODE == l2 ]]; then
  # l2 mode rewrites MACs: the next hop is each namespace's own interface.
  sed -i 's/^mode = "patch"/mode = "l2"/' "$WORK/cfg.toml"
fi
if [[ $MODE == owner ]]; then
  sed -i 's/^devargs = "net_tap_e2e[lr].*/&\ntx = "owner"/' "$WORK/cfg.toml"
fi
if [[ $MODE == l2 ]]; then
  # Start once to learn nothing: MACs of the kernel side are set up front.
  MAC_L=02:00:00:e2:00:01 MAC_R=02:00:00:e2:00:02
  sed -i "s/^pairs = .*/&\nnext_hop_mac = { left = \"$MAC_L\", right = \"$MAC_R\" }/" "$WORK/cfg.toml"
fi

if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "$MODE: start" "pmdfwd did not come up"; summary; exit 1
fi
wait_for_link "$IF_L" 10 && wait_for_link "$IF_R" 10
ns_attach "$NS_L" "$IF_L" 10.231.0.1/24
ns_attach "$NS_R" "$IF_R" 10.231.0.2/24
if [[ $MODE == l2 ]]; then
  ip -n "$NS_L" link set "$IF_L" address "$MAC_L"
  ip -n "$NS_R" link set "$IF_R" address "$MAC_R"
  # pmdfwd's port MACs are the source of everything it sends, so ARP answers
  # name them; static neighbours keep the test independent of that.
  ip -n "$NS_L" neigh replace 10.231.0.2 lladdr "$MAC_R" dev "$IF_L"
  ip -n "$NS_R" neigh replace 10.231.0.1 lladdr "$MAC_L" dev "$IF_R"
fi
pass "$MODE: namespaces joined through pmdfwd"

if ip netns exec "$NS_L" ping -c 5 -i 0.2 -W 2 10.231.0.2 >"$WORK/ping.txt" 2>&1; then
  pass "$MODE: ping crosses pmdfwd"
else
  fail "$MODE: ping crosses pmdfwd" "$(tail -2 "$WORK/ping.txt" | tr '\n' ' ')"
fi

ip netns exec "$NS_R" iperf3 -s -1 -B 10.231.0.2 >"$WORK/iperf-s.txt" 2>&1 &
# Until the server listens, however long a loaded host takes to start it.
for _ in $(seq 200); do
  ip netns exec "$NS_R" ss -Hltn 'sport = :5201' | grep -q . && break
  sleep 0.1
done
if ip netns exec "$NS_L" iperf3 -c 10.231.0.2 -t 3 -J >"$WORK/iperf.json" 2>&1; then
  bps=$(json_get "$(cat "$WORK/iperf.json")" 'int(d["end"]["sum_received"]["bits_per_second"])')
  check "$MODE: iperf3 TCP moved data ($bps bit/s)" test "$bps" -gt 0
else
  fail "$MODE: iperf3 TCP run" "$(tail -3 "$WORK/iperf.json" | tr '\n' ' ')"
fi
# read_counters: pmdfwd's and the kernel's counters, one pmdctl snapshot.
# False when pmdctl gave no JSON (a loaded host can make it time out).
read_counters() {
  local sel='[w for w in d if w["rx_port"]=="left"][0]' ser='[w for w in d if w["rx_port"]=="right"][0]'
  workers=$("$PMDCTL" --file-prefix "$PREFIX" --json show workers 2>>"$WORK/pmdctl.err") || return 1
  w_left_rx=$(json_get "$workers" "$sel[\"rx_pkts\"]") || return 1
  w_left_tx=$(json_get "$workers" "$sel[\"tx_pkts\"]") || return 1
  w_right_rx=$(json_get "$workers" "$ser[\"rx_pkts\"]") || return 1
  w_right_tx=$(json_get "$workers" "$ser[\"tx_pkts\"]") || return 1
  if [[ $MODE == owner ]]; then
    ho_left=$(json_get "$workers" "$sel[\"handoff_out\"]") || return 1
    ho_full=$(json_get "$workers" "$sel[\"drop_handoff_full\"]") || return 1
    ho_right_in=$(json_get "$workers" "$ser[\"handoff_in\"]") || return 1
    # Each worker transmits on the port it polls: the other worker's packets.
    local tmp=$w_left_tx; w_left_tx=$w_right_tx; w_right_tx=$tmp
  fi
  k_left_tx=$(ns_iface_counter "$NS_L" "$IF_L" tx_packets)
  k_left_rx=$(ns_iface_counter "$NS_L" "$IF_L" rx_packets)
  k_right_tx=$(ns_iface_counter "$NS_R" "$IF_R" tx_packets)
  k_right_rx=$(ns_iface_counter "$NS_R" "$IF_R" rx_packets)
}
# The last frames drain, and a late kernel frame (IPv6 ND) crosses, in
# whatever time the host gives: compare once the counts agree, or at the
# deadline with what was read last.
counters_agree() {
  read_counters && ((w_left_rx == k_left_tx && k_right_rx == w_left_tx &&
                     w_right_rx == k_right_tx && k_left_rx == w_right_tx))
}
deadline=$((SECONDS + 30))
until counters_agree || ((SECONDS >= deadline)); do sleep 0.2; done
check "$MODE: pmdctl --json show workers answered" test -n "${w_left_rx:-}"
if [[ $MODE == owner ]]; then
  # TCP bursts can outrun a tap port's TX (a syscall per frame): what the
  # handoff ring cannot take is dropped and counted, never waited for.
  check "$MODE: the left worker handed every packet to the right port's owner or counted it ($ho_left + $ho_full of $w_left_rx)" \
    test $((ho_left + ho_full)) -eq "$w_left_rx"
  check "$MODE: most packets were handed over" test "$ho_left" -gt $((w_left_rx / 2))
  # Read in one snapshot per worker: a frame the kernel sends meanwhile (IPv6
  # ND) may sit in the ring between the two reads.
  check "$MODE: the right worker took them ($ho_right_in of $ho_left)" \
    test $((ho_left - ho_right_in)) -ge 0 -a $((ho_left - ho_right_in)) -le 8
  check "$MODE: the plan shows the handoff" grep -q "hands off to worker 1, owner of 'right' txq 0" \
    "$WORK/pmdfwd.log"
fi
check "$MODE: left worker received what the left namespace sent ($w_left_rx vs $k_left_tx)" \
  test "$w_left_rx" -eq "$k_left_tx"
check "$MODE: right namespace received what the left worker sent ($k_right_rx vs $w_left_tx)" \
  test "$k_right_rx" -eq "$w_left_tx"
check "$MODE: right worker received what the right namespace sent ($w_right_rx vs $k_right_tx)" \
  test "$w_right_rx" -eq "$k_right_tx"
check "$MODE: left namespace received what the right worker sent ($k_left_rx vs $w_right_tx)" \
  test "$k_left_rx" -eq "$w_right_tx"
check "$MODE: thousands of frames crossed" test "$w_left_rx" -gt 1000

stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
check "$MODE: SIGTERM exits 0" test "$rc" -eq 0
check "$MODE: pools full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
summary
