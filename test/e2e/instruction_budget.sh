#!/usr/bin/env bash
# The fast path's instruction budget: pmdfwd in each mode (patch, l2, l3
# IPv4, l3 IPv6, and l3 after a trace of 8 packets has run and switched
# itself off) under callgrind on virtual devices, for at least PACKETS
# packets each (default 200000), through scripts/lib/bench_instructions.sh.
# A mode fails when its instructions a packet exceed test/budget/
# instructions.txt's figure by more than 1%. Counting, not timing: the
# figure is the same on a busy machine. A mode well under its figure says
# so, so that the budget comes down with the code.
# Usage: instruction_budget.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build}
[[ $BUILD = /* ]] || BUILD=$E2E_ROOT/$BUILD
BUDGET=$E2E_ROOT/test/budget/instructions.txt
PACKETS=${BUDGET_PACKETS:-200000}
MEASURE=$E2E_ROOT/scripts/lib/bench_instructions.sh
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

TRACED=$BUILD/bench-instructions/l3-v4-trace.json
rm -f "$TRACED"

budget_of() { awk -v m="$1" '$1 == m { print $2 }' "$BUDGET"; }

# measure MODE ARGS...: the instructions a packet, or nothing on failure.
measure() {
  local mode=$1; shift
  if ! "$MEASURE" --build "$BUILD" --packets "$PACKETS" "$@" >"$WORK/$mode.out" 2>&1; then
    sed 's/^/    /' "$WORK/$mode.out" | tail -5 >&2
    return
  fi
  sed -n 's/.* = \([0-9.]*\) a packet$/\1/p' "$WORK/$mode.out" | tail -1
}

for entry in "patch:patch" "l2:l2" "l3:l3" "l3-v6:--ipv6 l3" \
    "l3-trace-off:--trace udp --trace-count 8 l3"; do
  mode=${entry%%:*}
  read -ra args <<<"${entry#*:}"
  budget=$(budget_of "$mode")
  if [[ -z $budget ]]; then
    fail "$mode" "no budget in $BUDGET"
    continue
  fi
  spent=$(measure "$mode" "${args[@]}")
  if [[ -z $spent ]]; then
    fail "$mode" "no figure from $MEASURE"
    continue
  fi
  limit=$(awk -v b="$budget" 'BEGIN { printf "%.1f", b * 1.01 }')
  check "$mode: $spent instructions a packet, budget $budget (fails over $limit)" \
    awk -v s="$spent" -v l="$limit" 'BEGIN { exit !(s <= l) }'
  if awk -v s="$spent" -v b="$budget" 'BEGIN { exit !(s < b * 0.98) }'; then
    echo "note $mode: $spent is more than 2% under its budget $budget: lower it in $BUDGET"
  fi
done
# The trace ran and ended itself: its 8 packets are there to show.
traced=$(grep -c '"step": "headers"' "$TRACED" 2>/dev/null)
check "l3-trace-off: the trace ran, 8 packets traced ($traced)" test "${traced:-0}" = 8
summary
