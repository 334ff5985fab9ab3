# Result bookkeeping for the end-to-end scripts: one PASS/FAIL line per check
# and the closing "N passed, N failed" line that scripts/test adds up.
E2E_PASSED=0
E2E_FAILED=0

pass() { echo "PASS $1"; E2E_PASSED=$((E2E_PASSED + 1)); }
fail() { echo "FAIL $1: $2"; E2E_FAILED=$((E2E_FAILED + 1)); }

# check NAME CONDITION-COMMAND...: runs the command, PASS if it succeeds.
check() {
  local name=$1; shift
  if "$@"; then pass "$name"; else fail "$name" "'$*' was false"; fi
}

summary() {
  echo "$E2E_PASSED passed, $E2E_FAILED failed"
  ((E2E_FAILED == 0))
}

# json_get JSON PYTHON-EXPR: evaluates an expression over parsed JSON `d`.
json_get() { /usr/bin/python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/lib/netns.sh
source "$E2E_ROOT/scripts/lib/netns.sh"
