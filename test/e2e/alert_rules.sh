#!/usr/bin/env bash
# The Prometheus alerting rules (config/prometheus/pmdfwd.rules.yml):
# promtool checks them and runs their tests (series that fire each alert and
# series that must not), and every pmdfwd metric they name is one the
# exporter makes (pmdctl metrics), so that the rules cannot drift from it.
# Usage: alert_rules.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
RULES=$E2E_ROOT/config/prometheus
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

check "promtool check rules: the rules parse" promtool check rules "$RULES/pmdfwd.rules.yml"
check "promtool test rules: each alert fires on its series and not on the others" \
  bash -c "cd '$RULES' && promtool test rules pmdfwd.rules.test.yml"
"$BUILD/app/pmdctl/pmdctl" metrics >"$WORK/metrics.txt" 2>&1
grep -oE 'pmdfwd_[a-z_]+' "$RULES/pmdfwd.rules.yml" | sort -u >"$WORK/named.txt"
missing=$(while read -r m; do grep -q "^$m " "$WORK/metrics.txt" || echo "$m"; done <"$WORK/named.txt")
check "every metric the rules name is exported ($(wc -l <"$WORK/named.txt") named${missing:+; missing: $missing})" \
  test -z "$missing"
# Every alert has a test that fires it.
alerts=$(grep -oE 'alert: [A-Za-z]+' "$RULES/pmdfwd.rules.yml" | cut -d' ' -f2 | sort -u)
untested=$(for a in $alerts; do grep -q "alertname: $a$" "$RULES/pmdfwd.rules.test.yml" || echo "$a"; done)
check "every alert is tested${untested:+ (not: $untested)}" test -z "$untested"
summary
