# Shell helpers shared by the end-to-end tests and the demo: network
# namespaces joined through pmdfwd's net_tap ports, and pmdfwd start/stop.
# Source it; every helper takes explicit names so runs never collide.

# wait_for_file PATH SECONDS
wait_for_file() {
  local path=$1 deadline=$((SECONDS + $2))
  while [[ ! -e $path ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# telemetry_socket PREFIX
telemetry_socket() { echo "/var/run/dpdk/$1/dpdk_telemetry.v2"; }

# start_pmdfwd BINARY CONFIG PREFIX LOG: starts pmdfwd in the background, sets
# PMDFWD_PID, and waits until its telemetry socket exists and the log says it
# is running.
start_pmdfwd() {
  local bin=$1 config=$2 prefix=$3 log=$4
  # Emptied here, not by the redirection alone: the background job opens
  # the file when it gets the CPU, and until then a restart's wait below
  # would read the previous instance's "running:".
  : >"$log"
  "$bin" --config "$config" >"$log" 2>&1 &
  PMDFWD_PID=$!
  local deadline=$((SECONDS + 30))
  until grep -q "running:" "$log" 2>/dev/null; do
    if ! kill -0 "$PMDFWD_PID" 2>/dev/null || ((SECONDS >= deadline)); then
      echo "pmdfwd did not start; log:" >&2
      tail -20 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  wait_for_file "$(telemetry_socket "$prefix")" 10
}

# stop_pmdfwd PID [SIGNAL]: signals pmdfwd and waits; returns its exit code.
stop_pmdfwd() {
  local pid=$1 sig=${2:-TERM} rc=0
  kill -"$sig" "$pid" 2>/dev/null || return 0
  local deadline=$((SECONDS + 20))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 124
  fi
  wait "$pid" || rc=$?
  return $rc
}

# wait_for_link IFACE SECONDS: the tap interface pmdfwd creates.
wait_for_link() {
  local deadline=$((SECONDS + $2))
  until ip link show "$1" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# ns_attach NS IFACE ADDR/PREFIX: moves a tap interface into a new namespace
# and brings it up with an address; IPv6 is disabled there so that only the
# traffic a test sends crosses pmdfwd.
ns_attach() {
  local ns=$1 ifc=$2 addr=$3
  ip netns add "$ns"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip link set "$ifc" netns "$ns"
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$addr" dev "$ifc"
  ip -n "$ns" link set "$ifc" up
}

# ns_attach_dual NS IFACE ADDR4/LEN ADDR6/LEN GW4 GW6: moves a tap interface
# into a new namespace as a dual-stack host whose default routes go through
# pmdfwd (router mode); no DAD and no router advertisements, so addresses
# work at once and only the test's routes count.
ns_attach_dual() {
  local ns=$1 ifc=$2
  ip netns add "$ns"
  ip link set "$ifc" netns "$ns"
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
    "net.ipv6.conf.$ifc.accept_dad=0" net.ipv6.conf.all.accept_ra=0
  ip -n "$ns" addr add "$3" dev "$ifc"
  ip -n "$ns" addr add "$4" dev "$ifc" nodad
  ip -n "$ns" link set "$ifc" up
  ip -n "$ns" route add default via "$5"
  ip -n "$ns" -6 route add default via "$6"
}

# ns_remove NS...: ends every process left in each namespace, then deletes it;
# quiet about namespaces that do not exist, and safe under set -e -o pipefail.
ns_remove() {
  local ns
  for ns in "$@"; do
    { ip netns pids "$ns" 2>/dev/null || true; } | xargs -r kill -KILL
    ip netns del "$ns" 2>/dev/null || true
  done
}

# ns_iface_counter NS IFACE rx_packets|tx_packets|...: kernel counter of an interface.
ns_iface_counter() {
  ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}

# cleanup_dpdk_prefix PREFIX
cleanup_dpdk_prefix() { rm -rf "/var/run/dpdk/$1"; }
