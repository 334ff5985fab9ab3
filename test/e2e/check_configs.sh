#!/usr/bin/env bash
# `pmdfwd --check` on real files: every config/*.toml must plan (exit 0), every
# test/config/bad/* must fail with exit 2 and exactly the location listed in
# test/config/bad/expected.txt, and no run may start EAL (no "EAL:" output, no
# DPDK runtime directory created). Needs no root, no hugepages, no devices.
# Usage: check_configs.sh [BUILD_DIR]   (default: build)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
BAD=$ROOT/test/config/bad
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=../e2e/lib.sh
source "$ROOT/test/e2e/lib.sh"

if [[ ! -x $PMDFWD ]]; then
  fail setup "$PMDFWD is not built (ninja -C $BUILD app/pmdfwd/pmdfwd)"
  summary; exit 1
fi

# Where EAL would put its runtime directory for a prefix, as root or not.
runtime_dirs() {
  local prefix
  for prefix in "$@"; do
    echo "/var/run/dpdk/$prefix"
    echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix"
  done
}

# A fingerprint of those directories (absent, or their mtime), to compare
# before and after a run without tripping over other tests' prefixes.
runtime_state() {
  local d
  for d in $(runtime_dirs "$@"); do
    if [[ -e $d ]]; then echo "$d $(stat -c %Y "$d")"; else echo "$d absent"; fi
  done
}

# The prefixes a file could make EAL use: the default and any it names.
prefixes_of() {
  echo pmdfwd
  [[ -f $1 ]] || return 0  # not /dev/zero
  sed -n 's/^[[:space:]]*file_prefix[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -1
}

