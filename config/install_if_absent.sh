#!/bin/sh
# meson install helper: installs SRC as DEST (an absolute path, under
# $DESTDIR) unless DEST is already there, so that an operator's edited config
# survives a reinstall. Usage: install_if_absent.sh SRC DEST
set -eu
src=$1
dest=${DESTDIR:-}$2
if [ -n "${MESON_INSTALL_DRY_RUN:-}" ]; then exit 0; fi
if [ -e "$dest" ]; then
  echo "Keeping $dest (already there; the example is $src)"
  exit 0
fi
mkdir -p "$(dirname "$dest")"
install -m 0644 "$src" "$dest"
echo "Installing $src to $dest"
