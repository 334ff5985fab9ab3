#!/usr/bin/env bash
# Router mode's kernel interfaces end to end: two namespaces behind pmdfwd's
# tap ports p0 and p1, each port with a kernel interface in pmdfwd's own
# namespace (ki0, ki1). The kernel interface has the port's MAC, its
# addresses and link-local address, and a carrier that follows the port's
# link. A daemon on the box (iperf3, a UDP echo) talks to a host behind a
# port over IPv4 and IPv6 as through a kernel port: the kernel resolves the
# host through pmdfwd (copies of ARP and ND), its frames leave by the port.
# A link-scope group (224.0.0.9, ff02::9) reaches a socket on the kernel
# interface. A flood to the router's address is rate limited and counted,
# and forwarding between a and b goes on. On exit the interfaces are gone
# and every pool is full.
# Usage: kernel_interface.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
kernel_rig ki "${1:-}"
PY=/usr/bin/python3
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  [[ -z ${SERVER_PID:-} ]] || kill "$SERVER_PID" 2>/dev/null
  ns_remove "${NS[@]}"
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

v4() { echo "10.81.$1.$2"; }
v6() { echo "2001:db8:81:$1::$2"; }

# Two workers on two CPUs, adaptive: the control path's thread, the
# daemons and the namespaces' hosts need CPU too.
kernel_rig_config "$PREFIX" "kernel_rate_limit = 2000" "kernel_rate_burst = 200" >"$WORK/cfg.toml"

check "--check accepts kernel_interface" "$PMDFWD" --check --config "$WORK/cfg.toml"
kernel_rig_start "$WORK/cfg.toml"
ctl() { "$PMDCTL" --file-prefix "$PREFIX" "$@"; }

# The interface as the kernel sees it: the port's MAC, up, its addresses.
port_mac=$(ctl --json show ports | json_get "$(cat)" \
  'next(p["mac"] for p in d if p["name"] == "p0")' 2>/dev/null)
ki_mac=$(cat "/sys/class/net/${KI[0]}/address" 2>/dev/null)
check "the kernel interface exists with the port's MAC ($ki_mac = $port_mac)" \
  test -n "$ki_mac" -a "$ki_mac" = "$port_mac"
check "it holds the port's IPv4 address" \
  bash -c "ip -br addr show ${KI[0]} | grep -qw $(v4 0 1)/24"
check "it holds the port's IPv6 address" \
  bash -c "ip -6 addr show dev ${KI[0]} | grep -q 'inet6 2001:db8:81::1/64'"
check "it holds the link-local address of the port's MAC" \
  bash -c "ip -br addr show ${KI[0]} | grep -q fe80::"
carrier_is() {  # carrier_is IFACE 0|1 within 3 s
  for _ in $(seq 30); do
    [[ $(cat "/sys/class/net/$1/carrier" 2>/dev/null) == "$2" ]] && return 0
    sleep 0.1
  done
  return 1
}
check "its carrier is up while the port's link is" carrier_is "${KI[0]}" 1

ping_ok() {  # ping_ok NS [-6] ADDRESS
  local ns=$1; shift
  ip netns exec "$ns" ping -c 2 -i 0.2 -W 2 "$@" >>"$WORK/ping.txt" 2>&1
}
check "a -> b is routed by pmdfwd as before" ping_ok "${NS[0]}" "$(v4 1 2)"

# TCP to the router's address ends in the kernel: iperf3's server on the
# box, its client in a.
wait_listen() {  # wait_listen PORT: a local TCP listener on PORT
  for _ in $(seq 100); do ss -Hltn "sport = :$1" | grep -q . && return 0; sleep 0.1; done
  return 1
}
iperf_to() {  # iperf_to ADDRESS [-6]: iperf3 from a to the box's ADDRESS
  iperf3 -s -1 -B "$1" -p 5390 >"$WORK/iperf-s.txt" 2>&1 &
  SERVER_PID=$!
  wait_listen 5390 || return 1
  ip netns exec "${NS[0]}" iperf3 -c "$1" -p 5390 -t 1 -J >"$WORK/iperf.json" 2>&1
  local rc=$?
  wait "$SERVER_PID" 2>/dev/null; SERVER_PID=
  ((rc == 0)) || return 1
  json_get "$(cat "$WORK/iperf.json")" 'int(d["end"]["sum_received"]["bytes"])'
}
bytes=$(iperf_to "$(v4 0 1)")
check "TCP from a to a daemon on the box's IPv4 address (iperf3, $bytes bytes)" \
  test "${bytes:-0}" -gt 0
bytes=$(iperf_to "$(v6 0 1)")
check "TCP from a to a daemon on the box's IPv6 address (iperf3, $bytes bytes)" \
  test "${bytes:-0}" -gt 0
check "the kernel resolved a's host through pmdfwd (ARP)" \
  bash -c "ip neigh show $(v4 0 2) dev ${KI[0]} | grep -q lladdr"
check "the kernel resolved a's host through pmdfwd (ND)" \
  bash -c "ip neigh show $(v6 0 2) dev ${KI[0]} | grep -q lladdr"

