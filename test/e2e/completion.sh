#!/usr/bin/env bash
# pmdctl's bash completion (pmdctl completion, generated from the command
# table; built as app/pmdctl/pmdctl.bash and installed for bash-completion),
# driven as bash drives it: COMP_WORDS and COMP_CWORD set, the completion
# function called, COMPREPLY read. Commands, subcommands, each command's
# options, drop reasons, files, and a running pmdfwd's port names.
# Usage: completion.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
PREFIX=e2e-cmp-$$
WORK=$(mktemp -d)
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT
export PATH="$(dirname "$PMDCTL"):$PATH"

"$PMDCTL" completion >"$WORK/pmdctl.bash"
check "pmdctl completion writes the script the build installs" \
  cmp -s "$WORK/pmdctl.bash" "$BUILD/app/pmdctl/pmdctl.bash"
check "bash reads it without an error" bash -n "$WORK/pmdctl.bash"
source "$WORK/pmdctl.bash"

# completions WORD...: what completing the last word offers, one line.
completions() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _pmdctl
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
offers() {  # offers "EXPECTED" WORD...: exactly these
  local want=$1; shift
  local got; got=$(completions "$@")
  [[ $got == "$want" ]] || { echo "completing '$*' offered '$got', not '$want'"; return 1; }
}
includes() {  # includes "WORDS" WORD...: these among others
  local want=$1; shift
  local got; got=" $(completions "$@") "
  for w in $want; do [[ $got == *" $w "* ]] || { echo "'$*' lacks $w: '$got'"; return 1; }; done
}

check "a first word: every group and command" \
  includes "show route trace drops reload config log stats clear shutdown watch fields endpoints metrics completion" pmdctl ""
check "'sh' completes to show and shutdown" offers "show shutdown" pmdctl sh
check "'show ro' to router and routes" offers "router routes" pmdctl show ro
check "'trace ' to its three commands" offers "show start stop" pmdctl trace ""
check "trace start's options" \
  includes "--port --filter --count --drops --continuous --json" pmdctl trace start --
check "global options before the command are skipped" \
  includes "--dry-run" pmdctl --json -f x reload --
check "--reason offers the drop reasons" offers "ttl_expired tx_full" pmdctl drops --reason t
touch "$WORK/table-a.txt" "$WORK/table-b.txt"
check "route load offers files" \
  offers "$WORK/table-a.txt $WORK/table-b.txt" pmdctl route load "$WORK/table-"

sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" "$E2E_ROOT/config/null-patch.toml" \
  >"$WORK/null.toml"
if start_pmdfwd "$PMDFWD" "$WORK/null.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  ports=$("$PMDCTL" -f "$PREFIX" --json show ports | sed -n 's/^ *"name": "\(.*\)",\{0,1\}$/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')
  check "--port offers the running pmdfwd's ports ($ports)" \
    offers "$ports" pmdctl -f "$PREFIX" trace start --port ""
  stop_pmdfwd "$PMDFWD_PID" TERM; PMDFWD_PID=
else
  fail "start pmdfwd" "see its log"
fi
summary
