#!/usr/bin/env bash
# The log channel in syslog form, received by a real syslog daemon: pmdfwd
# sends format = "rfc5424" records through a net_tap port into a network
# namespace where rsyslog (imudp, mmpstrucdata, every field written through a
# template) or syslog-ng (its syslog() source, format-json) listens on UDP.
# Checks what the daemon parsed: version, hostname, app name, pid, facility,
# severity, a timestamp to the microsecond, the sequence number and worker
# in structured data; every record once; a record too long for a datagram
# cut at 1000 bytes and marked; a burst of 100 records within the channel's
# rate_burst all arriving (or each loss counted); and a crashing pmdfwd's report,
# header, replays, backtrace and end line, every record marked "crash".
# Usage: syslog.sh rsyslog|syslog-ng [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
RECEIVER=${1:?usage: syslog.sh rsyslog|syslog-ng [BUILD_DIR]}
case $RECEIVER in
  rsyslog) tap_rig slr e2esr "${2:-}" ;;
  syslog-ng) tap_rig sln e2esn "${2:-}" ;;
  *) echo "usage: syslog.sh rsyslog|syslog-ng [BUILD_DIR]" >&2; exit 2 ;;
esac
SYSLOG_DIR=/var/cache/pmdfwd-test/syslog  # scripts/setup unpacks both there
MAC_L=02:00:00:e9:00:01
DST=10.97.0.1
PORT=5514
HOST=$(hostname)
RECEIVER_PID=

received() {
  /usr/bin/python3 "$E2E_ROOT/test/e2e/syslog_check.py" "$WORK/received.jsonl" "$HOST" \
    "$PMDFWD_SEEN_PID" "$@"
}