# run_check PATH [ARG...]: runs pmdfwd --check (or ARG... instead of
# --check; --start: no argument, a real start); sets RC, OUT, ERR and
# EAL_TOUCHED.
run_check() {
  local path=$1 before after
  shift
  local -a args=("$@")
  ((${#args[@]} > 0)) || args=(--check)
  [[ ${args[0]} != --start ]] || args=()
  local -a prefixes
  mapfile -t prefixes < <(prefixes_of "$path")
  before=$(runtime_state "${prefixes[@]}")
  timeout 20 "$PMDFWD" --config "$path" "${args[@]}" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  after=$(runtime_state "${prefixes[@]}")
  OUT=$(cat "$WORK/out")
  ERR=$(cat "$WORK/err")
  EAL_TOUCHED=""
  if [[ $before != "$after" ]]; then
    EAL_TOUCHED="a DPDK runtime directory appeared or changed"
  elif grep -q "EAL:" "$WORK/out" "$WORK/err"; then
    EAL_TOUCHED="EAL printed output"
  fi
}

# expect_error NAME PATH LOCATION KEY MESSAGE-PART [ARG...]
expect_error() {
  local name=$1 path=$2 loc=$3 key=$4 part=$5
  shift 5
  run_check "$path" "$@"
  local prefix="pmdfwd: config error: $path:$loc: key '$key': "
  local first
  first=$(head -1 <<<"$ERR")
  if [[ -n $EAL_TOUCHED ]]; then
    fail "$name" "$EAL_TOUCHED"
  elif ((RC != 2)); then
    fail "$name" "exit $RC, expected 2 (stderr: $first)"
  elif [[ -n $OUT ]]; then
    fail "$name" "printed on stdout: $(head -1 <<<"$OUT")"
  elif [[ $(wc -l <<<"$ERR") -ne 1 ]]; then
    fail "$name" "expected one line on stderr, got: $ERR"
  elif [[ ${first:0:${#prefix}} != "$prefix" ]]; then
    fail "$name" "got '$first', expected it to start with '$prefix'"
  elif [[ $first != *"$part"* ]]; then
    fail "$name" "got '$first', expected it to contain '$part'"
  else
    pass "$name"
  fi
}

# Every example config plans. Those written for a production host (PCI
# NICs, hugepages, more CPUs than a test machine has, the installed config's
# log directory that its systemd unit creates) are checked without the checks
# against this machine; every other one must run here as it is.
declare -A other_host=([pci-hugepages.toml]=1 [pmdfwd.toml]=1)
shopt -s nullglob
examples=("$ROOT"/config/*.toml)
((${#examples[@]} > 0)) || fail examples "no config/*.toml found"
for path in "${examples[@]}"; do
  name="config/$(basename "$path")"
  if [[ -n ${other_host[$(basename "$path")]:-} ]]; then
    run_check "$path" --check --no-system-check
  else
    run_check "$path"
  fi
  if [[ -n $EAL_TOUCHED ]]; then
    fail "$name" "$EAL_TOUCHED"
  elif ((RC != 0)); then
    fail "$name" "exit $RC: $(head -1 <<<"$ERR")"
  elif [[ $(head -1 <<<"$OUT") != "$path: OK" ]]; then
    fail "$name" "first line is '$(head -1 <<<"$OUT")', expected '$path: OK'"
  elif ! grep -q "^  worker 0 on lcore " <<<"$OUT"; then
    fail "$name" "no worker in the printed plan"
  else
    pass "$name"
  fi
done

# Every bad config fails where the manifest says.
declare -A listed
while IFS='|' read -r file loc key part; do
  [[ -z $file || $file == \#* ]] && continue
  listed[$file]=1
  if [[ ! -e $BAD/$file ]]; then
    fail "bad/$file" "listed in expected.txt but missing"
    continue
  fi
  expect_error "bad/$file" "$BAD/$file" "$loc" "$key" "$part"
done <"$BAD/expected.txt"
for path in "$BAD"/*; do
  file=$(basename "$path")
  [[ $file == expected.txt || -n ${listed[$file]:-} ]] && continue
  fail "bad/$file" "not listed in test/config/bad/expected.txt"
done

# Paths that are not config files at all.
expect_error "missing-file" "$WORK/no-such.toml" 0:0 "(document)" "cannot open file"
mkdir "$WORK/a-directory.toml"
expect_error "directory" "$WORK/a-directory.toml" 0:0 "(document)" "is a directory"
expect_error "endless-device" /dev/zero 1:1 "(document)" "file is larger than 1048576 bytes"
head -c 1048577 /dev/zero | tr '\0' '#' >"$WORK/too-big.toml"
expect_error "too-big" "$WORK/too-big.toml" 1:1 "(document)" "file is larger than 1048576 bytes"
# A file cut in the middle of a multi-byte character, made here so no editor touches it.
printf '[[port]]\nname = "p\xc3' >"$WORK/cut-utf8.toml"
expect_error "cut-utf8" "$WORK/cut-utf8.toml" 2:10 "port[0].name" "invalid UTF-8 byte 0xc3"

# Files that would block an open: a fifo as the config is refused at once;
# an anonymous pipe (`--config <(...)`) is read to its end.
mkfifo "$WORK/config.fifo"
expect_error "config-fifo" "$WORK/config.fifo" 0:0 "(document)" "not a regular file (a fifo)"
pipe_path=
check_pipe() {
  pipe_path=$1
  run_check "$1"
}
check_pipe <(cat "$ROOT/config/null-patch.toml")
if ((RC == 0)) && [[ $(head -1 <<<"$OUT") == "$pipe_path: OK" ]]; then
  pass "config-pipe"
else
  fail "config-pipe" "exit $RC: $(head -1 <<<"$ERR$OUT")"
fi
# A fifo as the log file: refused by --check, and by a start, in the same
# words and before EAL.
mkfifo "$WORK/log.fifo"
sed -e '/^\[log\]/,$d' "$ROOT/config/null-patch.toml" >"$WORK/log-fifo.toml"
printf '[log]\nfile = "%s"\n' "$WORK/log.fifo" >>"$WORK/log-fifo.toml"
log_line=$(grep -n '^file = ' "$WORK/log-fifo.toml" | cut -d: -f1)
expect_error "log-fifo-check" "$WORK/log-fifo.toml" "$log_line:8" "log.file" \
  "log file '$WORK/log.fifo' is not a regular file (a fifo)"
expect_error "log-fifo-start" "$WORK/log-fifo.toml" "$log_line:8" "log.file" \
  "log file '$WORK/log.fifo' is not a regular file (a fifo)" --start

summary
