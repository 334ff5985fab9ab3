#!/usr/bin/python3
"""Reads what udp_receiver.py wrote and checks it as a netconsole receiver
would: every datagram in extended format, fragments reassembled in order,
sequence numbers without gaps. Prints KEY=VALUE lines for the shell test;
with a PATTERN, also for the records whose text matches it: their levels,
the longest text and whole record (head, ';' and text, as the kernel counts
CONSOLE_EXT_LOG_MAX), and how many end in the cut mark."""
import json
import re
import sys

HEAD = re.compile(r"^(\d+),(\d+),(\d+),([-c])(?:,ncfrag=(\d+)/(\d+))?;")
CUT_MARK = "...[truncated]\n"


def main() -> int:
    records, bad, partial = {}, 0, {}
    with open(sys.argv[1]) as f:
        for line in f:
            d = json.loads(line)
            if "payload" not in d:
                continue
            p = d["payload"]
            m = HEAD.match(p)
            if not m:
                bad += 1
                continue
            level, seq = int(m.group(1)), int(m.group(2))
            head_len = m.end(4)  # "<level>,<seq>,<ts>,<flags>"
            body = p[m.end():]
            if m.group(5) is None:
                records[seq] = (level, body, head_len)
                continue
            off, total = int(m.group(5)), int(m.group(6))
            got = partial.setdefault(seq, {})
            got[off] = body
            joined = "".join(got[k] for k in sorted(got))
            if len(joined) == total and all(
                    sorted(got)[i] == sum(len(got[k]) for k in sorted(got)[:i])
                    for i in range(len(got))):
                records[seq] = (level, joined, head_len)
    seqs = sorted(records)
    gaps = sum(b - a - 1 for a, b in zip(seqs, seqs[1:]))
    print(f"datagrams_bad={bad}")
    print(f"records={len(records)}")
    print(f"gaps={gaps}")
    print(f"newline_ended={sum(1 for _, b, _ in records.values() if b.endswith(chr(10)))}")
    pattern = sys.argv[2] if len(sys.argv) > 2 else None
    if pattern:
        hits = [r for r in records.values() if re.search(pattern, r[1])]
        print(f"matching={len(hits)}")
        print(f"matching_levels={','.join(sorted(set(str(l) for l, _, _ in hits)))}")
        print(f"matching_longest={max((len(b) for _, b, _ in hits), default=0)}")
        print("matching_record_longest="
              f"{max((h + 1 + len(b) for _, b, h in hits), default=0)}")
        print(f"matching_cut={sum(1 for _, b, _ in hits if b.endswith(CUT_MARK))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
