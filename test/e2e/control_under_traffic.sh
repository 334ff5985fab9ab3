#!/usr/bin/env bash
# The control socket and the metrics endpoint while net_tap ports carry
# traffic. net_tap raises a signal for every packet it queues, so a blocking
# call of the control path that took one and gave up (EINTR) failed requests
# that had run. Router mode between two namespaces, iperf3 and a ping flood
# through it; meanwhile, for at least 30 s, pmdctl reads stats and show
# workers, adds and deletes a route, and Prometheus's endpoint is scraped:
# every answer must be right. Then the log holds no interrupted call, a
# router-mode scrape lints clean with promtool, and the pools are full at
# the end.
# Usage: control_under_traffic.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
tap_rig cut ctu "${1:-}"
PORT=$(free_tcp_ports 1)
LOOP_S=${CONTROL_LOOP_S:-32}

{
  cat <<CFG
[eal]
lcores = "0@0,1@1,2@1"
memory_mb = 512
file_prefix = "$PREFIX"

[pool]
mbufs = 16384

[[port]]
name = "a"
devargs = "net_tap_$IF_L,iface=$IF_L"
addresses = ["10.71.0.1/24"]

[[port]]
name = "b"
devargs = "net_tap_$IF_R,iface=$IF_R"
addresses = ["10.71.1.1/24"]

[forward]
mode = "l3"

[control]
metrics = "127.0.0.1:$PORT"
CFG
} >"$WORK/cfg.toml"

if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
wait_for_link "$IF_L" 10 && wait_for_link "$IF_R" 10
ns_attach "$NS_L" "$IF_L" 10.71.0.2/24
ns_attach "$NS_R" "$IF_R" 10.71.1.2/24
ip -n "$NS_L" route add default via 10.71.0.1
ip -n "$NS_R" route add default via 10.71.1.1
ip netns exec "$NS_L" ping -c 2 -i 0.2 -W 2 10.71.1.2 >"$WORK/ping.log" 2>&1
check "a reaches b through the router" grep -q " 0% packet loss" "$WORK/ping.log"

ip netns exec "$NS_R" iperf3 -s -B 10.71.1.2 >"$WORK/iperf-s.log" 2>&1 &
IPERF_S=$!
for _ in $(seq 100); do
  ip netns exec "$NS_R" ss -Hltn 'sport = :5201' | grep -q . && break
  sleep 0.1
done
ip netns exec "$NS_L" iperf3 -c 10.71.1.2 -t $((LOOP_S + 8)) >"$WORK/iperf.log" 2>&1 &
IPERF_C=$!
ip netns exec "$NS_L" ping -f -w $((LOOP_S + 8)) 10.71.1.1 >"$WORK/flood.log" 2>&1 &
FLOOD=$!
sleep 1

ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
# bad KIND DETAIL: one wrong answer, kept for the report.
BAD=0
bad() { BAD=$((BAD + 1)); ((BAD <= 10)) && echo "$1: $2" >>"$WORK/bad.txt"; }
ROUNDS=0
start=$SECONDS
while ((SECONDS - start < LOOP_S)); do
  ROUNDS=$((ROUNDS + 1))
  out=$(ctl --json stats 2>&1) || bad stats "$out"
  json_get "$out" 'exit(0 if d["rx_pkts"] > 0 else 1)' 2>/dev/null || bad "stats value" "$out"
  out=$(ctl show workers 2>&1) || bad "show workers" "$out"
  grep -q "a/0" <<<"$out" || bad "show workers table" "$out"
  net="10.72.$((ROUNDS % 250)).0/24"
  out=$(ctl route add "$net" --via 10.71.1.2 2>&1) || bad "route add" "$out"
  grep -q "route $net added" <<<"$out" || bad "route add reply" "$out"
  out=$(ctl route del "$net" 2>&1) || bad "route del" "$out"
  grep -q "route $net deleted" <<<"$out" || bad "route del reply" "$out"
  # The last family of a scrape: a reply cut short lacks it.
  out=$(curl -sS -m 10 "http://127.0.0.1:$PORT/metrics" 2>&1) || bad scrape "$(head -c 200 <<<"$out")"
  grep -q "^pmdfwd_up 1" <<<"$out" && grep -q "^pmdfwd_info{" <<<"$out" || bad "scrape content" "$(tail -c 200 <<<"$out")"
done
echo "$ROUNDS rounds in $((SECONDS - start)) s, $BAD wrong answers" >"$WORK/rounds.txt"
check "for ${LOOP_S} s under traffic, every answer right ($(cat "$WORK/rounds.txt"))" test "$BAD" = 0
[[ -s $WORK/bad.txt ]] && cat "$WORK/bad.txt"
check "at least 5 rounds ran" test "$ROUNDS" -ge 5
kill "$IPERF_C" "$FLOOD" 2>/dev/null; wait "$IPERF_C" "$FLOOD" 2>/dev/null
kill "$IPERF_S" 2>/dev/null; wait "$IPERF_S" 2>/dev/null

# Router mode's metric names lint clean too (promtool reads _us_ as a unit).
curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/scrape.txt"
check "promtool check metrics: a router-mode scrape lints clean" \
  bash -c "promtool check metrics <'$WORK/scrape.txt' >'$WORK/promtool.log' 2>&1 && ! test -s '$WORK/promtool.log'"
check "the scrape has router mode's families" \
  grep -q '^pmdfwd_router_punts_packets_total{reason="local"} ' "$WORK/scrape.txt"

out=$(ctl --json stats)
check "traffic crossed the router meanwhile" json_get "$out" 'exit(0 if d["tx_pkts"] > 1000 else 1)'
check "no control call was interrupted (log)" bash -c "! grep -q 'Interrupted system call' '$WORK/pmdfwd.log'"
check "the telemetry gate saw no DPDK failure" \
  json_get "$(ctl --json show plan 2>/dev/null || echo '{}')" \
  'exit(0 if d["info"]["telemetry_dpdk_failures"] == 0 else 1)'

finish_pmdfwd
summary
