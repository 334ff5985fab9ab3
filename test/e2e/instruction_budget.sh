#!/usr/bin/env bash
# The fast path's instruction budget: pmdfwd in each mode (patch, l2, l3
# IPv4, l3 IPv6, and l3 after a trace of 8 packets has run and switched
# itself off) under callgrind on virtual devices, for at least PACKETS
# packets each (default 200000), through scripts/lib/bench_instructions.sh.
# What is held is the worker loop's own instructions a packet: the loop's
# total less what the drivers it calls spend (scripts/lib/
# callgrind_costs.py), so that a change of Debian's DPDK or libc moves no
# figure. A mode fails when its own instructions a packet exceed
# test/budget/instructions.txt's figure by more than 1%. Counting, not
# timing: the figure is the same on a busy machine. A mode more than 2%
# under its figure says so, so that the budget comes down with the code.
# Usage: instruction_budget.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build}
[[ $BUILD = /* ]] || BUILD=$E2E_ROOT/$BUILD
BUDGET=$E2E_ROOT/test/budget/instructions.txt
PACKETS=${BUDGET_PACKETS:-200000}
MEASURE=$E2E_ROOT/scripts/lib/bench_instructions.sh
COSTS=$E2E_ROOT/scripts/lib/callgrind_costs.py
OUT=$BUILD/bench-instructions
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TRACED=$OUT/l3-v4-trace.json
rm -f "$TRACED"

budget_of() { awk -v m="$1" '$1 == m { print $2 }' "$BUDGET"; }
# field KEY LINE: KEY's value in callgrind_costs.py's key=value line.
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }

# measure NAME PROFILE ARGS...: the profile's costs line, or nothing on failure.
measure() {
  local name=$1 profile=$2; shift 2
  if ! "$MEASURE" --build "$BUILD" --packets "$PACKETS" "$@" >"$WORK/$name.out" 2>&1; then
    sed 's/^/    /' "$WORK/$name.out" | tail -5 >&2
    return
  fi
  /usr/bin/python3 "$COSTS" "$OUT/$profile.callgrind"
}

for entry in "patch:patch-v4:patch" "l2:l2-v4:l2" "l3:l3-v4:l3" "l3-v6:l3-v6:--ipv6 l3" \
    "l3-trace-off:l3-v4:--trace udp --trace-count 8 l3"; do
  IFS=: read -r mode profile spec <<<"$entry"
  read -ra args <<<"$spec"
  budget=$(budget_of "$mode")
  if [[ -z $budget ]]; then
    fail "$mode" "no budget in $BUDGET"
    continue
  fi
  costs=$(measure "$mode" "$profile" "${args[@]}")
  own=$(field own_per_packet "$costs")
  if [[ -z $own || $(field packets "$costs") -lt $PACKETS ]]; then
    fail "$mode" "no figure from $MEASURE (${costs:-nothing})"
    continue
  fi
  limit=$(awk -v b="$budget" 'BEGIN { printf "%.2f", b * 1.01 }')
  check "$mode: $own own instructions a packet ($(field per_packet "$costs") with the drivers), budget $budget (fails over $limit)" \
    awk -v s="$own" -v l="$limit" 'BEGIN { exit !(s <= l) }'
  if awk -v s="$own" -v b="$budget" 'BEGIN { exit !(s < b * 0.98) }'; then
    echo "note $mode: $own is more than 2% under its budget $budget: lower it in $BUDGET"
  fi
done
# The trace ran and ended itself: its 8 packets are there to show.
traced=$(grep -o '"packet": [0-9]*' "$TRACED" 2>/dev/null | sort -u | wc -l)
check "l3-trace-off: the trace ran, 8 packets traced ($traced)" test "$traced" = 8
summary
