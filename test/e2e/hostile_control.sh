#!/usr/bin/env bash
# The telemetry socket under abuse: hostile parameters for every command DPDK
# registers, malformed command names, more idle holders than DPDK allows
# clients, a 200-client storm, thousands of abrupt disconnects and a loop
# of the longest log tests. Through all
# of it pmdfwd must keep forwarding, pmdctl must keep answering (shutdown
# included), the process must hold no more descriptors than before, and the
# final pool audit must be exact.
# Usage: hostile_control.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
ABUSE=$E2E_ROOT/test/e2e/telemetry_abuse.py
PREFIX=e2e-hostile-$$
WORK=$(mktemp -d)
HOLDERS=()
trap 'kill ${HOLDERS[*]:-} 2>/dev/null; [[ -n ${PMDFWD_PID:-} ]] && kill -KILL $PMDFWD_PID 2>/dev/null; cleanup_dpdk_prefix $PREFIX; rm -rf $WORK' EXIT

sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" \
    -e 's/^\[pool\]/[control]\ntelemetry_idle_s = 3\ntelemetry_max_clients = 64\n\n[pool]/' \
    "$E2E_ROOT/config/null-patch.toml" >"$WORK/cfg.toml"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail start "pmdfwd did not come up"
  summary; exit 1
fi
pass start
SOCK=$(telemetry_socket "$PREFIX")
INNER=$(dirname "$SOCK")/pmdfwd_dpdk_telemetry

ctl() { timeout 20 "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
fd_count() { ls "/proc/$PMDFWD_PID/fd" | wc -l; }
rx_total() { json_get "$(ctl --json stats)" 'd["rx_pkts"]'; }
# wait_until SECONDS COMMAND...: polls until the command succeeds.
wait_until() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.2; done
}

ctl stats >/dev/null  # the gate's own connection to DPDK is open from here on
fds_before=$(fd_count)
check "DPDK's own socket is moved aside" test -S "$INNER"
listed=$(printf '/\n' | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | grep '"/"')
check "the public list hides unserved commands" bash -c "! grep -q eventdev <<<\"\$1\"" _ "$listed"
check "the public list keeps ethdev and pmdfwd" bash -c "grep -q '/ethdev/stats' <<<\"\$1\" && grep -q '/pmdfwd/stats' <<<\"\$1\"" _ "$listed"

# 1. Every built-in command (as DPDK lists them) with every hostile parameter.
out=$("$ABUSE" hostile "$SOCK" "$PMDFWD_PID" --commands-from "$INNER" 2>&1); rc=$?
echo "$out" | tail -5
check "hostile parameters: every reply valid JSON" test "$rc" -eq 0
check "hostile parameters: pmdfwd alive" kill -0 "$PMDFWD_PID"
heap=$(printf '/eal/heap_info,32\n' | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | grep heap_info)
check "/eal/heap_info,32 answers null" test "$(json_get "$heap" 'd["/eal/heap_info"] is None')" = True
heap0=$(printf '/eal/heap_info,0\n' | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | grep heap_info)
check "/eal/heap_info,0 still served" test "$(json_get "$heap0" '"Heap_size" in d["/eal/heap_info"]')" = True

# 2. Malformed command names: valid JSON back; parameters where none belong refused.
out=$("$ABUSE" names "$SOCK" 2>&1); rc=$?
echo "$out" | tail -3
check "malformed names: valid JSON, no parameter accepted" test "$rc" -eq 0

# 3. More idle holders than DPDK's ten client slots and than the gate's cap.
"$ABUSE" hold "$SOCK" 80 60 >"$WORK/hold.out" 2>&1 &
HOLDERS+=($!)
wait_until 20 grep -q "^held" "$WORK/hold.out"
check "80 idle holders connected" grep -q "^held 80" "$WORK/hold.out"
check "pmdctl answers past 80 idle holders" ctl stats
evicted=$(json_get "$(printf '/pmdfwd/info\n' | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | grep pmdfwd/info)" \
  'd["/pmdfwd/info"]["telemetry_evicted"]')
