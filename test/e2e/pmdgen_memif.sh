#!/usr/bin/env bash
# pmdgen through pmdfwd over memif (config/memif.toml, one adaptive worker):
# a short run at a low rate reorders and duplicates nothing, its latency
# figures are present and ordered, and pmdgen's counts agree with pmdctl's
# (what it lost is what pmdfwd dropped, by reason); a run at full speed
# accounts for every packet (received + lost == sent). Both leave every pool
# full. Nothing here asserts a rate or zero loss: on a busy host either
# process may be held off its CPU.
# Usage: pmdgen_memif.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
PMDGEN=$BUILD/app/pmdgen/pmdgen
ID=$(( $$ % 100000 ))
PREFIX=e2e-gen-$ID GEN_PREFIX=e2e-pmdgen-$ID
WORK=$(mktemp -d)
SOCK=$WORK/memif.sock
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  cleanup_dpdk_prefix "$PREFIX"; cleanup_dpdk_prefix "$GEN_PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" \
    -e "s|socket=/run/pmdfwd-memif.sock|socket=$SOCK|" \
    -e 's/^mode = "busy".*/mode = "adaptive"/' \
    "$E2E_ROOT/config/memif.toml" >"$WORK/cfg.toml"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail "start" "pmdfwd did not come up"; summary; exit 1
fi

gen() {
  "$PMDGEN" --tx "net_memif0,role=client,socket=$SOCK,id=0" \
    --rx "net_memif1,role=client,socket=$SOCK,id=1" --file-prefix "$GEN_PREFIX" --lcore 0 \
    --json "$@"
}

"$PMDCTL" --file-prefix "$PREFIX" clear stats >/dev/null
if gen --rate 5000 --duration 2 --flows 16 >"$WORK/low.jsonl" 2>"$WORK/low.err"; then
  pass "pmdgen ran at 5 kpps"
else
  fail "pmdgen ran at 5 kpps" "$(tail -3 "$WORK/low.err" | tr '\n' ' ')"
fi
low=$(tail -1 "$WORK/low.jsonl")
field() { json_get "$1" "$2"; }
sent=$(field "$low" 'd["sent"]')
check "the summary is the last line" test "$(field "$low" 'd["type"]')" = summary
check "interval reports came once a second ($(grep -c interval "$WORK/low.jsonl"))" \
  test "$(grep -c '"type":"interval"' "$WORK/low.jsonl")" -ge 1
# What the scheduler promises is accounting, not a rate: a starved pmdgen
# sends fewer, a starved pmdfwd drops some (counted), never more than the
# rate allows and never one unaccounted for.
check "probes sent, never more than 5 kpps allows ($sent)" test "$sent" -gt 0 -a "$sent" -le 10001
low_lost=$(field "$low" 'd["lost"]')
check "every probe received or lost ($low_lost lost)" \
  test "$(field "$low" 'd["unique"] + d["lost"]')" -eq "$sent"
check "nothing reordered or duplicated" \
  test "$(field "$low" 'd["reordered"] + d["duplicates"]')" -eq 0
check "every probe received has a latency" \
  test "$(field "$low" 'd["latency"]["count"]')" -eq "$(field "$low" 'd["unique"]')"
check "latency: 0 < min <= avg <= max" test "$(field "$low" \
  '(lambda l: 0 < l["min_ns"] <= l["avg_ns"] <= l["max_ns"])(d["latency"])')" = True
check "the summary's histogram holds every probe, edges rising" test "$(field "$low" \
  'sum(d["latency"]["buckets"]) == d["latency"]["count"] and len(d["latency"]["le_ns"]) == len(d["latency"]["buckets"]) and all(a < b for a, b in zip(d["latency"]["le_ns"], d["latency"]["le_ns"][1:]))')" = True
check "delay variation is max - min" test "$(field "$low" \
  '(lambda l: abs(l["delay_variation_ns"] - (l["max_ns"] - l["min_ns"])) < 1)(d["latency"])')" = True
w=$("$PMDCTL" --file-prefix "$PREFIX" --json show workers)
fwd_rx=$(json_get "$w" 'd[0]["rx_pkts"]')
check "pmdfwd received what pmdgen sent ($fwd_rx of $sent)" test "$fwd_rx" -eq "$sent"
check "what pmdgen lost is what pmdfwd dropped ($low_lost)" \
  test "$(json_get "$w" 'd[0]["drops"]')" -eq "$low_lost"

"$PMDCTL" --file-prefix "$PREFIX" clear stats >/dev/null
if gen --duration 1 --interval 0 >"$WORK/full.jsonl" 2>"$WORK/full.err"; then
  pass "pmdgen ran at full speed"
else
  fail "pmdgen ran at full speed" "$(tail -3 "$WORK/full.err" | tr '\n' ' ')"
fi
full=$(tail -1 "$WORK/full.jsonl")
check "full speed moved packets ($(field "$full" 'd["sent"]'))" \
  test "$(field "$full" 'd["sent"]')" -gt 0
# What pmdgen counts and what pmdfwd counts agree exactly: every probe sent
# reached pmdfwd; what it transmitted came back, once each; what it dropped
# (its memif TX ring full) is what pmdgen lost.
w=$("$PMDCTL" --file-prefix "$PREFIX" --json show workers)
check "pmdfwd received every probe sent ($(json_get "$w" 'd[0]["rx_pkts"]'))" \
  test "$(json_get "$w" 'd[0]["rx_pkts"]')" -eq "$(field "$full" 'd["sent"]')"
check "pmdgen received what pmdfwd transmitted, no duplicates" \
  test "$(json_get "$w" 'd[0]["tx_pkts"]')" -eq "$(field "$full" 'd["received"]')" \
  -a "$(field "$full" 'd["received"]')" -eq "$(field "$full" 'd["unique"]')"
check "pmdgen's loss is pmdfwd's drops ($(field "$full" 'd["lost"]'))" \
  test "$(json_get "$w" 'd[0]["drops"]')" -eq "$(field "$full" 'd["lost"]')"

stop_pmdfwd "$PMDFWD_PID" TERM; rc=$?
check "SIGTERM exits 0" test "$rc" -eq 0
check "pools full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
summary