# The daemon, in the left namespace, writing every message it parses as one
# JSON line to received.jsonl; a receive buffer of 4 MiB (forced, as root).
start_rsyslog() {
  local mods=$SYSLOG_DIR/rsyslog/usr/lib/x86_64-linux-gnu/rsyslog
  cat >"$WORK/rsyslog.conf" <<EOF
global(workDirectory="$WORK")
module(load="imudp")
module(load="mmpstrucdata")
template(name="everything" type="string" string="%jsonmesg%\\n")
ruleset(name="pmdfwd") {
  action(type="mmpstrucdata")
  action(type="omfile" file="$WORK/received.jsonl" template="everything")
}
input(type="imudp" address="$DST" port="$PORT" rcvbufSize="4m" ruleset="pmdfwd")
EOF
  ip netns exec "$NS_L" "$SYSLOG_DIR/rsyslog/usr/sbin/rsyslogd" -n -f "$WORK/rsyslog.conf" \
    -i "$WORK/rsyslog.pid" -M "$mods" >"$WORK/receiver.log" 2>&1 &
  RECEIVER_PID=$!
}
start_syslog_ng() {
  local root=$SYSLOG_DIR/syslog-ng-core modules
  # The version the archive had when scripts/setup unpacked it (3.38 in Debian 12).
  modules=$(ls -d "$root"/usr/lib/syslog-ng/[0-9]*/ | head -1)
  modules=${modules%/}
  cat >"$WORK/syslog-ng.conf" <<EOF
@version: ${modules##*/}
options { keep-hostname(yes); frac-digits(6); stats-freq(0); };
source s_pmdfwd {
  syslog(ip("$DST") port($PORT) transport("udp") so-rcvbuf(4194304) flags(store-raw-message));
};
destination d_json {
  file("$WORK/received.jsonl" template("\$(format-json raw=\${RAWMSG} msg=\${MESSAGE}
    host=\${HOST} facility=int(\${FACILITY_NUM}) severity=int(\${LEVEL_NUM}) time=\${ISODATE}
    received=\${R_ISODATE} app=\${PROGRAM} pid=\${PID} msgid=\${MSGID}
    seq=\${.SDATA.pmdfwd@32473.seq} worker=\${.SDATA.pmdfwd@32473.worker})\\n"));
};
log { source(s_pmdfwd); destination(d_json); };
EOF
  ip netns exec "$NS_L" env LD_LIBRARY_PATH="$root/usr/lib/syslog-ng" \
    "$root/usr/sbin/syslog-ng" -F -f "$WORK/syslog-ng.conf" \
    --module-path="$modules" -p "$WORK/syslog-ng.pid" \
    -c "$WORK/syslog-ng.ctl" -R "$WORK/syslog-ng.persist" --no-caps >"$WORK/receiver.log" 2>&1 &
  RECEIVER_PID=$!
}
stop_receiver() {
  [[ -z $RECEIVER_PID ]] || { kill -TERM "$RECEIVER_PID" 2>/dev/null; wait "$RECEIVER_PID" 2>/dev/null; }
  RECEIVER_PID=
}
trap 'stop_receiver; tap_rig_cleanup' EXIT

demo_config "$WORK/cfg.toml" "$PREFIX" "$IF_L" "$IF_R" \
  -e "s/^stats_log_interval_s = .*/stats_log_interval_s = 1/" \
  -e "s/^src_ip = .*/src_ip = \"10.97.0.254\"/" \
  -e "s/^dst_ip = .*/dst_ip = \"$DST\"/" \
  -e "s/^dst_mac = .*/dst_mac = \"$MAC_L\"/" \
  -e "s/^dst_port = .*/dst_port = $PORT/" \
  -e "s/^format = \"extended\"/format = \"rfc5424\"\nfacility = \"local3\"/"
grep -q '^format = "rfc5424"' "$WORK/cfg.toml" ||
  { fail "config" "config/demo.toml has no [netlog] format line"; summary; exit 1; }

if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi
PMDFWD_SEEN_PID=$PMDFWD_PID
check "the plan names the channel's format" \
  grep -q "plan: netlog: rfc5424 records at info and above to $DST:$PORT via 'left' txq 1" \
  "$WORK/pmdfwd.log"
wait_for_link "$IF_L" 10 && wait_for_link "$IF_R" 10
ns_attach "$NS_L" "$IF_L" "$DST/24"
ns_attach "$NS_R" "$IF_R" 10.97.0.2/24
ip -n "$NS_L" link set "$IF_L" address "$MAC_L"
case $RECEIVER in
  rsyslog) start_rsyslog ;;
  syslog-ng) start_syslog_ng ;;
esac
# Listening once the socket is bound in the namespace.
for _ in $(seq 100); do
  ip netns exec "$NS_L" ss -Hlun "sport = :$PORT" 2>/dev/null | grep -q . && break
  sleep 0.1
done
check "$RECEIVER listens on $DST:$PORT" \
  bash -c "ip netns exec '$NS_L' ss -Hlun 'sport = :$PORT' | grep -q ."

wait_received '^stats: ' 2  # a stats line a second
out=$(received '^stats: ')
check "stats lines arrived ($(field matching <<<"$out"))" test "$(field matching <<<"$out")" -ge 2
check "every message parsed with version, host, app, pid, local3, time, seq and worker" \
  test "$(field bad <<<"$out")" = 0
check "stats lines are info (6), from main, MSGID -" \
  test "$(field levels <<<"$out")/$(field workers <<<"$out")/$(field msgids <<<"$out")" = "6/main/-"

# A warning too long for one datagram: cut at 1000 bytes, header included, and marked.
telemetry "/pmdfwd/log_test,2500" >"$WORK/log_test.json"
check "log_test answers" grep -q '"logged"' "$WORK/log_test.json"
wait_received '^netlog test record of 2500 bytes:'
out=$(received '^netlog test record of 2500 bytes:')
check "the 2500-byte record arrived once, at warning (4)" \
  test "$(field matching <<<"$out")/$(field levels <<<"$out")" = 1/4
check "cut to one datagram of at most 1000 bytes ($(field longest_raw <<<"$out"))" \
  test "$(field longest_raw <<<"$out")" -le 1000 -a "$(field longest_raw <<<"$out")" -ge 950