check "the longest-idle holders made room" test "$evicted" -gt 0
check "idle holders are dropped after telemetry_idle_s" wait_until 20 bash -c \
  "printf '/pmdfwd/info\n' | dpdk-telemetry.py -f $PREFIX 2>/dev/null | grep -q '\"telemetry_idle_closed\": [1-9]'"
kill "${HOLDERS[@]}" 2>/dev/null; wait "${HOLDERS[@]}" 2>/dev/null; HOLDERS=()

# 4. A 200-client storm; pmdctl must answer during it.
"$ABUSE" storm "$SOCK" 200 8 >"$WORK/storm.out" 2>&1 &
STORM=$!
sleep 1
answered=0
for _ in 1 2 3 4 5; do ctl stats >/dev/null 2>>"$WORK/storm-ctl.err" && answered=$((answered + 1)); sleep 0.5; done
wait "$STORM"
cat "$WORK/storm.out"
check "pmdctl answered 5 of 5 during a 200-client storm" test "$answered" -eq 5
check "the storm was served" grep -qE "ok storm 200 clients .* [1-9][0-9]* replies" "$WORK/storm.out"

# 5. Abrupt disconnects in every phase of a request.
out=$("$ABUSE" disconnect "$SOCK" 3000 2>&1); rc=$?
check "3000 abrupt disconnects" test "$rc" -eq 0

# 6. A loop of the longest log tests: their bytes are bounded (32 KB at
# once, then 4 KB a second), whatever the client asks.
start_ms=$(date +%s%3N)
for _ in $(seq 40); do printf '/pmdfwd/log_test,16384\n'; done |
  dpdk-telemetry.py -f "$PREFIX" >"$WORK/log_tests.out" 2>&1
elapsed_ms=$(($(date +%s%3N) - start_ms))
logged=$(grep -c "netlog test record of 16384 bytes" "$WORK/pmdfwd.log")
limited=$(grep -c "rate limited" "$WORK/log_tests.out")
check "log_test: $logged of 40 logged in $elapsed_ms ms, the rest refused ($limited)" \
  test $((logged + limited)) -eq 40
check "log_test: at most 32 KB + 4 KB/s of test records ($logged of 16 KB)" \
  test $((logged * 16384)) -le $((32768 + 4096 * (elapsed_ms / 1000 + 1)))
# A burst that could never fit the byte budget is refused as such.
out=$(printf '/pmdfwd/log_test,16384,3\n' | dpdk-telemetry.py -f "$PREFIX" 2>&1)
check "log_test: 3 x 16 KB at once is refused, more than the budget holds" \
  grep -q "more than the 32768 bytes of test records allowed at once" <<<"$out"

# Afterwards: forwarding moves, the descriptors are back, pmdctl answers.
rx1=$(rx_total); sleep 0.5; rx2=$(rx_total)
check "still forwarding" test "$rx2" -gt "$rx1"
check "descriptors back to $fds_before" wait_until 20 bash -c "test \$(ls /proc/$PMDFWD_PID/fd | wc -l) -le $fds_before"
check "pmdfwd alive" kill -0 "$PMDFWD_PID"
(($(fd_count) > fds_before)) && ls -l "/proc/$PMDFWD_PID/fd"

# Shutdown with ten idle holders on the socket: still possible, still audited.
"$ABUSE" hold "$SOCK" 10 60 >"$WORK/hold2.out" 2>&1 &
HOLDERS+=($!)
wait_until 20 grep -q "^held" "$WORK/hold2.out"
check "shutdown accepted past 10 idle holders" ctl shutdown
deadline=$((SECONDS + 30))
while kill -0 "$PMDFWD_PID" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
if kill -0 "$PMDFWD_PID" 2>/dev/null; then
  fail "shutdown exits 0" "pmdfwd still running 30 s after pmdctl shutdown"
else
  wait "$PMDFWD_PID"; rc=$?
  check "shutdown exits 0" test "$rc" -eq 0
fi
check "pools full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
check "DPDK's socket name cleaned up" test ! -e "$INNER"

summary
