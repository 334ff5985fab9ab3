#!/usr/bin/env bash
# The Debian package, installed where nothing else is: scripts/package
# builds it with dpkg-buildpackage (lintian: no error), and a fresh Debian 12
# root made by debootstrap installs it with apt-get, which must find every
# runtime dependency in Debian's archive. There: the files and conffiles it
# should hold, every library resolves, --check passes on the installed
# config, pmdctl and pmdgen run, the unit is installed but neither enabled
# nor started, and pmdfwd forwards (net_null, its drivers from the package's
# dependencies) and stops with its pools full. `dpkg -r` keeps the
# conffiles only; `dpkg --purge` leaves no file of the package, its log
# directory included, and nothing that no package owns.
#
# The package is built with DEB_BUILD_OPTIONS=noopt (-O0, a unity build: a
# third of the time; debian/rules) since what is tested here is the
# packaging, not the code's speed. --deb FILE tests a package built already.
# The pristine root is made once and kept in /var/cache/pmdfwd-test; each run
# works in an overlay on it.
# Its mounts live in a mount namespace of its own, private: nothing mounted
# or unmounted here reaches the host's /dev or /sys, and all of it goes
# when the test ends, however it ends.
# Usage: package.sh [--deb FILE]
set -uo pipefail
if [[ -z ${PMDFWD_PACKAGE_NS:-} ]]; then
  PMDFWD_PACKAGE_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
DEB=
while (($#)); do
  case $1 in
    --deb) DEB=$(realpath "$2"); shift 2 ;;
    *) echo "usage: package.sh [--deb FILE]" >&2; exit 2 ;;
  esac
