#!/usr/bin/python3
"""A callgrind profile of a forwarding loop, split into the drivers' share
and the program's own, per packet.

- total: every instruction the profile holds (its "totals:" line), which is
  the loop's when callgrind ran with --toggle-collect on it, or one
  thread's with --separate-threads=yes;
- drivers: the inclusive cost of every call from outside the port drivers'
  objects (librte_net_pcap, librte_net_null) into them: their burst
  functions with all they call (mempool, libc, the dynamic linker's TLS
  lookup). Measured in the run, so a driver's cost is never assumed;
- packets: the calls the sink driver (net_null) makes to __tls_get_addr:
  one a packet, behind the rte_lcore_id() of the mempool put that frees
  each packet it is given (DPDK 22.11);
- own: total - drivers.

    callgrind_costs.py FILE...   prints one line per file:
    total=.. drivers=.. own=.. packets=.. per_packet=.. drivers_per_packet=.. own_per_packet=..
"""
import re
import sys

DRIVER_OBJECTS = ("librte_net_pcap.so", "librte_net_null.so")
SINK_OBJECT = "librte_net_null.so"
PER_PACKET_CALLEE = "__tls_get_addr"

_NAMED = re.compile(r"^\((\d+)\)(?: (.*))?$")


class Names:
    """callgrind's name compression: "(id) name" defines, "(id)" refers."""

    def __init__(self):
        self.by_id = {}

    def resolve(self, text: str) -> str:
        m = _NAMED.match(text)
        if not m:
            return text
        if m.group(2) is not None:
            self.by_id[m.group(1)] = m.group(2)
            return m.group(2)
        return self.by_id.get(m.group(1), text)


def is_driver(obj: str) -> bool:
    return any(d in obj for d in DRIVER_OBJECTS)


def cost_of(line: str, positions: int) -> int:
    """The Ir of a cost line (POSITIONS columns of position, then Ir; a
    missing value is 0)."""
    parts = line.split()
    return int(parts[positions]) if len(parts) > positions else 0


class Profile:
    def __init__(self, path: str):
        self.total = 0
        self.drivers = 0
        self.packets = 0
        self._read(path)

    def _read(self, path: str):
        objs, fns = Names(), Names()
        ob = fn = ""
        cob = cfn = None
        call_pending = False
        totals = None
        positions = 1  # "positions: line"; --dump-instr=yes adds instr
        with open(path, errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\n")
                if call_pending:
                    # The line after calls= holds the call's inclusive cost.
                    call_pending = False
                    callee_ob = cob if cob is not None else ob
                    if is_driver(callee_ob) and not is_driver(ob):
                        self.drivers += cost_of(line, positions)
                    cob = cfn = None
                    continue
                if not line or line[0] in "#":
                    continue
                if line.startswith("positions:"):
                    positions = len(line.split()) - 1
                    continue
                key, sep, value = line.partition("=")
                if sep:
                    if key == "ob":
                        ob = objs.resolve(value)
                    elif key == "cob":
                        cob = objs.resolve(value)
                    elif key == "fn":
                        fn = fns.resolve(value)
                    elif key == "cfn":
                        cfn = fns.resolve(value)
                    elif key == "calls":
                        call_pending = True
                        if SINK_OBJECT in ob and cfn == PER_PACKET_CALLEE:
                            self.packets += int(value.split()[0])
                    continue
                if line.startswith(("totals:", "summary:")):
                    value = int(line.split()[1])
                    if line.startswith("totals:") or totals is None:
                        totals = value
        self.total = totals or 0

    @property
    def own(self) -> int:
        return self.total - self.drivers

    def line(self) -> str:
        p = max(self.packets, 1)
        return (f"total={self.total} drivers={self.drivers} own={self.own} packets={self.packets} "
                f"per_packet={self.total / p:.2f} drivers_per_packet={self.drivers / p:.2f} "
                f"own_per_packet={self.own / p:.2f}")


def main(argv) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    for path in argv:
        print(Profile(path).line())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