check "it ends in the cut mark" test "$(field cut <<<"$out")" = 1
check "the log file keeps it whole" \
  awk 'index($0, "netlog test record of 2500 bytes:") && length($0) > 2500 { n++ } END { exit n != 1 }' \
  "$WORK/pmdfwd.log"

# A burst at the rate the channel is sized for (its rate_burst, 200): 100
# warnings of 64 bytes at once, from the thread that serves telemetry.
telemetry "/pmdfwd/log_test,64,100" >"$WORK/log_burst.json"
check "log_test of 100 answers" grep -q '"count": 100' "$WORK/log_burst.json"
wait_received '^netlog test record of 64 bytes:' 100
out=$(received '^netlog test record of 64 bytes:')
burst=$(field matching <<<"$out")
stats=$(telemetry "/pmdfwd/log")
dropped=$(json_get "$stats" 'd["/pmdfwd/log"]["dropped"]')
rcvbuf_errors=$(ip netns exec "$NS_L" awk '/^Udp:/ { if (h) print $6; h = 1 }' /proc/net/snmp)
check "the burst's records all arrived ($burst), or each loss is counted (channel $dropped, receive buffer $rcvbuf_errors)" \
  test "$((burst + dropped + rcvbuf_errors))" -ge 100
worker=$(field workers <<<"$out")
check "they are warnings (4), named by the thread that logged them ($worker)" \
  bash -c "[[ '$(field levels <<<"$out")' == 4 && -n '$worker' && '$worker' != *,* ]]"
out=$(received '.')
check "no record arrived twice" test "$(field duplicates <<<"$out")" = 0
check "sequence gaps ($(field gaps <<<"$out")) are all counted losses" \
  test "$(field gaps <<<"$out")" -le "$((dropped + rcvbuf_errors))"
check "channel counters: the cut record is counted" \
  test "$(json_get "$stats" 'd["/pmdfwd/log"]["truncated"]')" -eq 1
check "channel counters: no more records received than sent" \
  test "$(field records <<<"$out")" -le "$(json_get "$stats" 'd["/pmdfwd/log"]["records"]')"

# A crash: the report arrives whole, every record of it marked "crash".
# Two more stats lines first, so the replay has some behind the storm's.
wait_received '^stats: ' "$(($(received '^stats: ' | field matching) + 2))"
crash_pmdfwd
wait_received '^pmdfwd: end of crash report'
out=$(received 'fatal signal 11 \(SIGSEGV\)')
check "the crash report's first line arrived, at emerg (0), MSGID crash" \
  test "$(field matching <<<"$out")/$(field levels <<<"$out")/$(field msgids <<<"$out")" = 1/0/crash
first=$(field first_seq <<<"$out")
out=$(received '^replay seq [0-9]+: stats: ')
check "the last records were replayed ($(field matching <<<"$out")), MSGID crash, worker main" \
  test "$(field matching <<<"$out")" -ge 2 -a "$(field msgids <<<"$out")/$(field workers <<<"$out")" = crash/main
out=$(received '^backtrace #[0-9]+ 0x[0-9a-f]+')
check "a backtrace arrived ($(field matching <<<"$out") frames), at crit (2)" \
  test "$(field matching <<<"$out")" -ge 2 -a "$(field levels <<<"$out")" = 2
out=$(received '^pmdfwd: end of crash report')
last=$(field last_seq <<<"$out")
check "the crash report is complete: its end line arrived, MSGID crash" \
  test "$(field matching <<<"$out")/$(field msgids <<<"$out")" = 1/crash
out=$(received 'fatal signal|^replay seq|^backtrace #|end of crash report')
check "every record of the report arrived once (seq $first to $last)" \
  test "$(field matching <<<"$out")" -eq "$((last - first + 1))"
out=$(received '.')
check "every message still parses ($(field messages <<<"$out") in all)" test "$(field bad <<<"$out")" = 0
stop_receiver
summary
