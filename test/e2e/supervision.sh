#!/usr/bin/env bash
# Supervision end to end, with this script in systemd's place: pmdfwd built
# with the test hooks (test/pmdfwd_hooks) under NOTIFY_SOCKET and
# WATCHDOG_USEC sends READY=1 and STATUS=, pings WATCHDOG=1 while its worker
# moves, stops pinging while the worker is made to stall in its forward
# phase (PMDFWD_TEST_STALL), reports that stall (log, counters, pmdctl show
# workers, the metrics) with its phase, pings again after, and sends
# STOPPING=1 on SIGTERM; the pools are audited full. Then the exit when
# EAL's cleanup cannot finish (a dead dpdk-dumpcap holding EAL's shared
# memory lock, made with PMDFWD_TEST_HOLD_EAL_MEM_LOCK): pmdfwd still exits,
# with exit 0, and says why.
# Usage: supervision.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
HOOKS=$BUILD/test/pmdfwd_hooks
PMDCTL=$BUILD/app/pmdctl/pmdctl
PREFIX=e2e-sup-$$
PORT=$(free_tcp_ports 1)
WORK=$(mktemp -d)
RECV_PID=
cleanup() {
  local pid
  for pid in ${PMDFWD_PID:-} ${RECV_PID:-}; do kill -KILL "$pid" 2>/dev/null; done
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

# One worker on its own CPU, hairpinning one net_null port; a stall is one
# over 50 ms, so that a busy machine's scheduler alone rarely makes one.
cat >"$WORK/cfg.toml" <<CFG
[eal]
lcores = "0@0,1@1"
memory_mb = 256
hugepages = false
file_prefix = "$PREFIX"

[[port]]
name = "p0"
devargs = "net_null0"

[forward]
mode = "patch"
pairs = [["p0", "p0"]]

[control]
stall_us = 50000
metrics = "127.0.0.1:$PORT"
CFG

/usr/bin/python3 "$E2E_ROOT/test/e2e/notify_receiver.py" "$WORK/notify.sock" "$WORK/notify.log" &
RECV_PID=$!
wait_for_file "$WORK/notify.log" 10
# The stall: worker 0, in its forward phase, 3 s after it starts, for 4 s.
NOTIFY_SOCKET=$WORK/notify.sock WATCHDOG_USEC=1000000 PMDFWD_TEST_STALL=0:forward:3000:4000 \
  start_pmdfwd "$HOOKS" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"
started=$?
check "pmdfwd_hooks starts" test "$started" = 0
((started == 0)) || { summary; exit 1; }
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

deadline=$((SECONDS + 20))
until grep -q "READY=1" "$WORK/notify.log" || ((SECONDS >= deadline)); do sleep 0.1; done
check "READY=1 sent" grep -q "READY=1" "$WORK/notify.log"
check "STATUS= with a summary" grep -q "STATUS=forwarding: 1 workers, 1 ports" "$WORK/notify.log"
check "the log names the watchdog interval" grep -q "systemd watchdog: 1000 ms" "$WORK/pmdfwd.log"

# During the stall: hung in pmdctl and in the metrics.
seen_hung=0 seen_table=0 seen_metric=0
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)) && ((seen_hung == 0 || seen_table == 0 || seen_metric == 0)); do
  w=$(ctl --json show workers 2>/dev/null) &&
    [[ $(json_get "$w" 'd[0]["hung"] == 1 and d[0]["quiet_ns"] >= 1000000000') == True ]] && seen_hung=1
  ctl show workers 2>/dev/null | grep -q "worker 0: HUNG: its loop has made no progress for" && seen_table=1
  curl -sf "http://127.0.0.1:$PORT/metrics" 2>/dev/null |
    grep -q '^pmdfwd_worker_hung{worker="0",port="p0",queue="0"} 1$' && seen_metric=1
  # The stall is over. Only the forward phase's report counts: on a loaded
  # host the scheduler can stall the worker too (a 104 ms one in phase rx,
  # reported just before this stall began, once ended this wait early).
  grep -q "stall(s) of over.*seen in phase forward" "$WORK/pmdfwd.log" && break
  sleep 0.2
