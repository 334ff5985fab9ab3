#!/usr/bin/env python3
"""Man pages made from the tables the docs keep: pmdfwd.toml(5) from
docs/config.md's key tables, pmdctl(8) from docs/cli.md's command and
option tables (which the unit tests hold to pmdctl's command table),
pmdfwd(8) from its --help, docs/cli.md's signal table and docs/config.md's
exit codes, pmdgen(8) from its --help. So a page cannot say other than the
docs do. Standard library only.

Usage: make_man.py --docs DIR --pmdfwd BIN --pmdgen BIN --version V --out DIR
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

DATE = "2026"


def roff_text(text):
    """Markdown inline text as roff: code and bold in bold, links as their text."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = text.replace("\\|", "|")
    return text


def roff_line(text):
    """A line that starts with a dot or quote would be a request: guard it."""
    text = roff_text(text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def sections(md):
    """{heading: [lines]} for every ## and ### heading."""
    out, current = {}, None
    for line in md.splitlines():
        m = re.match(r"^#{2,3} (.*)$", line)
        if m:
            current = m.group(1).strip()
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def table_rows(lines):
    """The rows of the first markdown table in lines, cells stripped."""
    rows, started = [], False
    for line in lines:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                started = True
                continue
            if started:
                rows.append(cells)
        elif started:
            break
    return rows


def page(name, section, title, body):
    head = f'.TH {name.upper()} {section} "{DATE}" "pmdfwd {ARGS.version}" "{title}"\n'
    return head + body


def help_options(binary):
    """(option, text) pairs from a CLI11 --help."""
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    options, current = [], None
    for line in out.splitlines():
        m = re.match(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$", line)
        if m and not line.startswith("   "):
            current = [m.group(1).strip(), m.group(2) or ""]
            options.append(current)
        elif current and line.startswith("   "):
            current[1] = (current[1] + " " + line.strip()).strip()
    return options


def options_section(binary):
    body = ".SH OPTIONS\n"
    for opt, text in help_options(binary):
        body += f".TP\n.B {roff_text(opt)}\n{roff_line(text)}\n"
    return body


def config_page(config_md):
    secs = sections(config_md)
    body = (".SH NAME\npmdfwd.toml \\- configuration of the pmdfwd forwarding appliance\n"
            ".SH DESCRIPTION\nThe TOML file \\fBpmdfwd\\fR(8) reads (\\fB--config\\fR). "
            "Unknown keys are errors; an error names the file, line, column and key. "
            "\\fBpmdfwd --check --config\\fR \\fIFILE\\fR checks one. Each section below "
            "lists its keys: type, default, allowed values, meaning.\n")
    keys = 0
    for heading, lines in secs.items():
        if not heading.startswith("["):
            continue
        # key, type, default, [allowed,] meaning
        rows = [r if len(r) >= 5 else r[:3] + [""] + r[3:]
                for r in table_rows(lines) if len(r) >= 4 and r[0].startswith("`")]
        if not rows:
            continue
        body += f".SH {roff_text(heading.split()[0])}\n"
        for key, kind, default, allowed, meaning in (r[:5] for r in rows):
            keys += 1
            body += f".TP\n.B {roff_text(key.strip('`'))}\n"
            detail = kind + (f", default {default}" if default else "") + (
                f"; {allowed}" if allowed else "")
            body += roff_line(detail) + "\n.br\n" + roff_line(meaning) + "\n"
    exit_rows = table_rows(secs.get("Exit codes", []))
    body += ".SH EXIT STATUS\nOf \\fBpmdfwd\\fR with this file:\n"
    for code, meaning in exit_rows:
        body += f".TP\n.B {code}\n{roff_line(meaning)}\n"
    body += (".SH FILES\n.TP\n.I /etc/pmdfwd/pmdfwd.toml\nthe installed config\n"
             ".SH SEE ALSO\n\\fBpmdfwd\\fR(8), \\fBpmdctl\\fR(8)\n")
    return page("pmdfwd.toml", 5, "File formats", body), keys


def pmdctl_page(cli_md):
    secs = sections(cli_md)
    lines = cli_md.splitlines()
    commands = table_rows(lines[lines.index("# pmdctl: command reference"):])
    body = (".SH NAME\npmdctl \\- query and control a running pmdfwd\n"
            ".SH SYNOPSIS\n.B pmdctl\n[\\fB-f\\fR|\\fB--file-prefix\\fR \\fIPREFIX\\fR] "
            "[\\fB--json\\fR] \\fICOMMAND\\fR\n"
            ".SH DESCRIPTION\n\\fBpmdctl\\fR asks a running \\fBpmdfwd\\fR(8) questions and "
            "sends it commands over the DPDK telemetry socket. It prints tables for people "
            "and, with \\fB--json\\fR, the raw records for scripts.\n.SH OPTIONS\n")
    for opt, default, meaning in table_rows(secs["Global options"]):
        body += f".TP\n.B {roff_text(opt)}\n{roff_line(meaning)}"
        body += (f" (default {roff_text(default)})" if default else "") + "\n"
    body += ".SH COMMANDS\n"
    for words, what in commands:
        body += f".TP\n.B {roff_text(words.strip('`'))}\n{roff_line(what)}\n"
    body += ".SH EXIT STATUS\n"
    for code, when in table_rows(secs["Exit codes and errors"]):
        body += f".TP\n.B {code}\n{roff_line(when)}\n"
    body += (".SH SEE ALSO\n\\fBpmdfwd\\fR(8), \\fBpmdfwd.toml\\fR(5); "
             "the full reference: docs/cli.md\n")
    return page("pmdctl", 8, "System management commands", body), len(commands)


def pmdfwd_page(cli_md, config_md):
    cli, cfg = sections(cli_md), sections(config_md)
    body = (".SH NAME\npmdfwd \\- DPDK poll-mode forwarding and logging appliance\n"
            ".SH SYNOPSIS\n.B pmdfwd\n\\fB--config\\fR \\fIFILE\\fR [\\fB--check\\fR "
            "[\\fB--no-system-check\\fR]]\n"
            ".SH DESCRIPTION\n\\fBpmdfwd\\fR forwards packets between DPDK ports with one "
            "busy-polling worker per port and rx queue, in patch, l2 or l3 (router) mode, "
            "and sends its log records as UDP datagrams from a reserved buffer pool. "
            "It is configured by \\fBpmdfwd.toml\\fR(5) and queried with \\fBpmdctl\\fR(8).\n")
    body += options_section(ARGS.pmdfwd)
    body += ".SH SIGNALS\n"
    for sig, what in table_rows(cli["pmdfwd: signals"]):
        body += f".TP\n.B {roff_text(sig)}\n{roff_line(what)}\n"
    body += ".SH EXIT STATUS\n"
    for code, meaning in table_rows(cfg["Exit codes"]):
        body += f".TP\n.B {code}\n{roff_line(meaning)}\n"
    body += (".SH FILES\n.TP\n.I /etc/pmdfwd/pmdfwd.toml\nthe config the systemd unit runs\n"
             ".TP\n.I /var/run/dpdk/PREFIX/dpdk_telemetry.v2\nthe telemetry socket "
             "\\fBpmdctl\\fR(8) talks to\n"
             ".SH SEE ALSO\n\\fBpmdctl\\fR(8), \\fBpmdfwd.toml\\fR(5), \\fBpmdgen\\fR(8), "
             "\\fBdpdk-testpmd\\fR(1)\n")
    return page("pmdfwd", 8, "System management commands", body)


def pmdgen_page():
    body = (".SH NAME\npmdgen \\- DPDK traffic generator and latency probe\n"
            ".SH SYNOPSIS\n.B pmdgen\n\\fB--tx\\fR \\fIDEVARGS\\fR [\\fIOPTIONS\\fR]\n"
            ".SH DESCRIPTION\n\\fBpmdgen\\fR sends numbered UDP frames on a DPDK device at a "
            "rate, receives them back, and reports throughput, loss, reordering and latency.\n")
    body += options_section(ARGS.pmdgen)
    body += ".SH SEE ALSO\n\\fBpmdfwd\\fR(8), \\fBpmdctl\\fR(8)\n"
    return page("pmdgen", 8, "System management commands", body)


def main():
    docs = Path(ARGS.docs)
    cli_md = (docs / "cli.md").read_text()
    config_md = (docs / "config.md").read_text()
    out = Path(ARGS.out)
    out.mkdir(parents=True, exist_ok=True)
    toml_page, keys = config_page(config_md)
    ctl_page, commands = pmdctl_page(cli_md)
    if keys < 50 or commands < 20:
        print(f"make_man.py: only {keys} keys and {commands} commands found", file=sys.stderr)
        return 1
    (out / "pmdfwd.toml.5").write_text(toml_page)
    (out / "pmdctl.8").write_text(ctl_page)
    (out / "pmdfwd.8").write_text(pmdfwd_page(cli_md, config_md))
    (out / "pmdgen.8").write_text(pmdgen_page())
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for opt in ("--docs", "--pmdfwd", "--pmdgen", "--version", "--out"):
        parser.add_argument(opt, required=True)
    ARGS = parser.parse_args()
    sys.exit(main())
