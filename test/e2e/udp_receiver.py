#!/usr/bin/python3
"""A plain kernel UDP socket, as a netconsole receiver uses: binds PORT and
writes each datagram to OUT as one JSON line {"payload": text}, until killed."""
import json
import socket
import sys


def main() -> int:
    port, out = int(sys.argv[1]), sys.argv[2]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # FORCE: past net.core.rmem_max (root), so a burst of records is not lost here.
    so_rcvbufforce = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux value
    sock.setsockopt(socket.SOL_SOCKET, so_rcvbufforce, 4 << 20)
    sock.bind(("0.0.0.0", port))
    with open(out, "a", buffering=1) as f:
        f.write(json.dumps({"ready": True}) + "\n")
        while True:
            data, _ = sock.recvfrom(65535)
            f.write(json.dumps({"payload": data.decode("latin-1")}) + "\n")


if __name__ == "__main__":
    sys.exit(main())
