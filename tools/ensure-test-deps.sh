#!/usr/bin/env bash
# Makes sure the real Kafka clients the tests drive are installed: kcat, Debian's chromium (the
# web console tests drive it headless with playwright-core), and confluent-kafka and
# kafka-python importable by /usr/bin/python3 (Debian's packages; the python3 first on PATH may be
# a separate build that does not see them); and today's confluent-kafka 2.x and kafka-python 3.x
# from PyPI in a virtual environment outside the repository (pinned in
# compat-tests/clients/requirements.txt; the path is VENV_DIR in test/support/external.ts).
# Idempotent and a fast no-op when everything is there. Installs with apt-get (as root, or through
# sudo -n) and pip; if that is impossible it says so in one line and exits non-zero.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tools/lib/apt-install.sh
. "$ROOT/tools/lib/apt-install.sh"
REQUIREMENTS="$ROOT/compat-tests/clients/requirements.txt"
# Keep in step with VENV_DIR in test/support/external.ts.
VENV_DIR="${SAMSA_PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/samsa/venv}"
# A copy of the requirements the venv was built from: a changed pin means reinstall.
VENV_STAMP="$VENV_DIR/.samsa-requirements.txt"

venv_ok() {
  [ -x "$VENV_DIR/bin/python" ] && cmp -s "$REQUIREMENTS" "$VENV_STAMP" &&
    "$VENV_DIR/bin/python" -c 'import confluent_kafka, kafka' >/dev/null 2>&1
}

have_all() {
  command -v kcat >/dev/null 2>&1 &&
    [ -x /usr/bin/python3 ] &&
    /usr/bin/python3 -c 'import confluent_kafka, kafka, lz4, zstandard, snappy' >/dev/null 2>&1
}

have_chromium() {
  [ -x /usr/bin/chromium ]
}

if have_all && venv_ok && have_chromium; then
  exit 0
fi

fail() {
  echo "ensure-test-deps: $* (needed: kcat python3-confluent-kafka python3-kafka python3-lz4 python3-zstandard python3-snappy)" >&2
  exit 1
}

install_debian_clients() {
  apt_install ensure-test-deps kcat python3-confluent-kafka python3-kafka python3-lz4 python3-zstandard python3-snappy
  have_all || fail "installed, but kcat or the python clients are still not usable"
}

fail_venv() {
  echo "ensure-test-deps: $* (needed: a virtual environment at $VENV_DIR with the packages in $REQUIREMENTS)" >&2
  exit 1
}

install_venv() {
  command -v python3 >/dev/null 2>&1 || fail_venv "no python3 on PATH to create it with"
  mkdir -p "$(dirname "$VENV_DIR")"
  # Two test runs starting at once must not both build the same venv.
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$VENV_DIR.lock"
    flock -w 600 9 || fail_venv "another run held $VENV_DIR.lock for 10 minutes"
    venv_ok && return 0
  fi
  # A venv whose interpreter no longer runs (its base python was replaced) is rebuilt, not patched.
  if ! "$VENV_DIR/bin/python" -m pip --version >/dev/null 2>&1; then
    echo "ensure-test-deps: creating $VENV_DIR with $(command -v python3) ($(python3 --version 2>&1))" >&2
    python3 -m venv --clear "$VENV_DIR" </dev/null >&2 || fail_venv "python3 -m venv failed"
  fi
  echo "ensure-test-deps: installing $(grep -cE '^[A-Za-z]' "$REQUIREMENTS") pinned packages from $REQUIREMENTS with pip" >&2
  # Wheels only: nothing is compiled, so a missing wheel fails at once instead of half-building.
  "$VENV_DIR/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: -r "$REQUIREMENTS" </dev/null >&2 ||
    fail_venv "pip install failed"
  "$VENV_DIR/bin/python" -c 'import confluent_kafka, kafka, lz4.frame, zstandard, snappy, crc32c' >&2 ||
    fail_venv "installed, but the clients or codecs do not import"
  cp "$REQUIREMENTS" "$VENV_STAMP"
}

have_all || install_debian_clients
if ! have_chromium; then
  apt_install ensure-test-deps chromium
  have_chromium || { echo "ensure-test-deps: chromium installed, but /usr/bin/chromium is missing" >&2; exit 1; }
fi
venv_ok || install_venv
echo "ensure-test-deps: done" >&2