done
check "pmdctl --json show workers: hung 1, quiet for over a second" test "$seen_hung" = 1
check "pmdctl show workers marks the worker HUNG" test "$seen_table" = 1
check "metrics: pmdfwd_worker_hung 1" test "$seen_metric" = 1

# After it: the report with its phase and length, the counter.
deadline=$((SECONDS + 30))
until grep -q "stall(s) of over.*seen in phase forward" "$WORK/pmdfwd.log" ||
  ((SECONDS >= deadline)); do sleep 0.2; done
check "hung reported with its phase while it lasts" \
  grep -qE "worker 0 \(lcore 1, p0 rxq 0\): no progress for [0-9.]+s, in phase forward \(hung\)" "$WORK/pmdfwd.log"
check "the stall reported once over, with its length and phase" \
  grep -qE "worker 0 \(lcore 1, p0 rxq 0\): [0-9]+ stall\(s\) of over 50.0ms .*the last lasted [4-9][0-9.]*s, seen in phase forward" "$WORK/pmdfwd.log"
hung_lines=$(grep -c "(hung)" "$WORK/pmdfwd.log")
check "hung reported at most once a second (4 s stall: at most 5 lines)" test "$hung_lines" -le 5
s=$(ctl --json stats)
check "stats: the stall counted" test "$(json_get "$s" 'd["stalls"] >= 1 and d["stall_tsc"] > 0')" = True
w=$(ctl --json show workers)
check "moving again: hung 0" test "$(json_get "$w" 'd[0]["hung"]')" = 0

# The watchdog: pings before and after, none during the stall.
sleep 2
gap=$(/usr/bin/python3 - "$WORK/notify.log" <<'PY'
import sys
t = [float(l.split()[0]) for l in open(sys.argv[1]) if "WATCHDOG=1" in l]
gaps = [b - a for a, b in zip(t, t[1:])]
print("%d %.2f %.2f" % (len(t), max(gaps) if gaps else 0, sorted(gaps)[len(gaps) // 2] if gaps else 0))
PY
)
read -r pings longest median <<<"$gap"
echo "watchdog pings: $pings, longest gap ${longest}s, median gap ${median}s"
check "watchdog pinged" test "$pings" -ge 4
check "no ping while the worker stalled (a gap of 3 s or more)" \
  /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 3.0 else 1)" "$longest"
check "pings resumed after the stall" bash -c "tail -3 '$WORK/notify.log' | grep -q WATCHDOG=1"
check "the withheld pings are logged" grep -q "pings withheld while a worker's loop makes no progress" "$WORK/pmdfwd.log"

rc=0
stop_pmdfwd "$PMDFWD_PID" TERM || rc=$?
PMDFWD_PID=
sleep 0.5  # the receiver writes what it got
kill -TERM "$RECV_PID" 2>/dev/null; wait "$RECV_PID" 2>/dev/null; RECV_PID=
check "stops with exit 0" test "$rc" = 0
check "STOPPING=1 sent" grep -q "STOPPING=1|STATUS=stopping: SIGTERM" "$WORK/notify.log"
check "pools full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"

sed -i '/^metrics = /d' "$WORK/cfg.toml"
PMDFWD_TEST_HOLD_EAL_MEM_LOCK=1 start_pmdfwd "$HOOKS" "$WORK/cfg.toml" "$PREFIX" "$WORK/stuck.log"
started=$?
check "held EAL lock: pmdfwd_hooks starts" test "$started" = 0
if ((started == 0)); then
  rc=0
  stop_pmdfwd "$PMDFWD_PID" TERM || rc=$?
  PMDFWD_PID=
  check "held EAL lock: exits 0 all the same (exit $rc)" test "$rc" = 0
  check "held EAL lock: says why" grep -q "EAL cleanup has not finished after 10 s" "$WORK/stuck.log"
  check "held EAL lock: pools full, audited before" \
    grep -q "pools full again at shutdown" "$WORK/stuck.log"
  check "held EAL lock: its last line" grep -q "pmdfwd stopped (exit 0)" "$WORK/stuck.log"
fi
summary
