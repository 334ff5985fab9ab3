#!/usr/bin/env bash
# The Prometheus endpoint end to end: pmdfwd forwarding on net_null ports
# with [control] metrics; a scrape passes `promtool check metrics`; a real
# Prometheus server scrapes it, and what its HTTP API answers for the
# forwarded packets lies between two `pmdctl --json stats` read around the
# sample; a `clear stats` does not move Prometheus's counters back; clients
# that send half a request do not hold scrapes up; a client outside
# metrics_allow gets 403; an address in use fails the start; the pools are
# audited full at the end.
# Usage: metrics.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
PREFIX=e2e-metrics-$$
read -r PORT PROM_PORT < <(free_tcp_ports 2)
WORK=$(mktemp -d)
PROM_PID=
cleanup() {
  local pid
  for pid in ${PMDFWD_PID:-} ${MAIN_PID:-} ${C_PID:-} ${PROM_PID:-}; do kill -KILL "$pid" 2>/dev/null; done
  cleanup_dpdk_prefix "$PREFIX"; cleanup_dpdk_prefix "$PREFIX-b"; cleanup_dpdk_prefix "$PREFIX-c"
  rm -rf "$WORK"
}
trap cleanup EXIT

sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" "$E2E_ROOT/config/null-patch.toml" >"$WORK/cfg.toml"
cat >>"$WORK/cfg.toml" <<EOF

[control]
metrics = "127.0.0.1:$PORT"
metrics_allow = ["127.0.0.0/8", "::1/128"]
EOF
sed -i 's/^\[forward\]$/[forward]\nlatency = true/' "$WORK/cfg.toml"
if ! start_pmdfwd "$PMDFWD" "$WORK/cfg.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  fail start "pmdfwd did not come up"
  summary; exit 1
fi
pass start
MAIN_PID=$PMDFWD_PID
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }
rx_pkts() { json_get "$(ctl --json stats)" 'd["rx_pkts"]'; }

# One scrape, checked by Prometheus's own linter.
curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/scrape.txt"
check "scrape answers" test -s "$WORK/scrape.txt"
check "promtool check metrics: no problem" bash -c "promtool check metrics <'$WORK/scrape.txt' >'$WORK/promtool.log' 2>&1 && ! test -s '$WORK/promtool.log'"
check "pmdfwd_up 1" grep -qx "pmdfwd_up 1" "$WORK/scrape.txt"
check "HELP from the field table" grep -q "^# HELP pmdfwd_worker_rx_packets_total packets received from its rx queue" "$WORK/scrape.txt"
check "per-worker counters with worker, port, queue" grep -qE '^pmdfwd_worker_rx_packets_total\{worker="1",port="p1",queue="0"\} [0-9.e+]+$' "$WORK/scrape.txt"
check "drops by reason" grep -q 'pmdfwd_worker_drops_packets_total{worker="0",port="p0",queue="0",reason="tx_full"}' "$WORK/scrape.txt"
check "residence histogram with +Inf" grep -qE '^pmdfwd_latency_residence_seconds_bucket\{worker="0",port="p0",queue="0",le="\+Inf"\} [1-9]' "$WORK/scrape.txt"
check "pool and port families" bash -c "grep -q '^pmdfwd_pool_in_use_mbufs{pool=' '$WORK/scrape.txt' && grep -q '^pmdfwd_port_opackets_total{port=\"p1\"}' '$WORK/scrape.txt'"
check "info sample" grep -q '^pmdfwd_info{version=.*mode="patch"' "$WORK/scrape.txt"

