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

# shellcheck source=tools/lib/apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/apt-install.sh"
# The package's maintainer script enables a systemd unit; without systemd (containers, CI) nothing
# starts, and the tests never use that unit: they start their own etcd on free ports.
apt_install ensure-etcd etcd-server
[ -x "$BIN" ] || fail "etcd-server installed, but $BIN is still missing"
echo "ensure-etcd: done ($("$BIN" --version 2>/dev/null | head -1))" >&2
