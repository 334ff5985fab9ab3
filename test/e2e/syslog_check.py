#!/usr/bin/python3
"""Reads what rsyslog (its %jsonmesg%, after mmpstrucdata) or syslog-ng (its
format-json) wrote, one JSON object a message, and checks the log channel's
rfc5424 records as those receivers parsed them. Prints KEY=VALUE lines for
the shell test.

Usage: syslog_check.py FILE HOSTNAME PID [PATTERN]
  messages, records (distinct seq), duplicates, gaps (in seq), bad (a
  message whose version, app, host, pid, facility (local3), time or
  structured data is wrong, each reason on a line bad_REASON=N), longest
  (the longest raw message), and with PATTERN, for the records whose text
  matches: matching, levels, msgids, workers, cut, longest_raw."""
import datetime
import json
import re
import sys

CUT_MARK = "...[truncated]"
FACILITY_LOCAL3 = 19
SD_ID = "pmdfwd@32473"
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$")


def parse_time(s: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def normalise(d: dict) -> dict:
    """One shape for both receivers' field names."""
    if "syslogtag" in d:  # rsyslog's jsonmesg
        sd = ((d.get("$!") or {}).get("rfc5424-sd") or {}).get(SD_ID, {})
        return {
            "version": d.get("protocol-version"), "raw": d.get("rawmsg", ""),
            "msg": d.get("msg", ""), "host": d.get("hostname"),
            "facility": d.get("syslogfacility"), "severity": d.get("syslogseverity"),
            "time": d.get("timereported", ""), "received": d.get("timegenerated", ""),
            "app": d.get("app-name"), "pid": d.get("procid"), "msgid": d.get("msgid"),
            "seq": sd.get("seq"), "worker": sd.get("worker"),
        }
    # syslog-ng's template writes these names already; its MSGID "-" is empty.
    return dict(d, msgid=d.get("msgid") or "-")


def main() -> int:
    path, host, pid = sys.argv[1], sys.argv[2], sys.argv[3]
    pattern = re.compile(sys.argv[4]) if len(sys.argv) > 4 else None
    messages, bad, seen, dups = [], {}, set(), 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip():
                messages.append(normalise(json.loads(line)))

    def wrong(reason: str) -> None:
        bad[reason] = bad.get(reason, 0) + 1

    for m in messages:
        # The version as sent, from the raw message, not as a receiver names it.
        if not re.match(r"^<\d{1,3}>1 ", m.get("raw", "")):
            wrong("version")
        if m["app"] != "pmdfwd":
            wrong("app")
        if m["host"] != host:
            wrong("host")
        if m["pid"] != pid:
            wrong("pid")
        if str(m["facility"]) != str(FACILITY_LOCAL3):
            wrong("facility")
        if not TIME.match(m["time"]) or (
                m.get("received") and
                abs((parse_time(m["received"]) - parse_time(m["time"])).total_seconds()) > 300):
            wrong("time")
        if m["seq"] is None or not str(m["seq"]).isdigit() or not m["worker"]:
            wrong("structured_data")
            continue
        if int(m["seq"]) in seen:
            dups += 1
        seen.add(int(m["seq"]))
    seqs = sorted(seen)
    print(f"messages={len(messages)}")
    print(f"records={len(seen)}")
    print(f"duplicates={dups}")
    print(f"gaps={sum(b - a - 1 for a, b in zip(seqs, seqs[1:]))}")
    print(f"bad={sum(bad.values())}")
    for reason, n in sorted(bad.items()):
        print(f"bad_{reason}={n}")
    print(f"longest={max((len(m['raw'].encode()) for m in messages), default=0)}")
    if pattern:
        hits = [m for m in messages if pattern.search(m["msg"])]
        print(f"matching={len(hits)}")
        print(f"levels={','.join(sorted(set(str(m['severity']) for m in hits)))}")
        print(f"msgids={','.join(sorted(set(str(m['msgid']) for m in hits)))}")
        print(f"workers={','.join(sorted(set(str(m['worker']) for m in hits)))}")
        print(f"cut={sum(1 for m in hits if m['msg'].endswith(CUT_MARK))}")
        print(f"longest_raw={max((len(m['raw'].encode()) for m in hits), default=0)}")
        first = min((int(m["seq"]) for m in hits if m["seq"]), default=-1)
        last = max((int(m["seq"]) for m in hits if m["seq"]), default=-1)
        print(f"first_seq={first}")
        print(f"last_seq={last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