# A real Prometheus server scraping every second.
cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: pmdfwd
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
EOF
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
api() { curl -sf --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"; }
# The newest sample of an expression and its timestamp: "<ts> <value>", or
# nothing while Prometheus has none.
sample() {
  local out
  out=$(api "$1") || return 1
  json_get "$out" '" ".join([d["data"]["result"][0]["value"][0].__str__(), d["data"]["result"][0]["value"][1]]) if d["data"]["result"] else ""'
}
# newest_after EXPR T: waits for a sample scraped after T (epoch seconds);
# prints "<scraped at> <value>".
newest_after() {
  local expr=$1 after=$2 deadline=$((SECONDS + 60)) s
  while ((SECONDS < deadline)); do
    s=$(sample "timestamp($expr)") && v=$(sample "$expr") && [[ -n $s && -n $v ]] &&
      /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "${s#* }" "$after" &&
      { echo "${s#* } ${v#* }"; return 0; }
    sleep 0.5
  done
  return 1
}

before=$(rx_pkts)
t0=$(date +%s.%N)
got=$(newest_after pmdfwd_stats_rx_packets_total "$t0")
after=$(rx_pkts)
check "Prometheus scraped pmdfwd" test -n "$got"
value=${got#* }
echo "pmdctl before: $before; Prometheus (scraped at ${got%% *}): $value; pmdctl after: $after"
check "Prometheus's rx_packets_total lies between pmdctl stats read before and after" \
  /usr/bin/python3 -c "import sys; b, v, a = map(float, sys.argv[1:]); sys.exit(0 if b <= v <= a and v > 0 else 1)" "$before" "$value" "$after"
up=$(sample 'up{job="pmdfwd"}')
check "Prometheus sees the target up" test "${up#* }" = 1
workers=$(sample 'count(pmdfwd_worker_rx_packets_total)')
check "both workers' series in Prometheus" test "${workers#* }" = 2
# rate() needs two samples in its window: wait for them.
p99=
deadline=$((SECONDS + 30))
while [[ -z ${p99#* } || ${p99#* } == NaN ]] && ((SECONDS < deadline)); do
  sleep 0.5
  p99=$(sample 'histogram_quantile(0.99, sum by (le) (rate(pmdfwd_latency_residence_seconds_bucket[10s])))')
done
echo "p99 residence time from Prometheus: ${p99#* } s"
check "p99 residence time from the histogram is a positive number of seconds" \
  /usr/bin/python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 0 < v < 1 else 1)" "${p99#* }"

# A clear rebases pmdctl, never Prometheus.
ctl clear stats >/dev/null
t1=$(date +%s.%N)
got2=$(newest_after pmdfwd_stats_rx_packets_total "$t1")
cleared=$(rx_pkts)
check "after clear stats, Prometheus's counter did not go back" \
  /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "${got2#* }" "$value"
check "after clear stats, pmdctl counts from the clear" \
  /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$cleared" "${got2#* }"
resets=$(sample 'resets(pmdfwd_stats_rx_packets_total[1m])')
check "no counter reset seen by Prometheus" test "${resets#* }" = 0

# Clients that send half a request and stop: each holds one of the
# endpoint's threads until its read deadline, never every scrape.
exec 7<>"/dev/tcp/127.0.0.1/$PORT" 8<>"/dev/tcp/127.0.0.1/$PORT"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&7
printf 'GET /met' >&8
check "a scrape is answered beside two half-sent requests" \
  bash -c "curl -sf -m 10 http://127.0.0.1:$PORT/metrics | grep -q '^pmdfwd_up 1'"
exec 7>&- 8>&-

# A client outside metrics_allow: 403 and nothing else; pmdctl unaffected.
sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX-c\"/" -e "s/^metrics = .*/metrics = \"127.0.0.1:$((PORT + 2))\"/" \
    -e 's|^metrics_allow = .*|metrics_allow = ["10.0.0.0/8"]|' "$WORK/cfg.toml" >"$WORK/cfg-c.toml"
if start_pmdfwd "$PMDFWD" "$WORK/cfg-c.toml" "$PREFIX-c" "$WORK/pmdfwd-c.log"; then
  C_PID=$PMDFWD_PID
  code=$(curl -s -o "$WORK/refused.txt" -w '%{http_code}' "http://127.0.0.1:$((PORT + 2))/metrics")
  check "metrics_allow: a client outside it gets 403 (got $code)" test "$code" = 403
  check "metrics_allow: and no metric" bash -c "! grep -q pmdfwd_ '$WORK/refused.txt'"
  check "metrics_allow: the refusal is logged" grep -q "refused a scrape from 127.0.0.1" "$WORK/pmdfwd-c.log"
  rc=0; stop_pmdfwd "$C_PID" TERM || rc=$?
  check "metrics_allow: stops with exit 0" test "$rc" = 0
else
  fail "metrics_allow: start" "pmdfwd did not come up"
fi
PMDFWD_PID=$MAIN_PID C_PID=

# The same address a second time: a clear error and exit 1, before any port.
sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX-b\"/" "$WORK/cfg.toml" >"$WORK/cfg-b.toml"
rc=0
timeout 60 "$PMDFWD" --config "$WORK/cfg-b.toml" >"$WORK/second.log" 2>&1 || rc=$?
check "address in use: exit 1" test "$rc" = 1
check "address in use: says which" grep -q "\[control\] metrics: cannot listen on 127.0.0.1:$PORT" "$WORK/second.log"

kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null; PROM_PID=
rc=0
stop_pmdfwd "$PMDFWD_PID" TERM || rc=$?
PMDFWD_PID=
check "stops with exit 0" test "$rc" = 0
check "pools full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
summary
