#!/usr/bin/env bash
# Makes CACHE/base/rootfs.tar: a local stand-in for node:20-bookworm-slim, for machines that cannot reach Docker Hub.
# Debian bookworm minbase (debootstrap) + this machine's Node 20, npm and Node headers under /usr/local, a `node` user
# (uid 1000) and the machine's CA bundle, i.e. what the real image offers the Dockerfile. Made once, then cached.
# Only the smoke test uses it; partners build on the real image.
#
# usage: bash scripts/docker-standin-base.sh CACHE_DIR        (root; called by docker-smoke.sh)
set -euo pipefail

CACHE=${1:?usage: docker-standin-base.sh CACHE_DIR}
OUT="$CACHE/base/rootfs.tar"
mkdir -p "$CACHE/base"
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SMOKE_NAME=docker-standin-base
# shellcheck source=lib/smoke.sh
. "$(dirname "$0")/lib/smoke.sh"
[ -s "$OUT" ] && exit 0

NODE_BIN=$(readlink -f "$(command -v node)")
case "$(node -p 'process.versions.node')" in
  20.*) ;;
  *) fail "the stand-in is named node:20 but this machine's Node is $(node -v)" ;;
esac
NODE_PREFIX=$(dirname "$(dirname "$NODE_BIN")")
NPM_DIR="$NODE_PREFIX/lib/node_modules/npm"
HEADERS="$NODE_PREFIX/include/node"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
[ -f "$NPM_DIR/bin/npm-cli.js" ] || fail "npm not found at $NPM_DIR"
[ -f "$HEADERS/node_api.h" ] || fail "Node headers not found at $HEADERS (needed to compile better-sqlite3 offline)"
[ -f "$CA_BUNDLE" ] || fail "no CA bundle at $CA_BUNDLE"

TOOL="$CACHE/debootstrap"
if [ ! -x "$TOOL/usr/sbin/debootstrap" ]; then
  echo "docker-standin-base: downloading debootstrap from Debian"
  rm -rf "$TOOL" && mkdir -p "$TOOL"
  apt_download "$TOOL" "$CACHE/base/apt.log" debootstrap
  dpkg -x "$TOOL"/debootstrap_*.deb "$TOOL"
fi

ROOTFS="$CACHE/base/rootfs"
# debootstrap mounts proc and sys inside the target; an interrupted run must not leave them (or rm -rf into them).
unmount_target() {
  local m
  for m in "$ROOTFS/dev/pts" "$ROOTFS/proc" "$ROOTFS/sys"; do
    if mountpoint -q "$m" 2>/dev/null; then umount -l "$m"; fi
  done
}
trap unmount_target EXIT
unmount_target
rm -rf "$ROOTFS" && mkdir -p "$ROOTFS"
echo "docker-standin-base: debootstrap --variant=minbase bookworm from $MIRROR (about a minute)"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
KEY_ARGS=()
[ -f "$KEYRING" ] && KEY_ARGS=(--keyring="$KEYRING")
DEBOOTSTRAP_DIR="$TOOL/usr/share/debootstrap" "$TOOL/usr/sbin/debootstrap" "${KEY_ARGS[@]}" \
  --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$CACHE/base/debootstrap.log" 2>&1 ||
  { tail -20 "$CACHE/base/debootstrap.log" >&2; fail "debootstrap failed (log: $CACHE/base/debootstrap.log)"; }

# The layout of the official image: node, npm and headers under /usr/local.
install -D -m 0755 "$NODE_BIN" "$ROOTFS/usr/local/bin/node"
mkdir -p "$ROOTFS/usr/local/lib/node_modules" "$ROOTFS/usr/local/include" "$ROOTFS/usr/local/etc"
cp -a "$NPM_DIR" "$ROOTFS/usr/local/lib/node_modules/npm"
cp -a "$HEADERS" "$ROOTFS/usr/local/include/node"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
# This machine reaches the registry through its own CA; nodedir lets node-gyp build without downloading headers.
mkdir -p "$ROOTFS/etc/ssl/certs"
cp "$CA_BUNDLE" "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nnodedir=/usr/local\nupdate-notifier=false\n' \
  >"$ROOTFS/usr/local/etc/npmrc"
chroot "$ROOTFS" groupadd --gid 1000 node
chroot "$ROOTFS" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*

tar -C "$ROOTFS" -cf "$OUT.tmp" . && mv "$OUT.tmp" "$OUT"
rm -rf "$ROOTFS"
echo "docker-standin-base: $OUT ($(($(stat -c %s "$OUT") / 1000000)) MB)"
