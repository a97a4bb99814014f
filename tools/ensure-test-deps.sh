#!/usr/bin/env bash
# Makes sure the real Kafka clients the tests drive are installed: kcat, and confluent-kafka and
# kafka-python importable by /usr/bin/python3 (Debian's packages; the python3 first on PATH may be
# a separate build that does not see them). Idempotent and a fast no-op when everything is there.
# Installs with apt-get (as root, or through sudo -n); if that is impossible it says so in one line
# and exits non-zero.
set -euo pipefail

have_all() {
  command -v kcat >/dev/null 2>&1 &&
    [ -x /usr/bin/python3 ] &&
    /usr/bin/python3 -c 'import confluent_kafka, kafka, lz4, zstandard, snappy' >/dev/null 2>&1
}

if have_all; then
  exit 0
fi

fail() {
  echo "ensure-test-deps: $* (needed: kcat python3-confluent-kafka python3-kafka python3-lz4 python3-zstandard python3-snappy)" >&2
  exit 1
}

SUDO=()
if [ "${EUID:-$(id -u)}" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    fail "test clients are missing and this user is not root and cannot sudo without a password; install them with apt-get"
  fi
fi
command -v apt-get >/dev/null 2>&1 || fail "test clients are missing and apt-get is not available"

export DEBIAN_FRONTEND=noninteractive
echo "ensure-test-deps: installing kcat python3-confluent-kafka python3-kafka python3-lz4 python3-zstandard python3-snappy with apt-get" >&2
"${SUDO[@]}" apt-get update -qq </dev/null >&2 || fail "apt-get update failed"
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends kcat python3-confluent-kafka python3-kafka python3-lz4 python3-zstandard python3-snappy </dev/null >&2 ||
  fail "apt-get install failed"

have_all || fail "installed, but kcat or the python clients are still not usable"
echo "ensure-test-deps: done" >&2
