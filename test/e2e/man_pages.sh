#!/usr/bin/env bash
# The man pages (man/meson.build, made by scripts/lib/make_man.py from the
# docs' tables): groff renders each without a warning (-ww), man shows it,
# and none lacks an entry: every key of a running pmdfwd's config (show
# config) has one in pmdfwd.toml(5), in its section, and every pmdctl
# command of the command table (pmdctl completion) one in pmdctl(8).
# Usage: man_pages.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-$E2E_ROOT/build}
PMDFWD=$BUILD/app/pmdfwd/pmdfwd
PMDCTL=$BUILD/app/pmdctl/pmdctl
MAN=$BUILD/man
PREFIX=e2e-man-$$
WORK=$(mktemp -d)
cleanup() {
  [[ -z ${PMDFWD_PID:-} ]] || kill -KILL "$PMDFWD_PID" 2>/dev/null
  cleanup_dpdk_prefix "$PREFIX"; rm -rf "$WORK"
}
trap cleanup EXIT

for page in pmdfwd.8 pmdctl.8 pmdgen.8 pmdfwd.toml.5; do
  groff -ww -man -Tutf8 -z "$MAN/$page" >"$WORK/$page.warn" 2>&1
  check "$page: groff -ww renders it without a warning" test ! -s "$WORK/$page.warn"
  MANWIDTH=80 man -l "$MAN/$page" >"$WORK/$page.txt" 2>/dev/null
  check "$page: man shows it ($(wc -l <"$WORK/$page.txt") lines)" test "$(wc -l <"$WORK/$page.txt")" -gt 20
done

# Every key of a running config in its section of pmdfwd.toml(5).
sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" "$E2E_ROOT/config/null-patch.toml" \
  >"$WORK/null.toml"
if start_pmdfwd "$PMDFWD" "$WORK/null.toml" "$PREFIX" "$WORK/pmdfwd.log"; then
  "$PMDCTL" -f "$PREFIX" show config >"$WORK/running.toml"
  stop_pmdfwd "$PMDFWD_PID" TERM; PMDFWD_PID=
  /usr/bin/python3 - "$WORK/running.toml" "$MAN/pmdfwd.toml.5" >"$WORK/keys.txt" <<'PY'
import re, sys, tomllib
doc = tomllib.load(open(sys.argv[1], "rb"))
entries, section = {}, None
for line in open(sys.argv[2]):
    if line.startswith(".SH "):
        section = line[4:].strip().replace("\\", "")
    elif line.startswith(".B ") and section:
        entries.setdefault(section, set()).add(line[3:].strip())
missing = []
for name, value in doc.items():
    tables = value if isinstance(value, list) else [value]
    heading = f"[[{name}]]" if isinstance(value, list) else f"[{name}]"
    for t in tables:
        for key in t:
            if key not in entries.get(heading, set()):
                missing.append(f"{heading} {key}")
print(len(sum(([*t] for v in doc.values() for t in (v if isinstance(v, list) else [v])), [])))
print(" ".join(sorted(set(missing))))
PY
  total=$(sed -n 1p "$WORK/keys.txt"); missing=$(sed -n 2p "$WORK/keys.txt")
  check "pmdfwd.toml(5) has every key of a running config, in its section ($total keys${missing:+; missing: $missing})" \
    test -z "$missing"
else
  fail "start pmdfwd" "see its log"
fi

# Every command of the command table in pmdctl(8).
"$PMDCTL" completion >"$WORK/completion.bash"
top=$(sed -n 's/^ *"") COMPREPLY=($(compgen -W "\([^"]*\)".*/\1/p' "$WORK/completion.bash")
commands=()
for word in $top; do
  [[ $word == -* ]] && continue
  subs=$(sed -n "s/^ *\"$word\") COMPREPLY=(\$(compgen -W \"\\([^\"-][^\"]*\\)\".*/\\1/p" "$WORK/completion.bash")
  if [[ -n $subs ]]; then for s in $subs; do commands+=("$word $s"); done; else commands+=("$word"); fi
done
missing=$(for c in "${commands[@]}"; do
  grep -qE "^\.B ${c}( |$)" "$MAN/pmdctl.8" || echo "'$c'"
done | tr '\n' ' ')
check "pmdctl(8) has every command of the table (${#commands[@]}${missing:+; missing: $missing})" \
  test -z "$missing"
summary
