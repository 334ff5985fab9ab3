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

# same_text FILE-A FILE-B: true when the two are equal; otherwise shows how
# they differ, so that a failure says what changed.
same_text() {
  cmp -s "$1" "$2" && return 0
  diff -u "$1" "$2" | head -40 >&2
  return 1
}

# summary: the closing line; after a failure, first the end of every log in
# $WORK (pmdfwd's own among them), which the test's cleanup then deletes.
summary() {
  if ((E2E_FAILED)) && [[ -n ${WORK:-} ]]; then
    local f
    for f in "$WORK"/*.log "$WORK"/*.err; do
      [[ -s $f ]] || continue
      echo "--- last lines of $(basename "$f")"
      tail -25 "$f"
    done
  fi
  echo "$E2E_PASSED passed, $E2E_FAILED failed"
  ((E2E_FAILED == 0))
}

# json_get JSON PYTHON-EXPR: evaluates an expression over parsed JSON `d`.
json_get() { /usr/bin/python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }

# The log channel's tests (netlog.sh, syslog.sh), which define received
# PATTERN (their checker's KEY=VALUE lines for the records matching it):
# telemetry REQUEST answers one request of the pmdfwd on $PREFIX; field KEY
# reads a value of received's output; wait_received PATTERN [COUNT] waits
# until COUNT (1) records match, at most 30 s, for a loaded host.
telemetry() { printf '%s\n' "$1" | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | grep -F "\"${1%%,*}\""; }
field() { sed -n "s/^$1=//p"; }
wait_received() {
  for _ in $(seq 150); do
    [[ $(received "$1" | field matching) -ge ${2:-1} ]] && return 0
    sleep 0.2
  done
  return 1
}

# crash_pmdfwd: SIGSEGV to the pmdfwd of start_pmdfwd (its real pid: a
# wrapper such as GNU timeout would not pass the signal on); checks that it
# dies of it, as it does with its crash handler.
crash_pmdfwd() {
  local rc=0
  kill -SEGV "$PMDFWD_PID"
  wait "$PMDFWD_PID" || rc=$?
  PMDFWD_PID=
  check "pmdfwd died of SIGSEGV (exit $rc)" test "$rc" -eq 139
}

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# l3_tap_port NAME IFACE ADDR4/LEN ADDR6/LEN [LINE...]: a [[port]] table of a
# router-mode config on a net_tap device, then any further key lines.
l3_tap_port() {
  local name=$1 ifc=$2 a4=$3 a6=$4; shift 4
  printf '\n[[port]]\nname = "%s"\ndevargs = "net_tap_%s,iface=%s"\naddresses = ["%s", "%s"]\n' \
    "$name" "$ifc" "$ifc" "$a4" "$a6"
  local line
  for line in "$@"; do echo "$line"; done
}

# kernel_rig TAG [BUILD_DIR]: the names of one run of a kernel test
# (kernel_interface.sh, kernel_routes.sh, bgp.sh, ecmp.sh), each carrying
# this run's id: BUILD, PMDFWD, PMDCTL, ID, PREFIX (e2e-<tag>-<id>), WORK (a
# temporary folder), the namespaces NS and their tap interfaces IF
# (<tag>a<id>, <tag>b<id>), the kernel interfaces KI (<tag>0x<id>, ...).
kernel_rig() {
  BUILD=${2:-$E2E_ROOT/build}
  PMDFWD=$BUILD/app/pmdfwd/pmdfwd
  PMDCTL=$BUILD/app/pmdctl/pmdctl
  ID=$(( $$ % 100000 ))
  PREFIX=e2e-$1-$ID
  WORK=$(mktemp -d)
  NS=("$1a$ID" "$1b$ID")
  IF=("${NS[@]}")
  KI=("$1""0x$ID" "$1""1x$ID")
}

# kernel_rig_start CONFIG: pmdfwd started on CONFIG (PMDFWD_PID), its ports'
# links up and each namespace attached to its tap, host 2 of the port's
# subnets (v4 and v6) with the router as its gateway; exits the test if
# pmdfwd does not come up.
kernel_rig_start() {
  if ! start_pmdfwd "$PMDFWD" "$1" "$PREFIX" "$WORK/pmdfwd.log"; then
    fail "start" "pmdfwd did not come up"; summary; exit 1
  fi
  local n
  for n in 0 1; do
    wait_for_link "${IF[$n]}" 10
    ns_attach_dual "${NS[$n]}" "${IF[$n]}" "$(v4 $n 2)/24" "$(v6 $n 2)/64" "$(v4 $n 1)" "$(v6 $n 1)"
  done
}

# kernel_rig_config PREFIX [L3-LINE...]: the router-mode config of the kernel
# tests (kernel_interface.sh, kernel_routes.sh, bgp.sh): two workers on
# three lcores, adaptive, tap ports p0 and p1 on the subnets v4 and v6 give
# (each test defines them), on interfaces IF[n], with kernel interfaces
# KI[n]; the lines given make its [l3] table.
kernel_rig_config() {
  cat <<CFG
[eal]
lcores = "0@0,1@1,2@0"
memory_mb = 512
file_prefix = "$1"

[poll]
mode = "adaptive"

[pool]
mbufs = 16384

[forward]
mode = "l3"

[l3]
CFG
  shift
  printf '%s\n' "$@"
  local n
  for n in 0 1; do
    l3_tap_port "p$n" "${IF[$n]}" "$(v4 $n 1)/24" "$(v6 $n 1)/64" "kernel_interface = \"${KI[$n]}\""
  done
}

# routed_by_workers PMDCTL PREFIX COMMAND...: COMMAND succeeds and the
# workers of pmdfwd (file prefix PREFIX) sent at least 2 packets meanwhile.
routed_by_workers() {
  local ctl=$1 prefix=$2 before after; shift 2
  before=$("$ctl" --file-prefix "$prefix" --json stats | json_get "$(cat)" 'd["tx_pkts"]')
  "$@" || return 1
  after=$("$ctl" --file-prefix "$prefix" --json stats | json_get "$(cat)" 'd["tx_pkts"]')
  ((after - before >= 2))
}

# route_listed ROUTE ORIGIN [VIA]: the running pmdfwd (PMDCTL, file prefix
# PREFIX) lists ROUTE with that origin (and gateways VIA) within 2 s.
route_listed() {
  local want="r['prefix'] == '$1' and r['origin'] == '$2'"
  [[ -z ${3:-} ]] || want+=" and r['via'] == '$3'"
  local _
  for _ in $(seq 20); do
    "$PMDCTL" --file-prefix "$PREFIX" --json show routes | json_get "$(cat)" \
      "exit(0 if any($want for r in d) else 1)" && return 0
    sleep 0.1
  done
  return 1
}

# route_gone ROUTE [TENTHS]: no route for ROUTE within TENTHS tenths of a
# second (default 20).
route_gone() {
  local _
  for _ in $(seq "${2:-20}"); do
    "$PMDCTL" --file-prefix "$PREFIX" --json show routes | json_get "$(cat)" \
      "exit(1 if any(r['prefix'] == '$1' for r in d) else 0)" && return 0
    sleep 0.1
  done
  return 1
}

# finish_pmdfwd: stops the running pmdfwd (PMDFWD_PID) with SIGTERM and
# checks that it exits 0 with every pool full ($WORK/pmdfwd.log).
finish_pmdfwd() {
  local rc=0
  stop_pmdfwd "$PMDFWD_PID" TERM || rc=$?
  PMDFWD_PID=
  check "stops with exit 0 (exit $rc)" test "$rc" = 0
  check "every pool full at shutdown" grep -q "pools full again at shutdown" "$WORK/pmdfwd.log"
}

# kernel_routes_match PMDCTL PREFIX TABLE DIR: pmdfwd (file prefix PREFIX)
# holds kernel table TABLE's unicast routes as its `kernel` routes, no more
# and no fewer; prints the count or a few of each difference.
kernel_routes_match() {
  ip -j route show table "$3" >"$4/kernel4.json"
  ip -j -6 route show table "$3" >"$4/kernel6.json"
  "$1" --file-prefix "$2" --json show routes >"$4/pmdfwd-routes.json"
  /usr/bin/python3 "$E2E_ROOT/test/e2e/compare_kernel_routes.py" "$4/kernel4.json" \
    "$4/kernel6.json" "$4/pmdfwd-routes.json"
}

# udp_flood NS ADDRESS SECONDS: from namespace NS, 64-byte UDP datagrams to
# ADDRESS port 9 as fast as one Python loop sends them, in the background
# (FLOOD_PID).
udp_flood() {
  ip netns exec "$1" /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + float(sys.argv[2])
while time.time() < end:
    for _ in range(200):
        s.sendto(b"x" * 64, (sys.argv[1], 9))' "$2" "$3" &
  FLOOD_PID=$!
}

# free_tcp_ports N: N distinct TCP ports nothing on 127.0.0.1 holds now, below
# the kernel's ephemeral range (32768 up), so that no client's connection
# takes one before the test's server binds it.
free_tcp_ports() {
  /usr/bin/python3 - "$1" <<'PYEOF'
import random, socket, sys
found = []
while len(found) < int(sys.argv[1]):
    port = random.randrange(10000, 32000)
    if port in found:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        found.append(port)
    except OSError:
        pass
    finally:
        s.close()
print(" ".join(map(str, found)))
PYEOF
}

# demo_config OUT PREFIX IF_L IF_R [SED-ARGS...]: config/demo.toml for one
# test run: its own file prefix and tap interfaces (devices net_tap_<iface>),
# no metrics endpoint, then any further sed expressions.
demo_config() {
  local out=$1 prefix=$2 if_l=$3 if_r=$4; shift 4
  # No metrics endpoint: runs of the tests must not contend for its port.
  sed -e "s/^file_prefix = .*/file_prefix = \"$prefix\"/" -e '/^metrics = /d' \
      -e "s/net_tap_demol,iface=pmd-demo-l/net_tap_$if_l,iface=$if_l/" \
      -e "s/net_tap_demor,iface=pmd-demo-r/net_tap_$if_r,iface=$if_r/" \
      "$@" "$E2E_ROOT/config/demo.toml" >"$out"
}
# shellcheck source=../../scripts/lib/netns.sh
source "$E2E_ROOT/scripts/lib/netns.sh"

# tap_rig PREFIX_TAG NS_TAG [BUILD_DIR]: the names of one run of a test that
# joins two namespaces through pmdfwd's tap ports, each carrying this run's
# id so runs never collide: BUILD, PMDFWD, PMDCTL, PREFIX (e2e-<tag>-<id>),
# NS_L/NS_R and IF_L/IF_R (<ns tag>l<id>, <ns tag>r<id>), WORK (a temporary
# folder). An EXIT trap kills a pmdfwd left in PMDFWD_PID and removes them.
tap_rig() {
  BUILD=${3:-$E2E_ROOT/build}
  PMDFWD=$BUILD/app/pmdfwd/pmdfwd
  PMDCTL=$BUILD/app/pmdctl/pmdctl
  local id=$(( $$ % 100000 ))
  PREFIX=e2e-$1-$id
  NS_L=$2l$id NS_R=$2r$id IF_L=$2l$id IF_R=$2r$id
  WORK=$(mktemp -d)
  trap tap_rig_cleanup EXIT
}
tap_rig_cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  ns_remove "$NS_L" "$NS_R"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
