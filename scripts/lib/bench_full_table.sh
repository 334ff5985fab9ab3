#!/usr/bin/env bash
# A full Internet table through the kernel (scripts/bench --comparisons
# full-table): pmdfwd mirrors kernel table T ([l3] kernel_routes) while its
# worker forwards 256 flows (net_pcap, replayed) to prefixes that never
# change, through routes of that same table, to a net_null sink.
#   load   `ip -batch` of scripts/full-table's 1,000,000 IPv4 and 200,000
#          IPv6 routes into T: the kernel's time, then how long after it
#          pmdfwd holds every route (the lag), and the flows' rate meanwhile;
#   churn  rounds of A (no change) then B (`ip -batch` replacing routes of
#          the table back and forth between two gateways, as fast as the
#          kernel takes them): pmdfwd's updates a second, the flows' rate in
#          B over A, every worker drop counted by reason, and the control
#          thread's CPU time per update (what pmdfwd could take if the
#          kernel gave more);
#   backlog pmdfwd stopped (SIGSTOP) while 100,000 changes queue in its
#          socket, then let go: how fast it applies them, the kernel's
#          pace out of the way;
#   reread pmdfwd stopped while 600,000 changes arrive, so its socket
#          overruns: the time to read the whole table again;
#   load   pmdctl route load of the same 1,200,000 routes (runtime routes
#          over the kernel's): changes a second.
# Prints each step and the medians. Two busy threads at most: pmdfwd's
# worker on CPU 1; its control thread, ip and pmdctl on CPU 0.
# Usage: bench_full_table.sh BUILD_DIR ROUNDS WINDOW_S [huge]
# (huge: 2 MB hugepages reserved for pmdfwd's EAL memory, and given back)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/test/e2e/lib.sh"
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
ROUNDS=${2:-5}
WINDOW=${3:-3}
HUGE=${4:-}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
ID=$(($$ % 10000))
PREFIX=bench-ft-$ID
KI=bft1x$ID
TABLE=$((200000 + ID))
WORK=$(mktemp -d)
PY=/usr/bin/python3
PMDFWD_PID=
HUGEPAGES_WERE=
cleanup() {
  [[ -z $PMDFWD_PID ]] || { kill -CONT "$PMDFWD_PID"; kill -KILL "$PMDFWD_PID"; } 2>/dev/null
  flush_table
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
  [[ -z $HUGEPAGES_WERE ]] || echo "$HUGEPAGES_WERE" >/proc/sys/vm/nr_hugepages
}
# `ip route flush` of a million routes overruns its own dump: again until
# nothing is left.
flush_table() {
  local _
  for _ in $(seq 20); do
    ip route flush table "$TABLE" 2>/dev/null
    ip -6 route flush table "$TABLE" 2>/dev/null
    [[ -z $(ip route show table "$TABLE" 2>/dev/null | head -1) &&
      -z $(ip -6 route show table "$TABLE" 2>/dev/null | head -1) ]] && return
  done
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { $PY -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }
ctl() { taskset -c 0 "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
# Fields of a record as "a b c": the router's or the workers' totals.
router_fields() { ctl --json show router | $PY -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(str(d[k]) for k in sys.argv[1:]))' "$@"; }
stats_fields() { ctl --json stats | $PY -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(str(d[k]) for k in sys.argv[1:]))' "$@"; }
# The control thread's CPU time, in clock ticks.
control_ticks() {
  local t
  for t in /proc/"$PMDFWD_PID"/task/*; do
    [[ $(cat "$t/comm" 2>/dev/null) == pmdfwd-l3 ]] && awk '{print $14 + $15}' "$t/stat" && return
  done
  echo 0
}
median() { $PY -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; m=statistics.median(v) if v else None; print("-" if m is None else f"{m:.3f}" if m < 1000 else round(m))' "$@"; }

# The flows and the table.
$PY "$ROOT/scripts/lib/bench_flows_pcap.py" --flows 256 --dst "198.18.{n}.1" \
  --dst-mac 02:70:63:61:70:00 "$WORK/flows.pcap" >/dev/null
"$ROOT/scripts/full-table" --format ip --via4 100.64.1.2 --via6 2001:db8:64:1::2 \
  --table "$TABLE" >"$WORK/full.batch"
"$ROOT/scripts/full-table" --format pmdctl --via4 100.64.1.3 --via6 2001:db8:64:1::3 \
  >"$WORK/full.pmdctl"
TOTAL=$(($(wc -l <"$WORK/full.batch") + 256))
# Churn: the first 100,000 IPv4 routes to the other gateway and back.
head -100000 "$WORK/full.batch" | sed 's/^route add/route replace/' >"$WORK/there.batch"
sed 's/via 100.64.1.2/via 100.64.1.3/' "$WORK/there.batch" >"$WORK/churn.batch"
cat "$WORK/there.batch" >>"$WORK/churn.batch"
for n in $(seq 0 255); do echo "route add 198.18.$n.0/24 via 100.64.1.2 table $TABLE"; done \
  >"$WORK/flows.batch"

if [[ $HUGE == huge ]]; then
  HUGEPAGES_WERE=$(cat /proc/sys/vm/nr_hugepages)
  echo $((HUGEPAGES_WERE + 1100)) >/proc/sys/vm/nr_hugepages
  grep -q hugetlbfs /proc/mounts || { mkdir -p /dev/hugepages; mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages; }
  echo "hugepages: $(awk '/HugePages_Free/ {print $2}' /proc/meminfo) of 2 MB free"
fi
cat >"$WORK/cfg.toml" <<CFG
[eal]
lcores = "0@0,1@1"
memory_mb = 2048
hugepages = $([[ $HUGE == huge ]] && echo true || echo false)
file_prefix = "$PREFIX"

[[port]]
name = "p0"
devargs = "net_pcap0,rx_pcap=$WORK/flows.pcap,infinite_rx=1"

[[port]]
name = "p1"
devargs = "net_null1"
rx_queues = 0
addresses = ["100.64.1.1/24", "2001:db8:64:1::1/64"]
kernel_interface = "$KI"

[forward]
mode = "l3"

[l3]
max_routes = 1100000
max_routes_v6 = 250000
# Room for the backlog's 100,000 changes, not for the overrun's 600,000.
kernel_routes = { table = $TABLE, receive_buffer_kb = 65536 }

[[neighbour]]
address = "100.64.1.2"
mac = "02:00:00:00:00:02"
port = "p1"

[[neighbour]]
address = "100.64.1.3"
mac = "02:00:00:00:00:03"
port = "p1"

[[neighbour]]
address = "2001:db8:64:1::2"
mac = "02:00:00:00:00:02"
port = "p1"

[[neighbour]]
address = "2001:db8:64:1::3"
mac = "02:00:00:00:00:03"
port = "p1"
CFG
flush_table
"$PMDFWD" --config "$WORK/cfg.toml" >"$WORK/pmdfwd.log" 2>&1 &
PMDFWD_PID=$!
for _ in $(seq 100); do ctl --json stats >/dev/null 2>&1 && break; sleep 0.2; done
ctl --json stats >/dev/null 2>&1 || { echo "pmdfwd did not come up"; tail "$WORK/pmdfwd.log"; exit 1; }
wait_routes() {  # wait_routes N: until pmdfwd holds N kernel routes (or 120 s)
  local _
  for _ in $(seq 1200); do
    local held; read -r held < <(router_fields kernel_routes_added kernel_routes_removed |
      awk '{print $1 - $2}')
    ((held >= $1)) && return 0
    sleep 0.1
  done
  return 1
}
taskset -c 0 ip -batch "$WORK/flows.batch"
wait_routes 256 || { echo "the flows' routes never reached pmdfwd"; exit 1; }
sleep 0.5
read -r no_route0 tx_full0 < <(stats_fields drop_no_route drop_tx_full)

# rate_window SECONDS: "Mpps drops", the flows' forwarding rate and the
# workers' drops over the window.
rate_window() {
  local tx0 d0 tx1 d1 t0 t1
  read -r tx0 d0 < <(stats_fields tx_pkts drops); t0=$(now)
  sleep "$1"
  read -r tx1 d1 < <(stats_fields tx_pkts drops); t1=$(now)
  $PY -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / (float(sys.argv[4]) - float(sys.argv[3])) / 1e6:.3f}', int(sys.argv[6]) - int(sys.argv[5]))" \
    "$tx0" "$tx1" "$t0" "$t1" "$d0" "$d1"
}

echo "full-table: $TOTAL routes into kernel table $TABLE; flows forwarded by pmdfwd's worker"
read -r base _ < <(rate_window "$WINDOW")
echo "  before the load: $base Mpps"
t0=$(now)
taskset -c 0 ip -batch "$WORK/full.batch" &
LOADER=$!
read -r during drops_during < <(rate_window "$WINDOW")
wait "$LOADER"; t1=$(now)
wait_routes "$TOTAL" && t2=$(now) || t2=
if [[ -n $t2 ]]; then lag="$(since "$t1" "$t2") s after the kernel"; else lag="NEVER"; fi
echo "  ip -batch: $(since "$t0" "$t1") s in the kernel; pmdfwd held all $TOTAL $lag"
echo "  during the load: $during Mpps ($drops_during drops)"
grep -q "refused" "$WORK/pmdfwd.log" && grep "refused" "$WORK/pmdfwd.log" | tail -2

# Churn, A B A B.
ratios=() rates=() cpu_us=()
hz=$(getconf CLK_TCK)
for r in $(seq "$ROUNDS"); do
  read -r a drops_a < <(rate_window "$WINDOW")
  read -r added0 < <(router_fields kernel_routes_added); c0=$(control_ticks); t0=$(now)
  (while :; do taskset -c 0 ip -batch "$WORK/churn.batch" || exit; done) &
  CHURN=$!
  read -r b drops_b < <(rate_window "$WINDOW")
  kill "$CHURN"; wait "$CHURN" 2>/dev/null
  read -r added1 < <(router_fields kernel_routes_added); c1=$(control_ticks); t1=$(now)
  updates=$((added1 - added0))
  ups=$($PY -c "import sys; print(round(int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))" "$updates" "$t0" "$t1")
  us=$($PY -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3]) * 1e6 / max(int(sys.argv[4]), 1):.2f}')" "$c0" "$c1" "$hz" "$updates")
  ratio=$($PY -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.3f}')" "$a" "$b")
  echo "  round $r: A $a Mpps ($drops_a drops), B $b Mpps ($drops_b drops) = $ratio;" \
    "$ups updates/s; control thread $us us CPU an update"
  ratios+=("$ratio") rates+=("$ups") cpu_us+=("$us")
done
# Let the last churn settle: every route back at its first gateway.
taskset -c 0 ip -batch "$WORK/there.batch"
sleep 1
echo "  churn medians: B/A $(median "${ratios[@]}"), $(median "${rates[@]}") updates/s," \
  "$(median "${cpu_us[@]}") us of control-thread CPU an update" \
  "(capacity about $($PY -c "import sys; print(round(1e6 / float(sys.argv[1])))" "$(median "${cpu_us[@]}")") updates/s)"
read -r no_route1 tx_full1 drops1 < <(stats_fields drop_no_route drop_tx_full drops)
echo "  drops since the flows' routes were in: no_route $((no_route1 - no_route0))," \
  "tx_full $((tx_full1 - tx_full0)); every reason, since start: $drops1"

# A backlog: 100,000 changes queued while pmdfwd is stopped, then applied;
# three times (to the second gateway, back, and again), the median.
head -100000 "$WORK/churn.batch" >"$WORK/backlog.batch"
backlog_rates=() backlog_cpu=()
for b in 1 2 3; do
  if ((b == 2)); then batch=$WORK/there.batch; else batch=$WORK/backlog.batch; fi
  read -r added0 overruns0 < <(router_fields kernel_routes_added kernel_routes_overruns)
  kill -STOP "$PMDFWD_PID"
  taskset -c 0 ip -batch "$batch"
  c0=$(control_ticks)
  kill -CONT "$PMDFWD_PID"
  t0=$(now)
  # Watched from the worker's CPU: the control thread's is what is measured.
  for _ in $(seq 3000); do
    read -r added < <(taskset -c 1 "$PMDCTL" --file-prefix "$PREFIX" --json show router |
      $PY -c 'import json,sys; print(json.load(sys.stdin)["kernel_routes_added"])')
    ((added - added0 >= 100000)) && break
    sleep 0.02
  done
  t1=$(now)
  c1=$(control_ticks)
  read -r overruns < <(router_fields kernel_routes_overruns)
  rate=$($PY -c "import sys; print(round(int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))" \
    "$((added - added0))" "$t0" "$t1")
  cpu=$($PY -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3]):.2f}')" \
    "$c0" "$c1" "$hz")
  echo "  backlog $b: $((added - added0)) changes applied in $(since "$t0" "$t1") s ($rate a" \
    "second; $((overruns - overruns0)) overrun(s)); the control thread's CPU $cpu s"
  backlog_rates+=("$rate") backlog_cpu+=("$cpu")
done
echo "  backlog median: $(median "${backlog_rates[@]}") changes a second," \
  "$(median "${backlog_cpu[@]}") s of control-thread CPU for 100,000"
taskset -c 0 ip -batch "$WORK/there.batch"
sleep 1

# An overrun: stopped while 600,000 changes arrive, then the whole table again.
read -r rereads0 < <(router_fields kernel_routes_rereads)
kill -STOP "$PMDFWD_PID"
for _ in 1 2 3; do taskset -c 0 ip -batch "$WORK/churn.batch"; done
kill -CONT "$PMDFWD_PID"
for _ in $(seq 600); do
  read -r rereads sync_ns overruns < <(router_fields kernel_routes_rereads kernel_routes_sync_ns \
    kernel_routes_overruns)
  ((rereads > rereads0)) && break
  sleep 0.1
done
echo "  overrun: $overruns overrun(s); the whole table read again in" \
  "$($PY -c "import sys; print(f'{int(sys.argv[1]) / 1e9:.2f}')" "$sync_ns") s"

# pmdctl route load: the same prefixes as runtime routes, over the kernel's.
ctl route load "$WORK/full.pmdctl" | sed 's/^/  pmdctl route load: /'
ctl --json show router >/dev/null || echo "  pmdfwd no longer answers"
kill -TERM "$PMDFWD_PID"; wait "$PMDFWD_PID"; rc=$?; PMDFWD_PID=
echo "  pmdfwd exit $rc; $(grep -o "all [0-9]* pools full again at shutdown" "$WORK/pmdfwd.log" ||
  echo "POOLS NOT FULL at shutdown")"
