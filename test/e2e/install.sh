#!/usr/bin/env bash
# `meson install` into a staging directory, and what it put there: the three
# binaries (each runs --version), the systemd unit with this install's paths
# (checked by systemd-analyze verify, and key by key), the example config
# (passes --check from the installed pmdfwd, and survives a reinstall as
# edited), its pristine copy, and the logrotate rule, which rotates the log
# of a running pmdfwd: the file is moved, SIGHUP reopens the path, and the
# next lines land in the new file.
# Usage: install.sh [BUILD_DIR]   (default: build)
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
[[ $BUILD = /* ]] || BUILD=$E2E_ROOT/$BUILD
WORK=$(mktemp -d)
DEST=$WORK/dest
PMDFWD_PID=
PREFIX=e2e-inst-$(($$ % 100000))
cleanup() {
  [[ -z $PMDFWD_PID ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  cleanup_dpdk_prefix "$PREFIX"
  rm -rf "$WORK"
}
trap cleanup EXIT

# The install's directories, as meson resolves them (absolute: a relative
# one is under the prefix).
option() {
  meson introspect "$BUILD" --buildoptions |
    /usr/bin/python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name'] == sys.argv[1]][0])" "$1"
}
under_prefix() { if [[ $1 = /* ]]; then echo "$1"; else echo "$PREFIX_DIR/$1"; fi; }
PREFIX_DIR=$(option prefix)
BINDIR=$(under_prefix "$(option bindir)")
SYSCONFDIR=$(under_prefix "$(option sysconfdir)")
DATADIR=$(under_prefix "$(option datadir)")
UNITDIR=$(option systemdsystemunitdir)
if [[ -z $UNITDIR ]]; then
  UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
  UNITDIR=${UNITDIR:-/lib/systemd/system}
fi
VERSION=$(meson introspect "$BUILD" --projectinfo |
  /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['version'])")
CONFIG=$SYSCONFDIR/pmdfwd/pmdfwd.toml
UNIT=$DEST$UNITDIR/pmdfwd.service

if ! meson install -C "$BUILD" --no-rebuild --destdir "$DEST" >"$WORK/install.log" 2>&1; then
  fail "meson install" "$(tail -3 "$WORK/install.log" | tr '\n' ' ')"; summary; exit 1
fi
pass "meson install --destdir"

for bin in pmdfwd pmdctl pmdgen; do
  path=$DEST$BINDIR/$bin
  if [[ ! -x $path ]]; then
    fail "$bin installed" "$path is missing or not executable"
  elif ! out=$("$path" --version 2>&1) || [[ $out != *"$VERSION"* ]]; then
    fail "$bin --version" "got '$out', expected version $VERSION"
  else
    pass "$bin in $BINDIR, --version: $out"
  fi
done
check "the unit is in $UNITDIR" test -f "$UNIT"
check "the example config is in $SYSCONFDIR/pmdfwd" test -f "$DEST$CONFIG"
check "its pristine copy is $DATADIR/pmdfwd/pmdfwd.toml.example" \
  cmp -s "$E2E_ROOT/config/pmdfwd.toml" "$DEST$DATADIR/pmdfwd/pmdfwd.toml.example"
check "the logrotate rule is $SYSCONFDIR/logrotate.d/pmdfwd" test -f "$DEST$SYSCONFDIR/logrotate.d/pmdfwd"
for page in man8/pmdfwd.8 man8/pmdctl.8 man8/pmdgen.8 man5/pmdfwd.toml.5; do
  check "the man page $page is installed" test -s "$DEST$(under_prefix "$(option mandir)")/$page"
done
check "pmdctl's bash completion is in $DATADIR/bash-completion/completions" \
  test -s "$DEST$DATADIR/bash-completion/completions/pmdctl.bash"
check "the alerting rules are $DATADIR/pmdfwd/prometheus/pmdfwd.rules.yml" \
  cmp -s "$E2E_ROOT/config/prometheus/pmdfwd.rules.yml" "$DEST$DATADIR/pmdfwd/prometheus/pmdfwd.rules.yml"

# unit_value KEY: the value of the unit's one KEY= line ("" if not exactly one).
unit_value() {
  local lines
  lines=$(grep -E "^$1=" "$UNIT")
  [[ $(grep -c . <<<"$lines") -eq 1 ]] && echo "${lines#*=}"
}
expect_key() {
  local got
  got=$(unit_value "$1")
  if [[ $got == "$2" ]]; then pass "unit: $1=$2"; else fail "unit: $1" "got '$got', expected '$2'"; fi
}
expect_key Type notify
expect_key NotifyAccess main
expect_key ExecStartPre "$BINDIR/pmdfwd --check --config $CONFIG"
expect_key ExecStart "$BINDIR/pmdfwd --config $CONFIG"
expect_key ExecReload '/bin/kill -HUP $MAINPID'
expect_key KillSignal SIGTERM
expect_key Restart on-failure
expect_key LimitMEMLOCK infinity
check "unit: WatchdogSec is set ($(unit_value WatchdogSec))" test -n "$(unit_value WatchdogSec)"
check "unit: TimeoutStopSec is set ($(unit_value TimeoutStopSec))" test -n "$(unit_value TimeoutStopSec)"
check "unit: no placeholder left" bash -c "! grep -q @ '$UNIT'"

# systemd-analyze verify checks every key and that the commands exist: a copy
# whose paths point into the staging directory. Any warning is a failure.
if command -v systemd-analyze >/dev/null; then
  sed -e "s|$BINDIR/|$DEST$BINDIR/|g" "$UNIT" >"$WORK/pmdfwd.service"
  if systemd-analyze verify --man=no "$WORK/pmdfwd.service" >"$WORK/verify.out" 2>&1 &&
      ! grep -q . "$WORK/verify.out"; then
    pass "systemd-analyze verify: no complaint"
  else
    fail "systemd-analyze verify" "$(head -3 "$WORK/verify.out" | tr '\n' ' ')"
  fi
  # The check sees what it should: a unit with a typo in a key is reported.
  sed -e 's/^WatchdogSec=/WatchdogSecs=/' "$WORK/pmdfwd.service" >"$WORK/typo.service"
  systemd-analyze verify --man=no "$WORK/typo.service" >"$WORK/typo.out" 2>&1
  check "systemd-analyze verify reports a misspelt key" grep -q "Unknown key 'WatchdogSecs'" "$WORK/typo.out"
else
  fail "systemd-analyze" "not installed (Debian package systemd; scripts/setup installs it)"
fi

# The example config as the unit's ExecStartPre checks it, from the installed
# binary (--no-system-check: its interfaces and log directory are the
# production host's).
if "$DEST$BINDIR/pmdfwd" --check --no-system-check --config "$DEST$CONFIG" >"$WORK/check.out" 2>&1; then
  pass "installed pmdfwd --check --no-system-check accepts the installed config"
else
  fail "installed config" "$(head -2 "$WORK/check.out" | tr '\n' ' ')"
fi

# A reinstall keeps an operator's edits.
echo "# edited by the operator" >>"$DEST$CONFIG"
meson install -C "$BUILD" --no-rebuild --destdir "$DEST" >"$WORK/install2.log" 2>&1
check "a reinstall keeps the edited config" grep -q "^# edited by the operator" "$DEST$CONFIG"

# The logrotate rule on a running pmdfwd: the same rule, for this test's log
# file and with SIGUSR1 sent as its postrotate's `systemctl kill` would.
LOG=$WORK/log/pmdfwd.log
mkdir -p "$WORK/log"
sed -e '/^\[log\]/,$d' -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" \
  "$E2E_ROOT/config/null-patch.toml" >"$WORK/null.toml"
printf '[log]\nfile = "%s"\n' "$LOG" >>"$WORK/null.toml"
if ! command -v logrotate >/dev/null; then
  fail "logrotate" "not installed (Debian package logrotate; scripts/setup installs it)"
elif ! start_pmdfwd "$DEST$BINDIR/pmdfwd" "$WORK/null.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "logrotate: start pmdfwd" "see its log"
else
  sed -e "s|^/var/log/pmdfwd/pmdfwd.log |$LOG |" \
    -e "s|systemctl kill .*pmdfwd.service.*|/bin/kill -USR1 $PMDFWD_PID|" \
    "$DEST$SYSCONFDIR/logrotate.d/pmdfwd" >"$WORK/rule"
  chmod 0644 "$WORK/rule"
  check "logrotate: the rule is for the test's log" grep -q "^$LOG {" "$WORK/rule"
  if logrotate -f -s "$WORK/state" "$WORK/rule" >"$WORK/logrotate.out" 2>&1; then
    pass "logrotate -f runs the installed rule"
  else
    fail "logrotate" "$(head -3 "$WORK/logrotate.out" | tr '\n' ' ')"
  fi
  deadline=$((SECONDS + 10))
  until grep -q "SIGUSR1: log file .* reopened" "$LOG" 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.1; done
  check "the old file was moved to pmdfwd.log.1, not compressed yet (delaycompress)" test -s "$LOG.1"
  check "the old file ends where the reopen began" grep -q "SIGUSR1: reopening log file" "$LOG.1"
  check "pmdfwd reopened the path: the new file has its next lines" \
    grep -q "SIGUSR1: log file .* reopened" "$LOG"
  check "the new file was created 0640" test "$(stat -c %a "$LOG")" = 640
  stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
  PMDFWD_PID=
  check "pmdfwd exits 0 after the rotation" test "$rc" -eq 0
  check "its last lines went to the new file" grep -q "pools full again at shutdown" "$LOG"
fi
summary
