#!/usr/bin/python3
"""Rewrites the generated parts of the docs from a build's pmdctl: the
"Telemetry commands" table, the column tables of show workers and show
pools, and the "Record fields" tables of docs/cli.md (pmdctl endpoints
--markdown, pmdctl fields --columns, pmdctl fields --markdown) and the
metrics reference of docs/operations.md (pmdctl metrics --markdown). The
unit tests hold the docs to the same output.
Usage: scripts/lib/regen_docs.py [BUILD_DIR]"""
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[2]
pmdctl = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else root / "build") / "app/pmdctl/pmdctl"


def generated(*args):
    return subprocess.run([str(pmdctl), *args], check=True, capture_output=True, text=True).stdout


def replace(path, start_marker, text, end_marker="\n## "):
    """Replaces from start_marker to end_marker (or the file's end)."""
    doc = (root / path).read_text()
    start = doc.index(start_marker)
    end = doc.find(end_marker, start)
    tail = doc[end:] if end != -1 else "\n"
    (root / path).write_text(doc[:start] + text.rstrip("\n") + "\n" + tail)


replace("docs/cli.md", "| command | parameter | returns |", generated("endpoints", "--markdown"),
        "\nThe stock DPDK commands")
replace("docs/cli.md", "### info: `/pmdfwd/info`", generated("fields", "--markdown"),
        "\nA histogram field (`residence`")
for name in ("show workers", "show workers: time", "show pools"):
    marker = f"<!-- pmdctl fields --columns '{name}' -->\n"
    doc = (root / "docs/cli.md").read_text()
    start = doc.index(marker) + len(marker)
    end = start
    while doc.startswith("|", end) or doc.startswith("\n", end):
        end = doc.index("\n", end) + 1
    (root / "docs/cli.md").write_text(doc[:start] + generated("fields", "--columns", name) +
                                      "\n" + doc[end:])
replace("docs/operations.md", "### info (/pmdfwd/info)", generated("metrics", "--markdown"))
