#!/usr/bin/env bash
# Control plane end to end: pmdfwd on net_null ports, queried with pmdctl
# (tables and --json) and the stock dpdk-telemetry.py; counters move and
# parse, bad requests get errors, shutdown over telemetry audits the pools.
# Usage: control.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
PREFIX=e2e-ctl-$$
WORK=$(mktemp -d)
trap '[[ -n ${PMDFWD_PID:-} ]] && kill -KILL $PMDFWD_PID 2>/dev/null; cleanup_dpdk_prefix $PREFIX; rm -rf $WORK' EXIT

sed "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" "$E2E_ROOT/config/null-patch.toml" >"$WORK/cfg.toml"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail start "pmdfwd did not come up"
  summary; exit 1
fi
pass start

ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

# pmdctl --json: workers move, however long a loaded host takes to show it.
w1=$(ctl --json show workers) || fail "show workers --json" "exit $?"
rx1=$(json_get "$w1" 'sum(w["rx_pkts"] for w in d)')
w2='[]' rx2=0
deadline=$((SECONDS + 30))
while :; do
  sleep 0.2
  w2=$(ctl --json show workers) && rx2=$(json_get "$w2" 'sum(w["rx_pkts"] for w in d)') &&
    ((rx2 > rx1)) && break
  ((SECONDS < deadline)) || break
done
check "worker rx counters move" test "$rx2" -gt "$rx1"
check "two workers reported" test "$(json_get "$w2" 'len(d)')" = 2
check "rx + handoff_in == tx + drops + handoff_out per worker" test "$(json_get "$w2" \
  'all(w["rx_pkts"] + w["handoff_in"] == w["tx_pkts"] + w["drops"] + w["handoff_out"] for w in d)')" = True

# Tables for people.
ports_table=$(ctl show ports)
check "show ports names both ports" bash -c "grep -q p0 <<<\"\$1\" && grep -q p1 <<<\"\$1\"" _ "$ports_table"
check "show workers table" bash -c "ctl() { \"$PMDCTL\" --file-prefix $PREFIX \"\$@\"; }; ctl show workers | grep -q p0"
check "show pools" bash -c "\"$PMDCTL\" --file-prefix $PREFIX show pools | grep -q pmdfwd_w0"
check "show plan" bash -c "\"$PMDCTL\" --file-prefix $PREFIX show plan | grep -q 'worker 1 on lcore 2'"
check "show xstats" bash -c "\"$PMDCTL\" --file-prefix $PREFIX show xstats | grep -q rx_good_packets"
check "stats" bash -c "\"$PMDCTL\" --file-prefix $PREFIX stats >/dev/null"

# Stock DPDK client against the same socket.
tel=$(printf '/pmdfwd/stats\n/ethdev/stats,0\n' | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null)
stats_line=$(grep '"/pmdfwd/stats"' <<<"$tel")
check "dpdk-telemetry.py reads /pmdfwd/stats" test -n "$stats_line"
check "dpdk-telemetry.py stats parse" test "$(json_get "$stats_line" 'd["/pmdfwd/stats"]["rx_pkts"] > 0')" = True
check "dpdk-telemetry.py reads /ethdev/stats" bash -c "grep -q ipackets <<<\"\$1\"" _ "$tel"
bad=$(printf '/pmdfwd/worker,99\n' | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | grep worker)
check "out-of-range worker gives null" test "$(json_get "$bad" 'd["/pmdfwd/worker"] is None')" = True

# Clearing stats.
ctl clear stats >/dev/null
after=$(ctl --json stats)
check "clear stats restarts counters" test "$(json_get "$after" 'd["rx_pkts"]')" -lt "$rx2"