# UDP the other way: the box sends to b's host through the kernel interface
# and b's echo answers; the kernel's own neighbour resolution again.
ip netns exec "${NS[1]}" $PY -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 5391)); s.settimeout(10)
data, peer = s.recvfrom(100); s.sendto(data, peer)' "$(v4 1 2)" &
SERVER_PID=$!
sleep 0.3
echo_reply=$($PY -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
for _ in range(3):
    s.sendto(b"hello from the box", (sys.argv[1], 5391))
    try:
        print(s.recvfrom(100)[0].decode()); break
    except socket.timeout:
        pass' "$(v4 1 2)" 2>&1)
wait "$SERVER_PID" 2>/dev/null; SERVER_PID=
check "UDP from the box to b's host and back through p1 ($echo_reply)" \
  test "$echo_reply" = "hello from the box"

# Link-scope groups: what a routing protocol's hello goes to reaches a
# socket on the kernel interface (224.0.0.9 and ff02::9, RIP's groups).
group_rx() {  # group_rx FAMILY GROUP: a datagram from a to GROUP, read on ki0
  $PY - "$1" "$2" "${KI[0]}" "${NS[0]}" "${IF[0]}" <<'PYEOF'
import socket, struct, subprocess, sys
family, group, ki, ns, ifc = sys.argv[1:]
v6 = family == "6"
af = socket.AF_INET6 if v6 else socket.AF_INET
r = socket.socket(af, socket.SOCK_DGRAM)
r.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
r.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, ki.encode())
index = socket.if_nametoindex(ki)
if v6:
    r.bind(("::", 5392))
    r.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                 socket.inet_pton(af, group) + struct.pack("@I", index))
else:
    r.bind(("0.0.0.0", 5392))
    # struct ip_mreqn: the group, any local address, the interface's index.
    r.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(group) + socket.inet_aton("0.0.0.0") + struct.pack("@i", index))
r.settimeout(1)
send = ("import socket,sys;v6=sys.argv[1]=='6';"
        "s=socket.socket(socket.AF_INET6 if v6 else socket.AF_INET,socket.SOCK_DGRAM);"
        "s.setsockopt(socket.SOL_SOCKET,socket.SO_BINDTODEVICE,sys.argv[3].encode());"
        "dst=(sys.argv[2],5392,0,socket.if_nametoindex(sys.argv[3])) if v6 else (sys.argv[2],5392);"
        "s.sendto(b'hello group',dst)")
for _ in range(5):
    subprocess.run(["ip", "netns", "exec", ns, "/usr/bin/python3", "-c", send, family, group, ifc])
    try:
        print(r.recvfrom(100)[0].decode()); break
    except socket.timeout:
        pass
PYEOF
}
check "a datagram to 224.0.0.9 reaches a socket on the kernel interface" \
  test "$(group_rx 4 224.0.0.9)" = "hello group"
check "a datagram to ff02::9 reaches a socket on the kernel interface" \
  test "$(group_rx 6 ff02::9)" = "hello group"

ctl --json show router >"$WORK/router.json" 2>&1
check "counted: packets handed to the kernel, frames it sent" \
  json_get "$(cat "$WORK/router.json")" \
  'exit(0 if d["kernel_delivered"] > 0 and d["kernel_sent"] > 0 else 1)'

# A flood to the router's address (UDP to a closed port, which only the
# kernel would answer): l3.kernel_rate_limit holds it, counted, while a
# still reaches b.
# The flood shares a's tap with the pings, whose queue drops what a starved
# pmdfwd (the suite runs beside a CPU hog) does not take in time: eight
# pings over the flood's two seconds, one answer enough.
udp_flood "${NS[0]}" "$(v4 0 1)" 2
sleep 0.3
check "a -> b is routed during a flood to the router's address" \
  ip netns exec "${NS[0]}" ping -c 8 -i 0.2 -W 2 "$(v4 1 2)"
wait "$FLOOD_PID" 2>/dev/null
ctl --json show router >"$WORK/router-flood.json" 2>&1
check "the flood was rate limited and counted (kernel_rate_limited)" \
  json_get "$(cat "$WORK/router-flood.json")" 'exit(0 if d["kernel_rate_limited"] > 0 else 1)'
check "after the flood, TCP to the box still works" \
  test "$(iperf_to "$(v4 0 1)")" -gt 0

# The carrier follows the port's link: the peer tap down, then up.
ip -n "${NS[1]}" link set "${IF[1]}" down
check "the kernel interface loses its carrier when the port's link goes down" \
  carrier_is "${KI[1]}" 0
ip -n "${NS[1]}" link set "${IF[1]}" up
check "and has it again when the link comes back" carrier_is "${KI[1]}" 1

finish_pmdfwd
check "the kernel interfaces are gone with pmdfwd" \
  bash -c "! ip link show ${KI[0]} >/dev/null 2>&1 && ! ip link show ${KI[1]} >/dev/null 2>&1"
summary
