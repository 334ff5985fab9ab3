#!/usr/bin/python3
"""Plays systemd's side of the notify protocol for a test: binds a datagram
socket at PATH and appends every message it receives to LOG as
"<monotonic seconds> <message with newlines as |>", until killed."""
import os
import socket
import sys
import time

path, log = sys.argv[1], sys.argv[2]
if os.path.exists(path):
    os.unlink(path)
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
with open(log, "a", buffering=1) as out:
    out.write("%.3f listening\n" % time.monotonic())
    while True:
        data = sock.recv(4096)
        out.write("%.3f %s\n" % (time.monotonic(), data.decode(errors="replace").replace("\n", "|")))
