#!/usr/bin/env bash
# pmdgen through pmdfwd over memif (config/memif.toml, one adaptive worker):
# a short run at a low rate loses, reorders and duplicates nothing, its
# latency figures are present and ordered, and pmdgen's counts agree with
# pmdctl's; a run at full speed moves millions of packets and accounts for
# every one (received + lost == sent). Both leave every pool full.
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
check "about 10000 probes sent in 2 s ($sent)" test "$sent" -ge 9800 -a "$sent" -le 10001
check "nothing lost" test "$(field "$low" 'd["lost"]')" -eq 0
check "nothing reordered or duplicated" \
  test "$(field "$low" 'd["reordered"] + d["duplicates"]')" -eq 0
check "every probe has a latency" test "$(field "$low" 'd["latency"]["count"]')" -eq "$sent"
check "latency: 0 < min <= avg <= max < 1 s" test "$(field "$low" \
  '(lambda l: 0 < l["min_ns"] <= l["avg_ns"] <= l["max_ns"] < 1e9)(d["latency"])')" = True
check "the summary's histogram holds every probe, edges rising" test "$(field "$low" \
  'sum(d["latency"]["buckets"]) == d["latency"]["count"] and len(d["latency"]["le_ns"]) == len(d["latency"]["buckets"]) and all(a < b for a, b in zip(d["latency"]["le_ns"], d["latency"]["le_ns"][1:]))')" = True
check "delay variation is max - min" test "$(field "$low" \
  '(lambda l: abs(l["delay_variation_ns"] - (l["max_ns"] - l["min_ns"])) < 1)(d["latency"])')" = True
fwd_rx=$(json_get "$("$PMDCTL" --file-prefix "$PREFIX" --json show workers)" 'd[0]["rx_pkts"]')
check "pmdfwd forwarded what pmdgen sent ($fwd_rx of $sent)" test "$fwd_rx" -eq "$sent"

"$PMDCTL" --file-prefix "$PREFIX" clear stats >/dev/null
if gen --duration 1 --interval 0 >"$WORK/full.jsonl" 2>"$WORK/full.err"; then
  pass "pmdgen ran at full speed"
else
  fail "pmdgen ran at full speed" "$(tail -3 "$WORK/full.err" | tr '\n' ' ')"
fi
full=$(tail -1 "$WORK/full.jsonl")
check "full speed moved over 100k packets ($(field "$full" 'd["sent"]'))" \
  test "$(field "$full" 'd["sent"]')" -gt 100000
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
