#!/usr/bin/env bash
# Signals end to end, on net_null ports: SIGHUP reopens the [log] file and
# reloads the config, SIGUSR1 only reopens it (the
# logrotate convention) and nothing else; SIGPIPE and telemetry clients that
# hang up leave pmdfwd running; SIGTERM or SIGINT at any moment of start-up
# still ends in the normal shutdown (exit 0, pools audited); a fatal signal
# prints a crash report on stderr without [netlog], and the process still
# dies of that signal.
# Usage: signals.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PREFIX=e2e-sig-$$
WORK=$(mktemp -d)
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -c 0  # the fatal-signal cases would otherwise leave core files

sed "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" "$E2E_ROOT/config/null-patch.toml" >"$WORK/cfg.toml"
mkdir "$WORK/logs"
cat "$WORK/cfg.toml" - >"$WORK/file.toml" <<EOF

[control]
stats_log_interval_s = 1

[log]
file = "$WORK/logs/pmdfwd.log"
EOF

# wait_for PATTERN FILE [SECONDS]: until a line of FILE matches.
wait_for() {
  local deadline=$((SECONDS + ${3:-20}))
  until grep -q -- "$1" "$2" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

# exited PID [SECONDS]: waits for pmdfwd to end; its exit status, or 124
# (killed) if it has not ended by then.
exited() {
  local pid=$1 deadline=$((SECONDS + ${2:-30}))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; return 124; fi
  local rc=0
  wait "$pid" || rc=$?
  return "$rc"
}

# handler_ready PID: until the process runs pmdfwd's own main (not the shell's
# child before exec, nor the loader) and catches SIGTERM. Before main the
# default action still applies: nothing has started then.
handler_ready() {
  local pid=$1 deadline=$((SECONDS + 20)) name mask key value
  while ((SECONDS < deadline)); do
    name= mask=0
    while read -r key value; do
      case $key in Name:) name=$value ;; SigCgt:) mask=$value ;; esac
    done <"/proc/$pid/status" 2>/dev/null || return 1
    [[ $name == pmdfwd ]] && (( 0x$mask & (1 << (15 - 1)) )) && return 0
  done
  return 1
}

# --- SIGHUP: reopen the log file --------------------------------------------
if start_pmdfwd "$PMDFWD" "$WORK/file.toml" "$PREFIX" "$WORK/hup.out"; then
  wait_for "running:" "$WORK/logs/pmdfwd.log"
  mv "$WORK/logs/pmdfwd.log" "$WORK/rotated.log"  # what logrotate does first
  kill -HUP "$PMDFWD_PID"
  check "SIGHUP: a new file at the path says it was reopened" \
    wait_for "SIGHUP: log file '$WORK/logs/pmdfwd.log' reopened" "$WORK/logs/pmdfwd.log"
  check "SIGHUP: the moved file's last line says it is being reopened" \
    bash -c "tail -1 '$WORK/rotated.log' | grep -q 'SIGHUP: reopening log file'"
  check "SIGHUP: pmdfwd keeps running" kill -0 "$PMDFWD_PID"
  rotated_size=$(stat -c %s "$WORK/rotated.log")
  check "SIGHUP: new records go to the new file" wait_for "stats: " "$WORK/logs/pmdfwd.log"
  check "SIGHUP: and none to the moved one" test "$(stat -c %s "$WORK/rotated.log")" -eq "$rotated_size"
  check "SIGHUP: nothing but the file is touched (no restart, no stop)" \
    bash -c "! grep -q 'stopping\|starting with' '$WORK/logs/pmdfwd.log'"

  # A reopen that fails (the directory is gone) keeps the old file.
  mv "$WORK/logs/pmdfwd.log" "$WORK/rotated2.log"
  rmdir "$WORK/logs"
  kill -HUP "$PMDFWD_PID"
  check "SIGHUP: a failed reopen says so and keeps writing to the old file" \
    wait_for "still writing to the file opened before" "$WORK/rotated2.log"
  check "SIGHUP: and pmdfwd keeps running" kill -0 "$PMDFWD_PID"

  # SIGPIPE: ignored, whether sent or raised by a write to a client that hung up.
  kill -PIPE "$PMDFWD_PID"
  /usr/bin/python3 - "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" <<'EOF'
import socket, sys
# Ask for a large reply and hang up before it is written.
for _ in range(50):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1])
    s.send(b"/ethdev/xstats,0")
    s.close()
EOF
  sleep 0.5  # the replies to the last clients are written meanwhile
  check "SIGPIPE and clients that hang up leave pmdfwd running" kill -0 "$PMDFWD_PID"
  stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
  check "SIGTERM after all that exits 0" test "$rc" -eq 0
  check "the stop is logged with the signal's name" grep -q "signal 15 (SIGTERM) received" "$WORK/hup.out"
else
  fail "SIGHUP: start" "$(tail -3 "$WORK/hup.out")"