# Bad requests: one line, exit 1.
out=$(ctl show bogus 2>&1); rc=$?
check "unknown command exits non-zero" test "$rc" -ne 0
out=$("$PMDCTL" --file-prefix "no-such-$$" stats 2>&1); rc=$?
check "not running exits 1" test "$rc" -eq 1
check "not running is one line" test "$(wc -l <<<"$out")" -eq 1
# A user other than root looks in a runtime directory of its own (DPDK's
# rule), but the socket is in root's: told "Permission denied", not "not
# running". pmdctl runs from a copy that user may execute, so that an exec
# refused by a root-only checkout cannot pass for the answer.
install -d -m 0755 "$WORK/bin" && install -m 0755 "$PMDCTL" "$WORK/bin/pmdctl"
chmod 0755 "$WORK"
out=$(cd / && env -u XDG_RUNTIME_DIR setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$WORK/bin/pmdctl" --file-prefix "$PREFIX" stats 2>&1); rc=$?
check "not root: exits 1" test "$rc" -eq 1
check "not root: told Permission denied on root's runtime directory ($out)" \
  grep -q "^pmdctl: cannot look in /var/run/dpdk/$PREFIX for pmdfwd's socket: Permission denied" <<<"$out"

# Graceful shutdown over telemetry: pools audited full, exit 0.
ctl shutdown >/dev/null
rc=0
deadline=$((SECONDS + 20))
while kill -0 "$PMDFWD_PID" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
if kill -0 "$PMDFWD_PID" 2>/dev/null; then
  kill -KILL "$PMDFWD_PID"; wait "$PMDFWD_PID" 2>/dev/null
  fail "shutdown exits 0" "pmdfwd still running 20 s after pmdctl shutdown"
else
  wait "$PMDFWD_PID"; rc=$?
  check "shutdown exits 0" test "$rc" -eq 0
fi
check "pools full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
check "no pool error logged" bash -c "! grep -q 'missing at shutdown\|double free' '$WORK/pmdfwd.log'"

# Accounting under SIGTERM after traffic, in l2 mode this time.
sed -e 's/mode = "patch"/mode = "l2"/' \
    -e 's/^pairs = .*/&\nnext_hop_mac = { p0 = "02:00:00:00:00:01", p1 = "02:00:00:00:00:02" }/' \
    "$WORK/cfg.toml" >"$WORK/l2.toml"
if start_pmdfwd "$PMDFWD" "$WORK/l2.toml" "$PREFIX" "$WORK/l2.log"; then
  # Until traffic has flowed, so the final totals below have some to show.
  deadline=$((SECONDS + 30))
  until (($(json_get "$(ctl --json stats 2>/dev/null || echo '{}')" 'd.get("rx_pkts", 0)') > 0)) ||
        ((SECONDS >= deadline)); do sleep 0.2; done
  stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
  check "SIGTERM exits 0" test "$rc" -eq 0
  check "SIGTERM: pools full" grep -q "all 2 pools full again at shutdown" "$WORK/l2.log"
  check "SIGTERM: final stats logged" grep -q "final totals: workers=2 rx_pkts=[1-9]" "$WORK/l2.log"
else
  fail "l2 start" "pmdfwd did not start in l2 mode"
fi

# A device that cannot give the plan its queues: refuse to start, say what to change.
/usr/bin/python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<IHHiIII',0xa1b2c3d4,2,4,0,0,65535,1))" "$WORK/empty.pcap"
sed -e "s|devargs = \"net_null0\"|devargs = \"net_pcap0,rx_pcap=$WORK/empty.pcap,tx_pcap=/dev/null\"\nrx_queues = 2|" \
    -e 's/^lcores = .*/lcores = "0@0,(1-3)@1"/' "$WORK/cfg.toml" >"$WORK/limits.toml"
out=$("$PMDFWD" --config "$WORK/limits.toml" 2>&1); rc=$?
check "queue limits: refuses to start (exit 1)" test "$rc" -eq 1
check "queue limits: says what to change" grep -q "allows at most 1 rx queues but the plan needs 2; lower rx_queues" <<<"$out"
check "queue limits: pools released" bash -c "! grep -q 'missing at shutdown' <<<\"\$1\"" _ "$out"
cleanup_dpdk_prefix "$PREFIX"

# A TX-only net_tap port: the PMD pairs rx with tx queues, so pmdfwd adds an
# unpolled rx queue with a spare pool, and still audits every pool full.
TAPIF=ctl$(( $$ % 100000 ))
sed -e "s|devargs = \"net_null1\"|devargs = \"net_tap_ctl$$,iface=$TAPIF\"\nrx_queues = 0|" \
    -e 's/^pairs = .*/pairs = [["p0", "p1"]]/' -e 's/^lcores = .*/lcores = "0@0,1@1"/' \
    "$WORK/cfg.toml" >"$WORK/taptx.toml"
if start_pmdfwd "$PMDFWD" "$WORK/taptx.toml" "$PREFIX" "$WORK/taptx.log"; then
  pools=$(ctl --json show pools)
  check "tap quirk: spare pool for the unpolled rx queue" \
    test "$(json_get "$pools" 'any(p["name"].endswith("_spare1") for p in d)')" = True
  ports=$(ctl --json show ports)
  check "tap quirk: rx queues match tx queues" \
    test "$(json_get "$ports" 'd[1]["rx_queues"] == d[1]["tx_queues"] == 1')" = True
  stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
  check "tap quirk: exits 0" test "$rc" -eq 0
  check "tap quirk: all pools full, spare included" grep -q "all 2 pools full again" "$WORK/taptx.log"
else
  fail "tap quirk: start" "$(tail -3 "$WORK/taptx.log")"
fi

summary
