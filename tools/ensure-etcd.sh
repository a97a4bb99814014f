#!/usr/bin/env bash
# Makes sure etcd is installed for the cluster tests (test/support/etcd.ts starts it on demand):
# Debian's etcd-server package, which provides /usr/bin/etcd (3.4). Idempotent and a fast no-op
# when /usr/bin/etcd exists (or SAMSA_ETCD_BIN names an executable). Installs with apt-get as root
# (or through sudo -n); otherwise says in one line what is missing and exits non-zero.
set -euo pipefail

BIN="${SAMSA_ETCD_BIN:-/usr/bin/etcd}"
[ -x "$BIN" ] && exit 0

fail() {
  echo "ensure-etcd: $* (needed: $BIN from Debian's etcd-server package: apt-get install etcd-server)" >&2
  exit 1
}

SUDO=()
if [ "${EUID:-$(id -u)}" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    fail "etcd is missing and this user is not root and cannot sudo without a password"
  fi
fi
command -v apt-get >/dev/null 2>&1 || fail "etcd is missing and apt-get is not available"

export DEBIAN_FRONTEND=noninteractive
echo "ensure-etcd: installing etcd-server with apt-get" >&2
"${SUDO[@]}" apt-get update -qq </dev/null >&2 || fail "apt-get update failed"
# The package's maintainer script enables a systemd unit; without systemd (containers, CI) nothing
# starts, and the tests never use that unit: they start their own etcd on free ports.
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends etcd-server </dev/null >&2 || fail "apt-get install failed"
[ -x "$BIN" ] || fail "etcd-server installed, but $BIN is still missing"
echo "ensure-etcd: done ($("$BIN" --version 2>/dev/null | head -1))" >&2