fi
cleanup_dpdk_prefix "$PREFIX"

# SIGHUP without a [log] file: a line, nothing else.
if start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/hup-nofile.out"; then
  kill -HUP "$PMDFWD_PID"
  check "SIGHUP without a log file says there is none to reopen" \
    wait_for "SIGHUP: no \[log\] file to reopen" "$WORK/hup-nofile.out"
  check "SIGHUP also reloads the config (unchanged: 0 changes)" \
    wait_for "SIGHUP: reload: applied: 0 changes" "$WORK/hup-nofile.out"
  kill -USR1 "$PMDFWD_PID"
  check "SIGUSR1 only reopens the log file" \
    wait_for "SIGUSR1: no \[log\] file to reopen" "$WORK/hup-nofile.out"
  sleep 0.2
  check "and reloads nothing (one reload line, SIGHUP's)" \
    test "$(grep -c 'reload: applied' "$WORK/hup-nofile.out")" = 1
  stop_pmdfwd "$PMDFWD_PID" INT; rc=$?
  check "SIGINT exits 0" test "$rc" -eq 0
else
  fail "SIGHUP without a log file: start" "$(tail -3 "$WORK/hup-nofile.out")"
fi
cleanup_dpdk_prefix "$PREFIX"

# --- a stop during start-up --------------------------------------------------
# early_stop NAME SIGNAL WHEN: starts pmdfwd, sends SIGNAL at WHEN, expects the
# normal shutdown. WHEN: "main+MS" (MS after main installed its handlers), or
# "log:PATTERN" (as soon as the output shows PATTERN).
early_stop() {
  local name=$1 sig=$2 when=$3 out="$WORK/early-$1.out" rc=0
  "$PMDFWD" --config "$WORK/cfg.toml" >"$out" 2>&1 &
  PMDFWD_PID=$!
  case $when in
    main+*)
      handler_ready "$PMDFWD_PID" || { fail "$name" "no SIGTERM handler seen"; return; }
      (( ${when#main+} )) && sleep "0.0${when#main+}"
      ;;
    log:*) wait_for "${when#log:}" "$out" 30 || { fail "$name" "never logged ${when#log:}"; return; } ;;
  esac
  kill -"$sig" "$PMDFWD_PID"
  exited "$PMDFWD_PID"; rc=$?
  PMDFWD_PID=
  check "$name: exits 0 (exit $rc)" test "$rc" -eq 0
  check "$name: the normal shutdown ran, pools audited full" grep -q "pools full again at shutdown" "$out"
  check "$name: the signal is logged" grep -q "signal [0-9]* (SIG$sig) received, stopping" "$out"
  cleanup_dpdk_prefix "$PREFIX"
}
early_stop "SIGTERM as main starts" TERM main+0
early_stop "SIGTERM 20 ms into main" TERM main+20
early_stop "SIGTERM 80 ms into main" TERM main+80
early_stop "SIGTERM while EAL starts" TERM "log:starting with"
early_stop "SIGINT while EAL starts" INT "log:starting with"
early_stop "SIGTERM while ports and workers start" TERM "log:plan: worker 0"

# --- a fatal signal without [netlog]: the crash report on stderr ----------------
if start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/segv.out"; then
  # The real pid: a wrapper such as GNU timeout would not pass SIGSEGV on.
  kill -SEGV "$PMDFWD_PID"
  exited "$PMDFWD_PID"; rc=$?
  PMDFWD_PID=
  check "SIGSEGV: dies of the signal (exit $rc)" test "$rc" -eq 139
  check "SIGSEGV: the report names the signal and its sender" \
    grep -q "^pmdfwd: fatal signal 11 (SIGSEGV) sent by pid $$;" "$WORK/segv.out"
  check "SIGSEGV: no fault address for a signal that was sent" \
    bash -c "! grep -q 'fatal signal.* at address' '$WORK/segv.out'"
  check "SIGSEGV: the last records are replayed" grep -q "^replay seq [0-9]*: running:" "$WORK/segv.out"
  check "SIGSEGV: a backtrace" grep -q "^backtrace #1 0x[0-9a-f]* " "$WORK/segv.out"
  check "SIGSEGV: the report is complete" grep -q "^pmdfwd: end of crash report" "$WORK/segv.out"
else
  fail "SIGSEGV: start" "$(tail -3 "$WORK/segv.out")"
fi
cleanup_dpdk_prefix "$PREFIX"

if start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/abrt.out"; then
  kill -ABRT "$PMDFWD_PID"
  exited "$PMDFWD_PID"; rc=$?
  PMDFWD_PID=
  check "SIGABRT: dies of the signal (exit $rc)" test "$rc" -eq 134
  check "SIGABRT: a crash report" grep -q "^pmdfwd: fatal signal 6 (SIGABRT) sent by pid $$;" "$WORK/abrt.out"
else
  fail "SIGABRT: start" "$(tail -3 "$WORK/abrt.out")"
fi

summary