done
CACHE=/var/cache/pmdfwd-test/bookworm-minbase
MIRROR=http://deb.debian.org/debian
WORK=$(mktemp -d /tmp/pmdfwd-package-test.XXXXXX)
ROOT=$WORK/root
PREFIX=e2e-pkg-$(($$ % 100000))
MOUNTED=()
cleanup() {
  local m pids=()
  # Whatever still runs in the root first (and gone), then the mounts,
  # innermost first; the files only once nothing is mounted under them.
  for m in /proc/[0-9]*/root; do
    [[ $(readlink "$m" 2>/dev/null) == "$ROOT" ]] && pids+=("$(basename "$(dirname "$m")")")
  done
  ((${#pids[@]})) && kill -KILL "${pids[@]}" 2>/dev/null
  for _ in $(seq 50); do
    ((${#pids[@]})) && kill -0 "${pids[@]}" 2>/dev/null || break
    sleep 0.1
  done
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount -R "${MOUNTED[i]}" 2>/dev/null; done
  if findmnt -rno TARGET | grep -qF "$WORK"; then
    echo "package.sh: $WORK is still mounted; left in place" >&2
  else
    rm -rf --one-file-system "$WORK"
  fi
}
trap cleanup EXIT
in_root() { chroot "$ROOT" "$@"; }

# --- the package -------------------------------------------------------------
if [[ -z $DEB ]]; then
  start=$SECONDS
  if DEB_BUILD_OPTIONS="noopt noautodbgsym" "$E2E_ROOT/scripts/package" --out "$WORK/out" \
      >"$WORK/package.log" 2>&1; then
    DEB=$(sed -n 's/^package: \(\/.*\.deb\)$/\1/p' "$WORK/package.log")
    pass "scripts/package built $(basename "$DEB") in $((SECONDS - start)) s"
  else
    fail "scripts/package" "$(tail -5 "$WORK/package.log" | tr '\n' ' ')"
    summary; exit 1
  fi
  lintian_line=$(grep '^package: lintian: ' "$WORK/package.log")
  check "lintian ran and reports no error (${lintian_line#package: lintian: })" \
    bash -c "[[ '$lintian_line' =~ ^package:\ lintian:\ 0\ errors, ]]"
fi
VERSION=$(dpkg-deb -f "$DEB" Version)
check "it is pmdfwd_${VERSION}_amd64.deb" test "$(basename "$DEB")" = "pmdfwd_${VERSION}_amd64.deb"
dpkg-deb -c "$DEB" | awk '{print substr($6, 2)}' >"$WORK/contents.txt"
missing=()
for f in /usr/bin/pmdfwd /usr/bin/pmdctl /usr/bin/pmdgen /lib/systemd/system/pmdfwd.service \
    /etc/pmdfwd/pmdfwd.toml /etc/logrotate.d/pmdfwd /usr/share/man/man8/pmdfwd.8.gz \
    /usr/share/man/man8/pmdctl.8.gz /usr/share/man/man8/pmdgen.8.gz \
    /usr/share/man/man5/pmdfwd.toml.5.gz /usr/share/bash-completion/completions/pmdctl.bash \
    /usr/share/pmdfwd/prometheus/pmdfwd.rules.yml /usr/share/doc/pmdfwd/copyright \
    /usr/share/doc/pmdfwd/README.md.gz /usr/share/doc/pmdfwd/operations.md.gz; do
  grep -qxF "$f" "$WORK/contents.txt" || missing+=("$f")
done
check "it holds the binaries, unit, config, logrotate rule, man pages, completion, rules and docs${missing[*]:+ (missing: ${missing[*]})}" \
  test ${#missing[@]} -eq 0
dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles >"$WORK/conffiles" 2>/dev/null
check "the config and the logrotate rule are conffiles" \
  bash -c "grep -qx /etc/pmdfwd/pmdfwd.toml '$WORK/conffiles' && grep -qx /etc/logrotate.d/pmdfwd '$WORK/conffiles'"

# --- a fresh Debian 12 root ----------------------------------------------------
if [[ ! -f $CACHE/.complete ]]; then
  rm -rf "$CACHE.new" && mkdir -p "$(dirname "$CACHE")"
  if debootstrap --variant=minbase bookworm "$CACHE.new" "$MIRROR" >"$WORK/debootstrap.log" 2>&1; then
    touch "$CACHE.new/.complete" && rm -rf "$CACHE" && mv "$CACHE.new" "$CACHE"
  else
    fail "debootstrap" "$(tail -3 "$WORK/debootstrap.log" | tr '\n' ' ')"; summary; exit 1
  fi
fi
mkdir -p "$WORK/upper" "$WORK/overlay-work" "$ROOT"
if mount -t overlay overlay -o "lowerdir=$CACHE,upperdir=$WORK/upper,workdir=$WORK/overlay-work" "$ROOT"; then
  MOUNTED+=("$ROOT")
else
  cp -a "$CACHE/." "$ROOT/"  # no overlayfs here: a copy
fi
mount -t proc proc "$ROOT/proc" && MOUNTED+=("$ROOT/proc")
mount --rbind /sys "$ROOT/sys" && MOUNTED+=("$ROOT/sys") && mount --make-rslave "$ROOT/sys"
mount --rbind /dev "$ROOT/dev" && MOUNTED+=("$ROOT/dev") && mount --make-rslave "$ROOT/dev"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp "$DEB" "$ROOT/tmp/"
# What the root holds before: after the purge, every new file must belong
# to a package still installed (the dependencies apt brought).
list_files() {
  (cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
    -o -path ./tmp -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache \
    -o -path ./var/log \) -prune -o ! -type d -print | sed 's/^\.//' | sort)
}
list_files >"$WORK/before.txt"

in_root apt-get update -q >"$WORK/apt.log" 2>&1
if in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "/tmp/$(basename "$DEB")" >>"$WORK/apt.log" 2>&1; then
  pass "apt-get install ./$(basename "$DEB") resolves its dependencies from the archive ($(grep -oE '[0-9]+ newly installed' "$WORK/apt.log"))"
else
  fail "apt-get install" "$(tail -5 "$WORK/apt.log" | tr '\n' ' ')"; summary; exit 1
fi
check "dpkg has it installed" \
  test "$(in_root dpkg-query -W -f='${Status}' pmdfwd)" = "install ok installed"
in_root dpkg -L pmdfwd >"$WORK/files.txt"
unresolved=$(in_root sh -c 'ldd /usr/bin/pmdfwd /usr/bin/pmdctl /usr/bin/pmdgen' | grep -c 'not found')
check "every library of the three binaries resolves ($unresolved not found)" test "$unresolved" -eq 0
check "pmdfwd --check passes on the installed /etc/pmdfwd/pmdfwd.toml" \
  in_root pmdfwd --check --config /etc/pmdfwd/pmdfwd.toml
check "pmdctl --help runs" bash -c "chroot '$ROOT' pmdctl --help | grep -q '^Usage: pmdctl'"
check "pmdgen --help runs" bash -c "chroot '$ROOT' pmdgen --help | grep -q 'Usage'"
check "pmdfwd --version is $VERSION" bash -c "chroot '$ROOT' pmdfwd --version | grep -qF '$VERSION'"
check "the unit is installed" test -f "$ROOT/lib/systemd/system/pmdfwd.service"
check "and not enabled" bash -c "! ls '$ROOT'/etc/systemd/system/*/pmdfwd.service 2>/dev/null | grep -q ."
check "the log directory is there for the example config (root:root 0755, as LogsDirectory= makes it)" \
  test "$(stat -c '%U:%G %a' "$ROOT/var/log/pmdfwd" 2>/dev/null)" = "root:root 755"

# pmdfwd runs from the package alone: net_null, the vdev bus and the ring
# mempool are plugins that only the package's dependencies bring.
sed -e "s/^file_prefix = .*/file_prefix = \"$PREFIX\"/" -e '/^metrics = /d' \
  "$E2E_ROOT/config/null-patch.toml" >"$ROOT/tmp/null.toml"
chroot "$ROOT" pmdfwd --config /tmp/null.toml >"$WORK/pmdfwd.log" 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q "running:" "$WORK/pmdfwd.log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
rx=$(in_root pmdctl -f "$PREFIX" --json stats 2>/dev/null |
  /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["rx_pkts"])' 2>/dev/null)
check "pmdfwd forwards in the root (rx_pkts ${rx:-none})" test "${rx:-0}" -gt 0
timeout 20 chroot "$ROOT" pmdctl -f "$PREFIX" shutdown >/dev/null 2>&1
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$pid" 2>/dev/null  # not stopped within 30 s: the check below fails
rc=0
wait "$pid" || rc=$?
check "it stops (exit $rc) with every pool full" \
  bash -c "[[ $rc == 0 ]] && grep -q 'pools full again at shutdown' '$WORK/pmdfwd.log'"
rm -rf "$ROOT/run/dpdk/$PREFIX" "$ROOT/tmp/null.toml"

# --- remove, then purge ----------------------------------------------------------
in_root dpkg -r pmdfwd >"$WORK/remove.log" 2>&1
check "dpkg -r removes it, keeping its conffiles" \
  test "$(in_root dpkg-query -W -f='${Status}' pmdfwd)" = "deinstall ok config-files"
left=()
while read -r f; do
  [[ -d $ROOT$f ]] && continue
  grep -qxF "$f" "$WORK/conffiles" && continue
  [[ -e $ROOT$f ]] && left+=("$f")
done <"$WORK/files.txt"
check "no file but the conffiles is left${left[*]:+ (left: ${left[*]})}" test ${#left[@]} -eq 0
check "the conffiles are" test -f "$ROOT/etc/pmdfwd/pmdfwd.toml" -a -f "$ROOT/etc/logrotate.d/pmdfwd"
in_root dpkg --purge pmdfwd >"$WORK/purge.log" 2>&1
check "dpkg --purge forgets it" bash -c "! chroot '$ROOT' dpkg-query -W pmdfwd >/dev/null 2>&1"
left=()
while read -r f; do [[ -e $ROOT$f && ! -d $ROOT$f ]] && left+=("$f"); done <"$WORK/files.txt"
for d in /etc/pmdfwd /usr/share/pmdfwd /usr/share/doc/pmdfwd /var/log/pmdfwd; do
  [[ -e $ROOT$d ]] && left+=("$d")
done
check "no file or directory of its own is left${left[*]:+ (left: ${left[*]})}" test ${#left[@]} -eq 0
list_files >"$WORK/after.txt"
# Debian 12 merged /usr: a package's /lib/... is found as /usr/lib/...
cat "$ROOT"/var/lib/dpkg/info/*.list | sed -E 's#^/(lib|lib64|bin|sbin)/#/usr/\1/#' |
  cat - "$ROOT"/var/lib/dpkg/info/*.list | sort -u >"$WORK/owned.txt"
stray=$(comm -13 "$WORK/before.txt" "$WORK/after.txt" | comm -23 - "$WORK/owned.txt" |
  grep -vxE '/etc/resolv.conf|/etc/ld.so.cache' |
  head -5 | tr '\n' ' ')
check "nothing is left that no package owns${stray:+ ($stray)}" test -z "$stray"
summary
